"""What a page's Markdown holds, read the same way everywhere: fenced code, title, headings.

The renderer, the twin check, the instructors' index and the notebooks all read pages;
they share these rules so that, say, a ``## heading`` inside a code block is never a
section for one of them and not for another. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A fenced code block, indented or not: its text is shown as written.
FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[`~]*[ \t]*$", re.MULTILINE | re.DOTALL)
TITLE = re.compile(r"^#[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
HEADING = re.compile(r"^(#{2,6})[ \t]+(.+?)[ \t]*$", re.MULTILINE)
ANCHOR = re.compile(r"[ \t]*\{[ \t]*#([\w-]+)[^}]*\}[ \t]*$")  # `## Fusion { #fusion }`


@dataclass(frozen=True)
class Heading:
    level: int  # 2 for ##, 3 for ###, ...
    text: str  # without its anchor
    anchor: str | None  # the explicit `{ #id }`, if any
    line: str  # as written
    offset: int  # where it starts in the page (code blanked, so offsets are the page's)


def strip_code(markdown: str) -> str:
    """The page with each fenced block blanked out, keeping every other line where it was."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), markdown)


def title(markdown: str) -> str | None:
    """The page's ``#`` title, without an anchor."""
    found = TITLE.search(strip_code(markdown))
    return ANCHOR.sub("", found.group(1)).strip() if found else None


def headings(markdown: str) -> list[Heading]:
    """Every ``##``…``######`` heading outside code, in order."""
    found = []
    for m in HEADING.finditer(strip_code(markdown)):
        anchor = ANCHOR.search(m.group(2))
        found.append(Heading(len(m.group(1)), ANCHOR.sub("", m.group(2)).strip(),
                             anchor.group(1) if anchor else None, m.group(0), m.start()))
    return found


@dataclass(frozen=True)
class PageText:
    """One page of a language, as written: where it lives, how links reach it, its Markdown."""

    rel: str  # relative to its language's folder: "ch01/index.md"
    url: str  # its address as the linking page reaches it: "../ch01/" on the site, or "https://…/en/ch01/"
    text: str  # the whole file, front matter included


def front_matter(markdown: str) -> tuple[dict, str]:
    """The page's YAML front matter (as MkDocs reads it) and the Markdown after it."""
    from mkdocs.utils.meta import get_data

    body, meta = get_data(markdown)
    return (meta if isinstance(meta, dict) else {}), body


def lines_before(source: str) -> int:
    """How many lines of a page's file ``source`` come before its Markdown (its front matter), so
    that messages name the file's lines; 0 without front matter."""
    _, body = front_matter(source)
    return source[: len(source) - len(body)].count("\n") if body and source.endswith(body) else 0
