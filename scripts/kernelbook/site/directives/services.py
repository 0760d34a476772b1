"""Directives the site draws: figures, notebook links, the section index.

What they need (the figure cache, the notebook files, every page's headings) belongs to
the site, so the plugin passes those functions in through the Context.
"""

from __future__ import annotations

import base64

from ..prose.escape import inert
from ..figures import standalone
from ..prose.labels import label
from ..prose.text import headings, title
from .context import Context
from .registry import Directive, block


def figure_notebook(d: Directive, ctx: Context) -> str:
    """The figure's wide drawing as an embedded SVG image, its caption, and a link to it on the page.

    A data URI in a Markdown image: Jupyter, nbconvert (mkdocs-jupyter) and GitHub show it.
    Colab shows no SVG image at all (googlecolab/colabtools#2092), and JupyterLab no SVG
    attachment (jupyterlab/jupyterlab#10464), so there the caption's link leads to the figure.
    """
    where = f"[[kb:figure {d.arg}]]"
    try:
        fig = ctx.drawing(d.arg, ctx.lang)
    except (KeyError, ValueError) as exc:
        return ctx.error(where, f"cannot draw it: {exc}")
    data = base64.b64encode(standalone(fig.svg).encode("utf-8")).decode("ascii")
    alt = inert(" ".join(fig.alt.split()))  # the alt text names the device a capture ran on: escape.py
    link = f' ([{label("nb_figure_link", ctx.lang)}]({ctx.url}#kb-figure-{d.arg}))' if ctx.url else ""
    return f"![{alt}](data:image/svg+xml;base64,{data})\n\n{inert(fig.caption)}{link}\n"  # no emphasis around words a capture supplies


@block("figure", notebook=figure_notebook)
def figure(d: Directive, ctx: Context) -> str:
    """``[[kb:figure NAME]]``: a picture drawn from the captures (see ``site/figures``)."""
    return ctx.figure(d.arg, ctx.lang)


def notebook_notebook(d: Directive, ctx: Context) -> str:
    return ""  # the notebook itself: nothing to link to


@block("notebook", notebook=notebook_notebook)
def notebook(d: Directive, ctx: Context) -> str:
    """``[[kb:notebook CHAPTER]]``: links to the chapter's notebook (view, download, Colab)."""
    return ctx.notebook(d.arg, ctx.lang)


def sections_notebook(d: Directive, ctx: Context) -> str:
    """Every page and its sections as a Markdown list, linked where the notebook's links lead."""
    out = []
    for page in ctx.pages(ctx.lang):
        out.append(f"- [{inert(title(page.text) or page.rel)}]({page.url})")
        out += [f"    - [{inert(h.text)}]({page.url}#{h.anchor})" for h in headings(page.text) if h.level <= 3 and h.anchor]
    return "\n".join(out) + "\n"


@block("sections", notebook=sections_notebook)
def sections(d: Directive, ctx: Context) -> str:
    """``[[kb:sections]]``: every page and section of this language with its stable URL."""
    return ctx.sections(ctx.lang)


def edition_changes_notebook(d: Directive, ctx: Context) -> str:
    return ""  # a page for instructors, never in a chapter's notebook


@block("edition-changes", notebook=edition_changes_notebook)
def edition_changes(d: Directive, ctx: Context) -> str:
    """``[[kb:edition-changes]]``: what changed since the previous edition, section by section and number by number."""
    return ctx.edition_changes(ctx.lang)


@block("edition-pdfs", notebook=edition_changes_notebook)
def edition_pdfs(d: Directive, ctx: Context) -> str:
    """``[[kb:edition-pdfs]]``: this edition's PDFs, one per language, linked (``kernelbook pdf``, printed by its build)."""
    return ctx.edition_pdfs(ctx.lang)
