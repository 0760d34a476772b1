"""One page's Markdown rendered from the captures, whatever builds the site. No mkdocs.

The directives, the glossary's term links and the learning objectives, for one page: the
kernelbook plugin calls :func:`render` from ``on_page_markdown`` and ``kernelbook render``
(``plain_tree.py``) calls it for every page of the plain tree, so a claim is checked and a
problem fails the same way whichever generator builds the pages. The two differ only in
the services they hand in: how a figure is shown (inline SVG, or an SVG file) and where a
chapter's notebook page is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..editions import history as editions
from ..glossary import build as glossary_site
from ..prose import objectives, predictions
from ..book import Entry
from ..directives import Context, render_page
from ..glossary.terms import Glossary
from ..prose.sections import page_url, read_pages, relative, section_index
from ..settings import BookSettings


@dataclass(frozen=True)
class PageSource:
    """The page being rendered, as plain values."""

    lang: str
    src_uri: str  # docs-relative, as messages name it: "en/ch01/index.md"
    url: str  # its site path: "en/ch01/" (the default language has no prefix)
    meta: Mapping  # its front matter
    first_line: int = 0  # lines of its file before the Markdown (front matter), for messages
    link_uri: str = ""  # the path the glossary's rules see (mkdocs-static-i18n's language-free one); "": src_uri


@dataclass(frozen=True)
class BookState:
    """What one build read once: the same for every page."""

    settings: BookSettings
    book: Mapping[str, Entry]
    glossary: Glossary | None
    edition: str | None  # the edition published (mike); None for a local build


Figure = Callable[[str, str, Context], str]  # (name, lang, ctx) -> the figure's HTML
Notebook = Callable[[str, str, Context], str]  # (chapter, lang, ctx) -> the [[kb:notebook]] block


@dataclass(frozen=True)
class Rendered:
    markdown: str
    errors: list[str]  # each fails the build
    unchecked: list[str]  # scoped claims no fresh capture of their device checks (not failures)


def render(markdown: str, page: PageSource, state: BookState, *, figure: Figure, notebook: Notebook,
           report: Callable[[str], None]) -> Rendered:
    """``markdown`` (the page without its front matter) with every directive rendered and checked."""
    settings = state.settings

    def pages(lang: str):
        """Every page of ``lang``, linked relatively from this page (it works wherever the site is served)."""
        return read_pages(settings.pages(lang), relative(settings.url_prefix(lang), page.url))

    ctx = Context(
        lang=page.lang,
        page=page.src_uri,
        book=state.book,
        figure=lambda name, lang: figure(name, lang, ctx),
        notebook=lambda chapter, lang: notebook(chapter, lang, ctx),
        sections=lambda lang: section_index(pages(lang), lang, editions.published_base(settings, state.edition, lang)),
        pages=pages,
        glossary=state.glossary, glossary_url=glossary_site.url(settings, page.lang, page.url),
        gpu_door=relative(settings.url_prefix(page.lang) + page_url(predictions.DOOR_PAGE), page.url) + "#" + predictions.DOOR_ANCHOR,
        recorded_dir=str(settings.root / settings.snippets_dir / "recorded"),
        kit=predictions.kit_links(settings.repository, settings.branch, page.lang),
        edition_changes=lambda lang: editions.page(settings, state.edition, lang, pages(lang), report),
        edition_pdfs=lambda lang: editions.pdfs(settings, state.edition, lang),
        first_line=page.first_line,
    )
    markdown = glossary_site.link(markdown, ctx, settings, page.link_uri or page.src_uri)
    rendered = render_page(markdown, ctx)
    try:
        rendered = objectives.after_title(rendered, objectives.render(objectives.read(page.meta), page.lang))
    except ValueError as exc:
        ctx.error(page.src_uri, str(exc))
    return Rendered(rendered, list(ctx.errors), list(ctx.unchecked))
