"""Errors that reach the user as one line: what happened, where, what to do."""

from __future__ import annotations

import re
from pathlib import Path

# Characters that change how the text around them is shown, not what it says: C0/C1 controls (an escape sequence
# recolours a terminal), and Unicode's format characters (U+202E, the right-to-left override, reverses what follows;
# zero-width ones hide). Newline, tab and carriage return are left: output is made of lines.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u08e2\u180e"
                        "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
                        "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
                        "\U000e0001\U000e0020-\U000e007f]")


class KernelbookError(Exception):
    """A problem the user can fix; the CLI prints it as one line and exits 2."""


def shown(path: Path, root: Path) -> str:
    """``path`` as a message names it: relative to the book's folder when inside it."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def printable(line: str) -> str:
    """A line for a terminal: what a capture holds may include control characters (escape sequences), shown escaped."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in str(line))


def visible(text: str) -> str:
    """``text`` with every control and format character written as its escape (``\\x1b``, ``\\u202e``): shown, never obeyed.

    For what a capture says wherever it is shown (pages, notebooks, the terminal): its bytes came from elsewhere.
    """
    return _INVISIBLE.sub(lambda m: ascii(m[0])[1:-1], text)


def json_visible(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with those characters as JSON escapes (``\\u202e``): the same
    value to a parser, inert on a terminal. They only ever stand inside strings, where an escape means the character."""
    def escape(m: re.Match) -> str:
        data = m[0].encode("utf-16-be")
        return "".join(f"\\u{int.from_bytes(data[i:i + 2], 'big'):04x}" for i in range(0, len(data), 2))
    return _INVISIBLE.sub(escape, text)
