"""The book's settings, read from the MkDocs config and the kernelbook plugin's options.

No mkdocs import at module level: ``load`` imports it when asked to load a config.
"""

from __future__ import annotations

import sys
import warnings
from importlib.metadata import entry_points
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..common import gpus
from ..safety.errors import KernelbookError
from .figures import gpu_specs
from .prose.labels import LANGUAGES


class Options(Protocol):
    """The kernelbook plugin's options as read here (``config.KernelbookConfig``; ``plugin`` imports this module)."""

    repository: str
    branch: str
    snippets_dir: str
    read_only: bool
    notebooks: bool
    cache_dir: str
    glossary: str
    glossary_page: str
    reference_gpu: str


@dataclass(frozen=True)
class BookSettings:
    """What the book's parts need to know of the site, as plain values."""

    root: Path  # the folder of mkdocs.yml
    docs_dir: Path
    site_url: str  # as mkdocs.yml sets it (never `mkdocs serve`'s own address)
    repository: str
    branch: str
    snippets_dir: str  # relative to root
    languages: tuple[str, ...]  # the default language first
    language_folders: bool  # docs/<lang>/... (mkdocs-static-i18n's folder structure), else docs/ is the one language
    read_only: bool = False
    notebooks: bool = True
    cache_dir: Path | None = None
    glossary: Path | None = None  # the glossary's data file (in docs/, kept out of the site), if the book has one
    glossary_page: str = "glossary.md"  # its page, in each language's folder

    @property
    def default_language(self) -> str:
        return self.languages[0]

    def pages(self, lang: str) -> Path:
        """The folder holding language ``lang``'s pages."""
        return self.docs_dir / lang if self.language_folders else self.docs_dir

    def url_prefix(self, lang: str) -> str:
        """Where ``lang``'s pages sit below the site root: "" for the default language, else "en/"."""
        return "" if lang == self.default_language else f"{lang}/"

    def rel(self, path: Path) -> str:
        """``path`` as messages name it: relative to the book's folder where it lies inside it."""
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)


def from_config(config, options: Options) -> BookSettings:
    """Settings from a loaded MkDocs config and the plugin's options; ValueError on what cannot work."""
    root = Path(config.config_file_path or ".").resolve().parent
    languages, folders = _languages(config)
    for name, value in (("glossary", options.glossary), ("glossary_page", options.glossary_page)):
        if value and (Path(value).is_absolute() or ".." in Path(value).parts):
            raise ValueError(f"the `{name}` option names a file inside docs/ (relative to it), not {value!r}")
    try:  # the capture side reads it as text (gpus.reference_gpu): both refuse what is not a GPU key
        gpus.check_reference(getattr(options, "reference_gpu", "") or "")
    except KernelbookError as exc:
        raise ValueError(str(exc)) from None
    unknown = [lang for lang in languages if lang not in LANGUAGES]
    if unknown:
        raise ValueError(f"kernelbook writes its pages in {', '.join(LANGUAGES)}; the site is in {', '.join(unknown)} "
                         "(theme.language, or the i18n plugin's languages)")
    # [[kb:spec]] and the roofline read this book's docs/gpu_specs.yml (a book elsewhere, or an install without -e)
    gpu_specs.use_book(Path(config.docs_dir))
    return BookSettings(
        root=root,
        docs_dir=Path(config.docs_dir),
        site_url=configured_site_url(config),
        repository=options.repository,
        branch=options.branch,
        snippets_dir=options.snippets_dir,
        languages=languages,
        language_folders=folders,
        read_only=options.read_only,
        notebooks=options.notebooks,
        cache_dir=(root / options.cache_dir).resolve(),
        glossary=(Path(config.docs_dir) / options.glossary) if options.glossary else None,
        glossary_page=options.glossary_page,
    )


def _languages(config) -> tuple[tuple[str, ...], bool]:
    """The built languages, default first, and whether pages sit in docs/<lang>/ (static-i18n's folders)."""
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return (str(config.theme.get("language") or "en"),), False
    built = [lang for lang in i18n.config.languages if lang.build]
    ordered = [lang.locale for lang in built if lang.default] + [lang.locale for lang in built if not lang.default]
    return tuple(ordered), i18n.config.docs_structure == "folder"


def configured_site_url(config) -> str:
    """``site_url`` as mkdocs.yml sets it.

    ``mkdocs serve`` replaces ``config.site_url`` with its own address; a notebook, opened
    from Colab or GitHub, must link back to the published site, so read what was written.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        written = [raw["site_url"] for raw in config.user_configs if raw.get("site_url")]
    return str(written[-1] if written else config.site_url or "")


def load(root: Path, *, plugin: dict | None = None, **mkdocs_options) -> tuple[object, BookSettings]:
    """The MkDocs config of the book at ``root`` (its ``mkdocs.yml``, loaded as ``mkdocs build``
    loads it) and its settings.

    ``plugin``: kernelbook options to set over mkdocs.yml's, e.g. ``{"read_only": True}``;
    ``mkdocs_options``: MkDocs settings, e.g. ``site_dir=...``, ``strict=True``.
    """
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    path = Path(root) / "mkdocs.yml"
    if not path.is_file():
        raise KernelbookError(f"{path}: no MkDocs config here; run kernelbook in the book's folder (where mkdocs.yml is)")
    try:
        config = load_config(str(path), **mkdocs_options)
    except ConfigurationError as exc:  # the file itself (YAML MkDocs cannot read): the reason is in exc, logged nowhere
        raise KernelbookError(f"{path}: {exc}") from None
    except Abort as exc:  # MkDocs has logged each reason as an ERROR line already
        if not plugin_installed():
            raise KernelbookError(
                f"{path}: the kernelbook MkDocs plugin is not installed in this Python ({sys.executable}); "
                f"install the book's package into it: `\"{sys.executable}\" -m pip install -e {Path(root).resolve()}` "
                "(or `make .venv/.installed`, which makes .venv/ with it)") from None
        raise KernelbookError(f"{path}: MkDocs refused this config ({exc}); the ERROR line(s) above say what to change") from None
    found = config.plugins.get("kernelbook")
    if found is None:
        raise KernelbookError(f"{path}: the kernelbook plugin is not configured (add `plugins: - kernelbook` to it)")
    for name, value in (plugin or {}).items():
        setattr(found.config, name, value)
    try:
        return config, from_config(config, found.config)
    except ValueError as exc:  # an option that cannot work: one line, exit 2
        raise KernelbookError(str(exc)) from None


def plugin_installed() -> bool:
    """Whether this Python has the ``kernelbook`` MkDocs plugin registered (``pip install -e .`` registers it)."""
    return any(entry.name == "kernelbook" for entry in entry_points(group="mkdocs.plugins"))
