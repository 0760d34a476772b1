"""A chapter's learning objectives: front matter ``objectives:``, shown under its title. Pure.

    ---
    objectives:
      - Count the kernels a line of eager PyTorch launches.
    ---

They appear right after the chapter's ``#`` title under a label that is not a heading
("In this chapter you will" / 「この章の目標」), the twins must list as many, and the
instructors' page lists every chapter's (``[[kb:objectives]]``).
"""

from __future__ import annotations

import re

from .labels import label
from .markdown_code import in_fences
from .text import front_matter


def read(meta: dict) -> list[str]:
    """The ``objectives`` of a page's front matter; ValueError saying what is wrong with them."""
    items = meta.get("objectives")
    if items is None:
        return []
    if isinstance(items, list) and any(isinstance(i, dict) for i in items):  # YAML reads "- a: b" as a mapping
        raise ValueError("front matter `objectives:` has an item YAML reads as a mapping: put an objective "
                         'that holds ": " in double quotes (- "Read a kernel: its programs, ...")')
    if not isinstance(items, list) or not items or not all(isinstance(i, str) and i.strip() for i in items):
        raise ValueError("front matter `objectives:` must be a list of sentences, one `- ...` line each")
    return [i.strip() for i in items]


def of_page(markdown: str) -> list[str]:
    """The objectives of a page as written (front matter included)."""
    return read(front_matter(markdown)[0])


def render(items: list[str], lang: str) -> str:
    """The block shown under the title: a label, then the objectives as a list."""
    if not items:
        return ""
    lines = "\n".join(f"- {item}" for item in items)
    return f'<div class="kb-objectives" markdown>\n<p class="kb-objectives-label">{label("objectives", lang)}</p>\n\n{lines}\n\n</div>\n'


_TITLE = re.compile(r"^#[ \t]+.+$", re.MULTILINE)


def after_title(markdown: str, block: str) -> str:
    """``markdown`` with ``block`` right after its ``#`` title (outside code), or first if it has none."""
    if not block:
        return markdown
    in_code = in_fences(markdown)
    for m in _TITLE.finditer(markdown):
        if not in_code(m.start()):
            return markdown[: m.end()] + "\n\n" + block + markdown[m.end():]
    return block + "\n" + markdown
