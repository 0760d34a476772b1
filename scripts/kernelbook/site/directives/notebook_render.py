"""A page's Markdown as a chapter notebook's: every directive by its notebook rendering. Pure.

Each directive was registered with two renderings (``registry.py``); here the notebook's
is used, and what it returns is never read again for directives. The prose around them
becomes Markdown a notebook shows (``notebook_prose.py``: admonitions, attribute lists,
absolute links), and a ``[[kb:run]]`` leaves a marker where its code cell goes
(``Context.code_cell``). Code shows directives as written; anything else left that looks like
a directive is an error, as on the page (``scan.py``).
"""

from __future__ import annotations

import re
from typing import Callable

from ..prose import japanese
from ..notebooks.markdown import jupyter_markdown
from .context import Context
from .registry import REGISTRY, Registry
from .scan import substitute

_KEPT = re.compile("\x02nb(\\d+)\x03")


def render_notebook(markdown: str, ctx: Context, registry: Registry = REGISTRY, *,
                    words: Callable[[str], str] = lambda text: text) -> str:
    """``markdown`` as a notebook's Markdown, with a marker (``context.CELL``) where each code cell goes.

    ``words`` runs over the prose once the directives are out of it (the glossary's term
    links: ``term_links.link_terms``), before it is made into a notebook's Markdown.
    """
    kept: list[str] = []

    def keep(text: str) -> str:
        kept.append(text)
        return f"\x02nb{len(kept) - 1}\x03"

    inline: dict[int, str] = {}  # what each inline directive inserts into its sentence

    def render(block: bool, d) -> str:
        marker = keep((registry.blocks if block else registry.inlines)[d.name].notebook(d, ctx))
        if not block:
            inline[len(kept) - 1] = kept[-1]
        return marker

    text = substitute(markdown, ctx, registry, render)
    if ctx.lang == "ja":  # as on the page: no space between an inserted value and the Japanese beside it
        text = japanese.join(text, [inline.get(i, "") for i in range(len(kept))], _KEPT)
    text = jupyter_markdown(words(text), ctx.url)
    return _KEPT.sub(lambda m: kept[int(m.group(1))], text)

