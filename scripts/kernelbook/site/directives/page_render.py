"""A page's Markdown with every directive by its page rendering. Pure.

What a directive renders is never read again for directives: captured output that prints
``[[kb:...]]`` is shown as written, not run (each rendering waits behind a placeholder
until the whole page is done). A directive with a body (``[[kb:predict]]``) renders the
directives in it through ``render_page`` too.
"""

from __future__ import annotations

import re

from ..prose import japanese
from .context import Context
from .registry import REGISTRY, Registry
from .scan import substitute

# Python-Markdown keeps its own placeholders between STX and ETX too; these never reach
# it, since every one is put back before the page is handed on.
_PLACEHOLDER = re.compile("\x02kb(\\d+)\x03")


def render_page(markdown: str, ctx: Context, registry: Registry = REGISTRY) -> str:
    """The page with every directive outside code replaced by what it renders."""
    rendered: list[str] = []
    inline: list[str] = []  # what each inline directive inserts into its sentence ("" for a block)

    def keep(block: bool, d) -> str:
        table = registry.blocks if block else registry.inlines
        rendered.append(table[d.name].render(d, ctx))
        inline.append("" if block else rendered[-1])
        return f"\x02kb{len(rendered) - 1}\x03"

    page = substitute(markdown, ctx, registry, keep)
    if ctx.lang == "ja":  # no space between an inserted value and the Japanese beside it
        page = japanese.join(page, inline, _PLACEHOLDER)
    return _PLACEHOLDER.sub(lambda m: rendered[int(m.group(1))], page)
