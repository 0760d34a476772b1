"""The glossary in a build: read once and checked, kept out of the site, its terms linked on each page.

The plugin (``plugin.py``) calls these; the rules themselves are ``glossary.py`` (the data
file) and ``term_links.py`` (which words link where).
"""

from __future__ import annotations

import logging
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from ..files import fingerprint
from . import figure_cache, gpu_specs, notebooks, term_links
from .book import Entry
from .directives import Context
from .glossary import Glossary, GlossaryError  # noqa: F401 - Glossary: the type of a build's glossary
from .sections import page_url, relative
from .settings import BookSettings

log = logging.getLogger("mkdocs.plugins.kernelbook")


def read(settings: BookSettings, report: Callable[[str], None]) -> Glossary | None:
    """The book's glossary (None: it has none, or it is wrong); every problem with it, and a
    language without its glossary page, goes to ``report``."""
    try:
        glossary = notebooks.book_glossary(settings)
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
        _PLANNED[key] = (glossary, dict(book), notebooks.planned(settings, book, glossary=glossary, figure=drawing, report=report))
    return dict(_PLANNED[key][2])


# The last plan, by what it is made of; the glossary and the captures are kept with it, so
# that no other object takes their ids (in the key) while it is kept.
_PLANNED: dict[tuple, tuple[object, dict, dict[Path, dict[str, Any]]]] = {}


def without_data(files, settings: BookSettings):
    """MkDocs' files without the book's data files (the glossary's, the vendor specifications'):
    they are the plugin's, not files of the site."""
    data = {path.resolve() for path in (settings.glossary, settings.docs_dir / gpu_specs.FILE) if path is not None}
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
    return term_links.link_terms(markdown, glossary, ctx.lang, chapter, term_links.page_link(ctx.glossary_url, ctx.lang))

