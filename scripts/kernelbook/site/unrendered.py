"""Directives that reached what a reader sees as written: a built page, a notebook, a search index. Pure.

The renders report every directive they could not render (``directives/scan.py``); these
checks look at what was built instead, whatever put the text there (a glossary entry, a
label, a plugin, a directive's own output): anything that looks like a directive
(``[[kb:``, any case, closed or not) outside code is a build error. Code shows directives
as written: ``<pre>`` and ``<code>`` in HTML (material's search index keeps both), code
cells and fenced, indented and inline code in a notebook's Markdown (``markdown_code.py``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .markdown_code import LOOKS_LIKE, outside_code

# Elements whose text is code or never shown; and the build's own error marker, which the
# failed directive's error already names.
_NOT_PROSE = re.compile(r"<(pre|code|script|style|textarea)\b[^>]*>.*?</\1\s*>|<span class=\"kb-error\">[^<]*</span>",
                        re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def in_html(text: str) -> list[str]:
    """The directive-like texts a reader sees in ``text`` (HTML) outside code, as they read."""
    prose = html.unescape(_TAG.sub(" ", _NOT_PROSE.sub(" ", text)))
    return [_excerpt(prose, m.start()) for m in LOOKS_LIKE.finditer(prose)]


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


def in_search_index(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    """``"LOCATION: TEXT"`` for each directive-like text in a search index's titles and texts (HTML)."""
    return [f"{entry.get('location', '?')}: {text}" for entry in entries
            for field in ("title", "text") for text in in_html(str(entry.get(field, "")))]


def _excerpt(text: str, start: int) -> str:
    """From the ``[[`` to its ``]]``, or at most 80 characters of its line."""
    line_end = text.find("\n", start)
    end = min(start + 80, len(text) if line_end < 0 else line_end)
    close = text.find("]]", start, end)
    return text[start: close + 2 if close >= 0 else end].strip()
