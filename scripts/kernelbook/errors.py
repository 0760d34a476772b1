"""Errors that reach the user as one line: what happened, where, what to do."""

from __future__ import annotations

from pathlib import Path


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
