"""Directives that reached what a reader sees as written: a built page, a notebook. Pure.

The renders report every directive they could not render (``directives/scan.py``); these
checks look at what was built instead, whatever put the text there (front matter, a
glossary entry, a label, a plugin): anything that looks like a directive (``[[kb:``, any
case, closed or not) outside code is a build error. Code shows directives as written:
``<pre>`` and ``<code>`` in HTML, code cells and fenced, indented and inline code in a
notebook's Markdown (``markdown_code.py``).

What a capture holds is shown as its text, never taken for a directive: a run may print
``[[kb:...]]``, and a device or kernel name could hold it. Renderers write a capture's
``[`` as ``&#91;`` or as ``[`` (nbconvert, material's search index), so the directive-like
texts the captures hold (``quoted``) are set aside by their text. The search index needs no
check of its own: material builds it from these pages' HTML, which this check reads.
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .language import unmark
from .markdown_code import LOOKS_LIKE, outside_code

# Elements whose text is code or never shown; and the build's own error marker, which the
# failed directive's error already names (written with &#91; too, but kept out all the same).
_NOT_PROSE = re.compile(r"<(pre|code|script|style|textarea)\b[^>]*>.*?</\1\s*>|<span class=\"kb-error\">[^<]*</span>",
                        re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def in_html(text: str, quoted: frozenset[str] = frozenset()) -> list[str]:
    """The directive-like texts written in ``text`` (HTML) outside code and tags; those a capture holds (``quoted``) aside."""
    if "[[" not in text:  # taking out code and tags puts spaces, never a "[", between the two: nothing to find
        return []
    prose = _TAG.sub(" ", _NOT_PROSE.sub(" ", unmark(text)))  # a phrase marked lang="en" is read as written
    found = [_excerpt(prose, m.start()) for m in LOOKS_LIKE.finditer(prose)]
    return [one for one in found if not any(one.startswith(q) for q in quoted)]


def quoted(captures: Iterable[object]) -> frozenset[str]:
    """The directive-like texts the captures hold, as a page may show them (as is, or HTML-escaped)."""
    found: set[str] = set()
    for capture in captures:
        for text in _strings(capture):
            for m in LOOKS_LIKE.finditer(text):
                one = _excerpt(text, m.start())
                found |= {one, html.escape(one, quote=False), html.escape(one)}
    return frozenset(found)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif dataclasses.is_dataclass(value):
        for field in dataclasses.fields(value):
            yield from _strings(getattr(value, field.name))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _strings(item)


def in_markdown(text: str) -> list[str]:
    """The directive-like texts in Markdown outside fenced, indented and inline code."""
    return [_excerpt(text, m.start()) for m in outside_code(text)]


def in_notebook(nb: Mapping[str, Any]) -> list[str]:
    """``"cell ID: TEXT"`` for each directive-like text in a notebook's Markdown cells (code cells are code)."""
    found = []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") == "markdown":
            source = "".join(cell.get("source", []))
            found += [f"cell {cell.get('id', i)}: {text}" for text in in_markdown(source)]
    return found


def _excerpt(text: str, start: int) -> str:
    """From the ``[[`` to its ``]]``, or at most 80 characters of its line."""
    line_end = text.find("\n", start)
    end = min(start + 80, len(text) if line_end < 0 else line_end)
    close = text.find("]]", start, end)
    return text[start: close + 2 if close >= 0 else end].strip()
