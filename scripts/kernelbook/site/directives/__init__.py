"""Page directives: ``[[kb:NAME ...]]`` in a page's Markdown, rendered from the captures. Pure.

Each directive is one small function registered by name (``registry.py``); this package
imports the modules that register them, then renders pages:

* ``run``: ``[[kb:run SNIPPET]]``, an executed example (code, output, kernels, provenance)
* ``environment``: ``[[kb:environment]]``, where every capture of the book ran
* ``services``: ``[[kb:figure NAME]]``, ``[[kb:notebook CHAPTER]]``, ``[[kb:sections]]``,
  ``[[kb:edition-changes]]``, drawn by the site (the plugin hands the functions in through the Context)
* ``claims``: the inline claims, one per kind in ``site/claims.py``
* ``data``: ``[[kb:data SNIPPET KEY LANG]]``, a string the snippet stored, as a code block
* ``predict``: ``[[kb:predict SNIPPET KIND ... OP VALUE]]`` and its indented question, an
  exercise whose answer (a claim) the run gives
* ``instructors``: ``[[kb:objectives]]`` and ``[[kb:device-checks]]``, read from every page
* ``glossary``: ``[[kb:term ID]]``, a link to a term's entry, and ``[[kb:glossary]]``, the glossary page

Each is registered with its notebook rendering too; ``notebook_render.render_notebook``
makes a page a chapter notebook's Markdown with them.

Code blocks show directives as written; anything left that looks like a directive is an
error naming the page and the text.
"""

from __future__ import annotations

import re

from ..page_text import FENCE
from . import claims, data, environment, glossary, instructors, predict, run, services  # noqa: F401 - each registers its directives
from .context import CELL, CodeCell, Context
from .notebook_render import render_notebook
from .registry import LEFTOVER, REGISTRY, Directive, Registry, block, inline
from .run import fence

__all__ = ["CELL", "REGISTRY", "CodeCell", "Context", "Directive", "Registry", "block", "fence", "inline", "render_notebook",
           "render_page"]


def render_page(markdown: str, ctx: Context, registry: Registry = REGISTRY) -> str:
    """The page with every directive outside code replaced by what it renders.

    What a directive renders is never read again for directives: captured output that
    prints ``[[kb:...]]`` is shown as written, not run (each rendering waits behind a
    placeholder until the whole page is done).
    """
    rendered: list[str] = []
    out, last = [], 0
    for code in FENCE.finditer(markdown):  # code blocks show directives as written
        out += [_render_prose(markdown[last:code.start()], ctx, registry, rendered), code.group(0)]
        last = code.end()
    page = "".join(out + [_render_prose(markdown[last:], ctx, registry, rendered)])
    return _PLACEHOLDER.sub(lambda m: rendered[int(m.group(1))], page)


# Python-Markdown keeps its own placeholders between STX and ETX too; these never reach
# it, since every one is put back before the page is handed on.
_PLACEHOLDER = re.compile("\x02kb(\\d+)\x03")


def _render_prose(markdown: str, ctx: Context, registry: Registry, rendered: list[str]) -> str:
    def keep(text: str) -> str:
        rendered.append(text)
        return f"\x02kb{len(rendered) - 1}\x03"

    def block_(match):
        d = registry.read_block(match)
        return keep(registry.blocks[d.name].render(d, ctx))

    def inline_(match):
        d = registry.read_inline(match)
        return keep(registry.inlines[d.name].render(d, ctx))

    markdown = registry.block_pattern().sub(block_, markdown)
    markdown = registry.inline_pattern().sub(inline_, markdown)
    for leftover in LEFTOVER.finditer(markdown):
        ctx.error(leftover.group(0), "not a directive kernelbook knows (block directives stand alone on their line)")
    return markdown
