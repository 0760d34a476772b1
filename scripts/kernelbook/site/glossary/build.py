"""The glossary in a build: read once and checked, kept out of the site, its terms linked on each page.

The plugin (``plugin.py``) calls these; the rules themselves are ``glossary.py`` (the data
file) and ``term_links.py`` (which words link where).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from ...safety.files import fingerprint
from ...common.records import write_atomic
from ..caches import figures as figure_cache, pages as page_cache
from ..figures import gpu_specs
from ..notebooks import chapter as notebooks
from . import links as term_links
from ..book import Entry
from ..directives import Context
from .terms import Glossary, GlossaryError, yaml_data as glossary_data  # noqa: F401 - Glossary: the type of a build's glossary
from ..prose.sections import page_url, relative
from ..settings import BookSettings

log = logging.getLogger("mkdocs.plugins.kernelbook")


def read(settings: BookSettings, report: Callable[[str], None]) -> Glossary | None:
    """The book's glossary (None: it has none, or it is wrong); every problem with it, and a
    language without its glossary page, goes to ``report``."""
    try:
        glossary = notebooks.book_glossary(settings, data=lambda text: yaml_data(text, settings.cache_dir / "glossary"))
    except GlossaryError as exc:
        for problem in exc.problems:
            report(problem)
        return None
    for lang in settings.languages if glossary is not None else ():
        page = settings.pages(lang) / settings.glossary_page
        if not page.is_file():
            report(f"{settings.rel(page)}: missing: the glossary's page in this language "
                   "(a page holding [[kb:glossary]]; the plugin's `glossary_page` option names it)")
    return glossary


def yaml_data(text: str, folder: Path) -> object:
    """The glossary file's YAML data, kept in ``folder`` as JSON by the text's hash: libyaml builds
    Python objects slowly (1.5 s for 10,000 terms), JSON's reader 40 times faster. Kept only
    when the JSON reads back as the same data (no dates, no keys that are not strings)."""
    path = folder / f"{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    raw = glossary_data(text)
    try:
        data = json.dumps(raw, ensure_ascii=False)
    except (TypeError, ValueError):
        return raw
    if json.loads(data) == raw:
        with contextlib.suppress(OSError):
            page_cache.prune(folder)
            write_atomic(path, data.encode("utf-8"))
    return raw


def planned_notebooks(settings: BookSettings, book: dict[str, Entry], glossary: Glossary | None,
                      report=None) -> dict[Path, dict[str, Any]]:
    """Every chapter notebook the build makes, terms linked with ``glossary``, figures from the cache;
    none while the book's glossary is wrong (reported already: no notebook links terms with it).
    ``report`` hears what a notebook's render found wrong."""
    if not settings.notebooks or (settings.glossary is not None and glossary is None):
        return {}
    key = (settings, id(glossary), fingerprint(settings.docs_dir, settings.root / settings.snippets_dir),
           tuple((sid, id(e)) for sid, e in sorted(book.items())))
    if key not in _PLANNED:  # each language build of a site reads the same pages, captures and glossary
        drawing = figure_cache.drawing(settings.cache_dir, book, report=lambda name, lang: log.info(
            "kernelbook: drew figure %s (%s) for a notebook", name, lang))
        _PLANNED.clear()
        made = _made_for((settings, glossary, tuple((sid, id(e)) for sid, e in sorted(book.items()))))
        _PLANNED[key] = (glossary, dict(book), _kept_plan(settings, book, lambda report: notebooks.planned(
            settings, book, glossary=glossary, figure=drawing, report=report, made=made), report))
    return dict(_PLANNED[key][2])


def _made_for(context: tuple) -> dict[tuple, dict[str, Any]]:
    """The notebooks made in this process with the same settings, glossary (by value) and book (its entries are
    the same objects while its files are unchanged): an edit of one page under ``mkdocs serve`` makes one again."""
    if _MADE.get("context") != context:
        _MADE.clear()
        _MADE.update(context=context, made={})
    return _MADE["made"]


PLAN_FORMAT = 1


def plan_key(settings: BookSettings, book: dict[str, Entry]) -> str:
    """sha256 of everything the notebooks are made from: kernelbook's own code, the settings, the
    captures each page shows (every field of the book's entries) and every file of docs/ (pages,
    glossary) but the notebooks themselves, which are what is made."""
    digest = hashlib.sha256(json.dumps([PLAN_FORMAT, page_cache.stable(settings), page_cache.stable(book)],
                                       sort_keys=True, default=str).encode())
    digest.update(b"\0code\0" + _code_digest().encode())
    for path in sorted(p for p in settings.docs_dir.rglob("*") if p.is_file() and p.name != notebooks.NAME):
        digest.update(b"\0docs\0" + path.relative_to(settings.docs_dir).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _kept_plan(settings: BookSettings, book: dict[str, Entry], plan, report) -> dict[Path, dict[str, Any]]:
    """``plan(report)``, kept in the cache by :func:`plan_key`: a new process makes no unchanged notebook
    again. Kept only when nothing was reported (a plan with problems is made again, and reports again)."""
    if settings.cache_dir is None:
        return plan(report)
    folder = settings.cache_dir / "planned"
    path = folder / f"{plan_key(settings, book)}.json"
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(kept, dict) and all(isinstance(v, dict) for v in kept.values()):
            with contextlib.suppress(OSError):
                path.touch()
            return {settings.docs_dir / rel: nb for rel, nb in kept.items()}
    except (OSError, ValueError):
        pass
    heard: list[str] = []

    def hear(problem: str) -> None:
        heard.append(problem)
        if report is not None:
            report(problem)

    made = plan(hear)
    if not heard:
        data = json.dumps({p.relative_to(settings.docs_dir).as_posix(): nb for p, nb in made.items()}, ensure_ascii=False)
        if {settings.docs_dir / rel: nb for rel, nb in json.loads(data).items()} == made:
            with contextlib.suppress(OSError):
                write_atomic(path, data.encode("utf-8"))
                _keep_newest(folder, PLANS_KEPT)
    return made


PLANS_KEPT = 8  # a plan is about 1 MB, and a `mkdocs serve` session makes one per edit: the last few are kept


def _keep_newest(folder: Path, n: int) -> None:
    """Remove all but the ``n`` entries of ``folder`` used last (a hit touches its entry)."""
    entries = []
    for entry in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            entries.append((entry.stat().st_mtime_ns, entry))
    for _, old in sorted(entries, reverse=True)[n:]:
        with contextlib.suppress(OSError):
            old.unlink()


# The last plan, by what it is made of; the glossary and the captures are kept with it, so
# that no other object takes their ids (in the key) while it is kept.
_PLANNED: dict[tuple, tuple[object, dict, dict[Path, dict[str, Any]]]] = {}
_MADE: dict[str, Any] = {}  # "context": what the notebooks in "made" were made with


# The Japanese terminology sheet beside the glossary: read by tests/test_terminology.py, not by the build
TERMINOLOGY = "terminology.yml"


def without_data(files, settings: BookSettings):
    """MkDocs' files without the book's data files (the glossary's, the vendor specifications',
    the terminology sheet): they are the book's sources, not files of the site."""
    data = {path.resolve() for path in (settings.glossary, settings.docs_dir / gpu_specs.FILE, settings.docs_dir / TERMINOLOGY)
            if path is not None}
    for file in list(files):
        if file.abs_src_path and Path(file.abs_src_path).resolve() in data:
            files.remove(file)
    return files


def url(settings: BookSettings, lang: str, page: str) -> str:
    """Where a page (its URL, ``en/ch01/``) reaches its language's glossary page."""
    return relative(settings.url_prefix(lang) + page_url(settings.glossary_page), page)


def link(markdown: str, ctx: Context, settings: BookSettings, src_uri: str) -> str:
    """The page's Markdown with the first use of each term in each section linked; links to the
    glossary written by hand that name no term reported through ``ctx.error``."""
    glossary = ctx.glossary
    if glossary is None:
        return markdown
    rel = src_uri[len(ctx.lang) + 1:] if settings.language_folders and src_uri.startswith(f"{ctx.lang}/") else src_uri
    for written, anchor in term_links.unknown_terms(markdown, glossary, rel, settings.glossary_page):
        ctx.error(written, f"links to the glossary's {anchor!r}, a term {glossary.source} does not have")
    if rel == settings.glossary_page:
        return markdown
    chapter = PurePosixPath(rel).parent.name

    def linked() -> str:
        return term_links.link_terms(markdown, glossary, ctx.lang, chapter, term_links.page_link(ctx.glossary_url, ctx.lang))

    if settings.cache_dir is None:
        return linked()
    return _kept_links(settings.cache_dir / "linked", (_code_digest(), _glossary_digest(glossary), ctx.lang, chapter,
                                                        ctx.glossary_url, markdown), linked)


LINKS_FORMAT = 1


def _kept_links(folder: Path, parts: tuple[str, ...], link: Callable[[], str]) -> str:
    """``link()``, kept in ``folder`` by the hash of ``parts`` (what the linked text is made of): a new
    process links no unchanged page again (a glossary of 10,000 terms takes a while to match)."""
    digest = hashlib.sha256("\0".join((str(LINKS_FORMAT),) + parts).encode("utf-8", "surrogatepass")).hexdigest()
    return page_cache.kept_text(folder, digest, ".md", link)


@functools.lru_cache(maxsize=1)
def _code_digest() -> str:
    """sha256 of kernelbook's code (and its data files), read once per process: what makes notebooks and links terms."""
    import kernelbook

    digest = hashlib.sha256()
    code = Path(kernelbook.__file__).parent
    for path in sorted(p for p in code.rglob("*") if p.suffix in (".py", ".json") and "__pycache__" not in p.parts):
        digest.update(path.relative_to(code).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _glossary_digest(glossary: Glossary) -> str:
    """sha256 of everything the glossary holds (a frozen dataclass of strings: its repr says it all), once per glossary."""
    held = _GLOSSARY_DIGEST.get(id(glossary))
    if held is None or held[0] is not glossary:
        held = (glossary, hashlib.sha256(repr(glossary).encode("utf-8", "surrogatepass")).hexdigest())
        _GLOSSARY_DIGEST.clear()
        _GLOSSARY_DIGEST[id(glossary)] = held
    return held[1]


_GLOSSARY_DIGEST: dict[int, tuple[Glossary, str]] = {}  # the glossary kept with it: no other object takes its id meanwhile

