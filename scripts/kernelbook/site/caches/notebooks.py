"""Rendered notebook pages, cached on disk by content: a rebuild converts no unchanged notebook.

mkdocs-jupyter converts a notebook with nbconvert on every build (its template compiled
afresh each time, ~0.5 s a notebook) and keeps its own cache only per language build (the
two builds of a two-language site evict each other's entries). The plugin wraps the
notebook page's ``render`` instead: the key is a hash of exactly what the HTML depends on
(the notebook's bytes, mkdocs-jupyter's settings, the versions of the packages that
render it), so an entry is valid for either language build, across ``mkdocs serve``
rebuilds and across processes; a notebook whose bytes are unchanged is never converted
again. Entries unused for :data:`KEEP_DAYS` are removed when a new one is written.

When a notebook must be converted, nbconvert's Jinja templates are compiled once and kept
as bytecode beside the entries (Jinja's own bytecode cache, checked against each template's
source): the next notebook, in this build or a later one, skips the compilation; within a process
the exporters themselves are made once for the same settings, and validate a notebook again only
after a preprocessor that may have changed it (``caches.exporters``). The theme's
templates are kept the same way (:func:`with_bytecode`, from the plugin's ``on_env``).
nbconvert's last pass over the page (``alt`` and ``tabindex`` attributes) runs without
building a BeautifulSoup tree (``notebook_soup``), and a build converts the committed
notebooks, and those it changes, in a forked child while it renders the other pages
(:func:`start_ahead`, ``notebook_ahead``).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.metadata
import json
import logging
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

from ...safety.files import MiB, InputError, parse_json, read_bounded
from ...common.records import write_atomic
from ..notebooks import ahead as notebook_ahead, assets as notebook_assets, soup as notebook_soup
from ..notebooks.chapter import NAME
from .exporters import kept_exporters, validated_once

log = logging.getLogger("mkdocs.plugins.kernelbook")

FORMAT = 3  # bump when what an entry holds changes (2: the stylesheet and pictures as files; 3: nbconvert's own text, notebook_soup)
KEEP_DAYS = 14
MAX_ENTRY_BYTES = 64 * MiB
# Everything that turns a notebook into the page's HTML and table of contents.
RENDERERS = ("mkdocs-jupyter", "nbconvert", "nbformat", "jupytext", "mistune", "pygments", "jupyterlab-pygments",
             "markdown", "jinja2", "mkdocs", "defusedxml", "bleach")
# mkdocs-jupyter options that do not change a page's HTML (which files, where its cache is).
_NOT_RENDERING = {"include", "ignore", "cache", "cache_dir", "data_files", "include_source"}


def versions(dists: tuple[str, ...] = RENDERERS) -> dict[str, str | None]:
    """Each renderer's installed version (None: not installed): part of a cache key."""
    found = {}
    for dist in dists:
        try:
            found[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            found[dist] = None
    return found


def key(notebook: bytes, options: dict[str, Any], renderers: dict[str, str | None]) -> str:
    """sha256 of the notebook's bytes, the rendering options and the renderers' versions."""
    settings = {k: v for k, v in sorted(options.items()) if k not in _NOT_RENDERING}
    blob = json.dumps({"format": FORMAT, "options": settings, "versions": renderers}, sort_keys=True, default=repr)
    return hashlib.sha256(blob.encode() + b"\0" + notebook).hexdigest()


def toc_tokens(toc) -> list[dict[str, Any]]:
    """A page's table of contents as the tokens mkdocs builds one from (``get_toc``)."""
    return [{"level": a.level, "id": a.id, "name": a.title, "children": toc_tokens(a.children)} for a in toc]


def cache_render(page, folder: Path, options: dict[str, Any], renderers: dict[str, str | None],
                 report: Callable[[str, bool], None], ahead: notebook_ahead.Ahead | None = None) -> None:
    """Make ``page.render`` (mkdocs-jupyter's) read from and fill the cache in ``folder``.

    The page's HTML has its stylesheet and pictures as files (``notebook_assets``): they are
    ``page.notebook_files`` after the render, and the HTML names them from :data:`notebook_assets.BASE`.

    ``report(source, rendered)`` is told of each render: converted (True) or from the cache (False).
    An entry ``ahead``'s child was asked for is waited for, and reported as converted.
    """
    from mkdocs.structure.toc import get_toc

    convert = page.render  # mkdocs-jupyter's, bound to this page in its on_pre_page
    source = Path(page.file.abs_src_path)

    def render(config, files) -> None:
        path = folder / f"{key(source.read_bytes(), options, renderers)}.json"
        converted = ahead is not None and ahead.wait_for(path)  # by the child, now
        entry = read_entry(path)
        if entry is not None:
            page.content, page.toc = entry["content"], get_toc(entry["toc"])
            page.notebook_files = {name: base64.b64decode(data) for name, data in entry["files"].items()}
            if entry["title"] is not None:
                page.title = entry["title"]
            path.touch()  # in use: kept
            report(page.file.src_uri, converted)
            return
        before = vars(page).get("title")
        with compiled_templates(folder / "jinja"), kept_exporters(str(folder / "jinja")), validated_once():
            try:
                with notebook_soup.in_nbconvert():
                    convert(config, files)
            except notebook_soup.Unforeseen as exc:  # nbconvert asked for more: its own BeautifulSoup does it
                log.info("kernelbook: %s: nbconvert's HTML pass asked for %s; converted with BeautifulSoup",
                         page.file.src_uri, exc)
                convert(config, files)
        title = vars(page).get("title")  # set by the converter from the notebook's H1, unless told not to
        page.content, page.notebook_files = notebook_assets.externalize(page.content)
        entry = {"content": page.content, "toc": toc_tokens(page.toc), "title": title if title != before else None,
                 "files": {name: base64.b64encode(data).decode("ascii") for name, data in page.notebook_files.items()}}
        _prune(folder)
        write_atomic(path, json.dumps(entry, ensure_ascii=False).encode("utf-8"))
        report(page.file.src_uri, True)

    page.render = render


def start_ahead(jupyter, config, folder: Path, renderers: dict[str, str | None],
                close: tuple[int | None, ...] = ()) -> notebook_ahead.Ahead | None:
    """A forked child (``notebook_ahead``) converting the notebooks it is asked for, into the cache in ``folder``,
    each as its page would be: mkdocs-jupyter's render, wrapped by :func:`cache_render`. None: no child.
    ``close``: descriptors the child must not keep (the book's lock)."""
    from types import SimpleNamespace

    options = dict(jupyter.config)

    def convert(source: Path) -> None:
        file = SimpleNamespace(abs_src_path=str(source), src_path=source.name, src_uri=source.name)
        page = SimpleNamespace(file=file, abs_url="/", title=None, content=None, toc=None)
        jupyter.on_pre_page(page, config=config, files=None)  # sets page.render, as for the page itself
        cache_render(page, folder, options, renderers, lambda source, rendered: None)
        page.render(config, None)

    return notebook_ahead.start(convert, options, close)


def ask_ahead(ahead: notebook_ahead.Ahead | None, sources: list[Path], jupyter, folder: Path,
              renderers: dict[str, str | None]) -> None:
    """Have ``ahead``'s child convert ``sources`` (in that order), unless their entries are written; not when
    mkdocs-jupyter's settings changed since it was forked (``mkdocs.yml`` edited under ``mkdocs serve``)."""
    if ahead is None or jupyter is None or dict(jupyter.config) != ahead.options:
        return
    ahead.ask((s, folder / f"{key(s.read_bytes(), ahead.options, renderers)}.json") for s in sources
              if "\t" not in str(s) and "\n" not in str(s))  # (the child reads one job a line, tab-separated)


def read_entry(path: Path) -> dict[str, Any] | None:
    """The cache entry at ``path`` when it has exactly the shape this module writes; None (convert again) otherwise."""
    try:
        entry = parse_json(read_bounded(path, MAX_ENTRY_BYTES, gzipped=False), str(path))
    except InputError:
        return None
    if not isinstance(entry, dict) or set(entry) != {"content", "toc", "title", "files"}:
        return None
    if not isinstance(entry["content"], str) or not (entry["title"] is None or isinstance(entry["title"], str)):
        return None
    if not _files(entry["files"]):
        return None
    return entry if _toc(entry["toc"], 0) else None


def _files(files: Any) -> bool:
    """The stylesheet and pictures the page names, as :func:`notebook_assets.externalize` names them (by content), in base64."""
    if not isinstance(files, dict):
        return False
    for name, data in files.items():
        if not isinstance(name, str) or not notebook_assets.NAME.fullmatch(name) or not isinstance(data, str):
            return False
        try:
            if notebook_assets.name_of(name, base64.b64decode(data, validate=True)) != name:
                return False  # a file whose name is not its content's: not one this module wrote
        except ValueError:
            return False
    return True


def _toc(tokens: Any, depth: int) -> bool:
    """Tokens as :func:`toc_tokens` writes them (MkDocs' ``get_toc`` reads them)."""
    if depth > 8 or not isinstance(tokens, list):
        return False
    for token in tokens:
        if not isinstance(token, dict) or set(token) != {"level", "id", "name", "children"}:
            return False
        level = token["level"]
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 6:
            return False
        if not isinstance(token["id"], str) or not isinstance(token["name"], str) or not _toc(token["children"], depth + 1):
            return False
    return True


@contextlib.contextmanager
def compiled_templates(folder: Path) -> Iterator[None]:
    """While inside, every nbconvert template environment keeps compiled templates in ``folder``."""
    try:
        from nbconvert.exporters.templateexporter import TemplateExporter

        create = TemplateExporter._create_environment
    except (ImportError, AttributeError):  # another nbconvert: convert as it does
        yield
        return
    TemplateExporter._create_environment = lambda exporter: with_bytecode(create(exporter), folder)
    try:
        yield
    finally:
        TemplateExporter._create_environment = create


def with_bytecode(env, folder: Path):
    """Jinja ``env`` keeping its compiled templates in ``folder`` (Jinja checks each against its template's source)."""
    import jinja2

    folder.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
    return env


def _prune(folder: Path) -> None:
    """Remove entries no build has used for KEEP_DAYS (every hit touches its entry)."""
    remove_expired(folder, KEEP_DAYS)


def remove_expired(folder: Path, days: float, pattern: str = "*.json") -> None:
    """Delete the cache entries (``pattern``) in ``folder`` untouched for ``days`` (each cache touches an entry it uses)."""
    if not folder.is_dir():
        return
    cutoff = time.time() - days * 86400
    for old in folder.glob(pattern):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass


# ---------------------------------------------------------------- staged notebooks

def holds(path: Path, data: bytes) -> bool:
    """The file at path holds exactly data (False when it cannot be read)."""
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def stage(folder: Path, data: bytes) -> Path:
    """A notebook's bytes in the cache, under its own name (mkdocs-jupyter names the page after it).

    Staged copies no build has used for :data:`KEEP_DAYS` are removed.
    """
    path = folder / hashlib.sha256(data).hexdigest()[:16] / NAME
    if holds(path, data):
        path.touch()
        return path
    cutoff = time.time() - KEEP_DAYS * 86400
    for old in folder.glob(f"*/{NAME}") if folder.is_dir() else ():
        if old.stat().st_mtime < cutoff:
            shutil.rmtree(old.parent, ignore_errors=True)
    write_atomic(path, data)
    return path
