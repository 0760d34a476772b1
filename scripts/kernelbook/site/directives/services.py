"""Directives the site draws: figures, notebook links, the section index.

What they need (the figure cache, the notebook files, every page's headings) belongs to
the site, so the plugin passes those functions in through the Context.
"""

from __future__ import annotations

from .context import Context
from .registry import Directive, block


@block("figure")
def figure(d: Directive, ctx: Context) -> str:
    """``[[kb:figure NAME]]``: a picture drawn from the captures (see ``site/figures``)."""
    return ctx.figure(d.arg, ctx.lang)


@block("notebook")
def notebook(d: Directive, ctx: Context) -> str:
    """``[[kb:notebook CHAPTER]]``: links to the chapter's notebook (view, download, Colab)."""
    return ctx.notebook(d.arg, ctx.lang)


@block("sections")
def sections(d: Directive, ctx: Context) -> str:
    """``[[kb:sections]]``: every page and section of this language with its stable URL."""
    return ctx.sections(ctx.lang)
