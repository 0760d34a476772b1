"""Finding a page's directives for a render: left to right, outside code, each with its line. Pure.

Both renders (the page's and the notebook's) read a page the same way: every registered
directive outside code (``markdown_code.py``) is replaced by what ``render`` returns for it;
what a directive renders is never read again. Whatever else looks like a directive
(``[[kb:``, any case, closed or not, a block inside a sentence) is an error naming the page
and the line: it would reach the reader as written, and an unclosed one must not swallow
the paragraphs after it.
"""

from __future__ import annotations

import re
from typing import Callable

from ..prose.markdown_code import LOOKS_LIKE, code_spans, within
from .context import Context
from .registry import Directive, Registry

Render = Callable[[bool, Directive], str]  # (is a block, directive) -> its rendering


def substitute(markdown: str, ctx: Context, registry: Registry, render: Render) -> str:
    """``markdown`` with each directive outside code replaced by ``render``'s text; leftovers reported."""
    in_code = within(code_spans(markdown))
    done: list[tuple[int, int]] = []

    def line(offset: int) -> int:
        return ctx.first_line + markdown.count("\n", 0, offset) + 1

    def one(m: re.Match[str]) -> str:
        if in_code(m.start()):
            return m.group(0)
        done.append((m.start(), m.end()))
        if m.group("block") is not None:
            return render(True, registry.read_block(m, line(m.start())))
        return render(False, registry.read_inline(m, line(m.start())))

    out = registry.pattern().sub(one, markdown)
    in_done = within(done)
    for m in LOOKS_LIKE.finditer(markdown):
        if not in_code(m.start()) and not in_done(m.start()):
            ctx.error(_as_written(markdown, m.start()), _why(markdown, m.start()), line=line(m.start()))
    return out


def _as_written(markdown: str, start: int) -> str:
    """The directive-like text from its ``[[`` to its ``]]``, or to the end of its line or the next ``[[``."""
    end = min((i for i in (markdown.find("\n", start), markdown.find("[[", start + 2)) if i >= 0), default=len(markdown))
    close = markdown.find("]]", start, end)
    return markdown[start: close + 2 if close >= 0 else end].strip()


def _why(markdown: str, start: int) -> str:
    text = _as_written(markdown, start)
    if not text.endswith("]]"):
        return "a directive left unclosed: end it with ]] on the same line (or show it as `code`)"
    return "not a directive kernelbook knows (block directives stand alone on their line)"
