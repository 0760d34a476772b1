"""A page's Markdown as a chapter notebook's: every directive by its notebook rendering. Pure.

Each directive was registered with two renderings (``registry.py``); here the notebook's
is used, and what it returns is never read again for directives. The prose around them
becomes Markdown a notebook shows (``notebook_prose.py``: admonitions, attribute lists,
absolute links), and a ``[[kb:run]]`` leaves a marker where its code cell goes
(``Context.code_cell``). Anything left that looks like a directive is an error, as on the page.
"""

from __future__ import annotations

import re
from typing import Callable

from ..notebook_prose import jupyter_markdown
from ..page_text import FENCE
from .context import Context
from .registry import LEFTOVER, REGISTRY, Registry

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

    def prose(text: str) -> str:
        text = registry.block_pattern().sub(lambda m: keep(_render(registry.blocks, registry.read_block(m), ctx)), text)
        text = registry.inline_pattern().sub(lambda m: keep(_render(registry.inlines, registry.read_inline(m), ctx)), text)
        for leftover in LEFTOVER.finditer(text):
            ctx.error(leftover.group(0), "not a directive kernelbook knows (block directives stand alone on their line)")
        return text

    out, last = [], 0
    for code in FENCE.finditer(markdown):  # code blocks show directives as written
        out += [prose(markdown[last:code.start()]), code.group(0)]
        last = code.end()
    text = "".join(out + [prose(markdown[last:])])
    text = jupyter_markdown(words(text), ctx.url)
    return _KEPT.sub(lambda m: kept[int(m.group(1))], text)


def _render(table, d, ctx: Context) -> str:
    return table[d.name].notebook(d, ctx)
