"""Where Markdown shows text as written: fenced code, indented code, inline code. Pure.

Directives there are shown, never run; everything else that looks like a directive
(``[[kb:``, any case, closed or not) must have been rendered. The rules follow what
Python-Markdown and Jupyter do closely enough for a book's pages:

* a fence (```` ``` ```` or ``~~~``, indented or not) up to its closing fence;
* an indented block: lines indented four spaces after a blank line, unless they continue
  a container (a list item, an admonition or tab, a block directive with a body), whose
  own body is read again, dedented, by the same rules;
* an inline code span: a run of backticks up to the next run of as many, within a paragraph.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from itertools import accumulate

from .text import FENCE

# What a reader must never see outside code: the start of a directive, in any case.
LOOKS_LIKE = re.compile(r"\[\[\s*kb\s*:", re.IGNORECASE)
_SPAN = re.compile(r"(?<![`\\])(?P<ticks>`+)(?!`)(?:(?!\n[ \t]*\n).)*?(?<!`)(?P=ticks)(?!`)", re.DOTALL)
_CONTAINER = re.compile(r"^(?:[-*+][ \t]|\d+[.)][ \t]|!!!|\?\?\?|===|\[\[kb:[a-z]|\[\^[^\]]+\]:)", re.IGNORECASE)

Line = tuple[int, str]  # (offset in the page, text without its newline)


def fences(markdown: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every fenced block of ``markdown``, in order."""
    return [(m.start(), m.end()) for m in FENCE.finditer(markdown)]


def in_fences(markdown: str) -> Callable[[int], bool]:
    """Whether an offset of ``markdown`` is inside a fenced block (:func:`within` its :func:`fences`)."""
    return within(fences(markdown))


def code_spans(markdown: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every stretch of ``markdown`` shown as code, in order."""
    fenced = fences(markdown)
    in_fence = within(fenced)
    lines, offset = [], 0
    for text in markdown.split("\n"):
        if not in_fence(offset):
            lines.append((offset, text))
        offset += len(text) + 1
    blocks = fenced + _indented(lines)
    in_block = within(blocks)
    spans = [(m.start(), m.end()) for m in _SPAN.finditer(markdown) if not in_block(m.start())]
    return sorted(blocks + spans)


def within(spans: Iterable[tuple[int, int]]) -> Callable[[int], bool]:
    """Whether an offset is inside one of ``spans`` (``(start, end)``, end excluded; in any order,
    overlapping or not), asked of many offsets: a search among the spans by their start, not a pass
    over all of them (a page has hundreds of code spans and of directives)."""
    ordered = sorted(spans)
    starts = [a for a, _ in ordered]
    reach = list(accumulate((b for _, b in ordered), max))  # the furthest end of the spans starting so far

    def test(offset: int) -> bool:
        i = bisect_right(starts, offset) - 1
        return i >= 0 and reach[i] > offset
    return test


def outside_code(markdown: str, pattern: re.Pattern[str] = LOOKS_LIKE) -> list[re.Match[str]]:
    """The matches of ``pattern`` that are not in code."""
    in_code = within(code_spans(markdown))
    return [m for m in pattern.finditer(markdown) if not in_code(m.start())]


def _indented(lines: list[Line]) -> list[tuple[int, int]]:
    """Indented code blocks among ``lines`` (fences removed), containers' bodies read again dedented."""
    found: list[tuple[int, int]] = []
    i, blank_before, container = 0, True, False
    while i < len(lines):
        offset, text = lines[i]
        if not text.strip():
            blank_before, i = True, i + 1
            continue
        if _indent(text) < 4:
            container = bool(_CONTAINER.match(text.lstrip()))
            blank_before, i = False, i + 1
            continue
        # an indented run: code after a blank line outside a container, else the container's body
        run = []
        while i < len(lines) and (not lines[i][1].strip() or _indent(lines[i][1]) >= 4):
            run.append(lines[i])
            i += 1
        while run and not run[-1][1].strip():
            run.pop()
        if blank_before and not container:
            found.append((run[0][0], run[-1][0] + len(run[-1][1])))
        elif container:
            found += _indented([(o + _cut(t), t[_cut(t):]) for o, t in run])
        blank_before = True if i < len(lines) and not lines[i - 1][1].strip() else False
    return found


def _indent(text: str) -> int:
    return len(text.expandtabs(4)) - len(text.expandtabs(4).lstrip(" "))


def _cut(text: str) -> int:
    """How many characters of a body line its container's indent takes (four spaces, or a tab)."""
    if text.startswith("\t"):
        return 1
    return min(4, len(text) - len(text.lstrip(" ")))
