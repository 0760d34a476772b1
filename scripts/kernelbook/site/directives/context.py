"""What a directive needs besides its own text: the page, its language, the book, the site's services."""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from ..book import Entry
from ..prose.text import PageText

if TYPE_CHECKING:
    from ..figures import Figure
    from ..glossary.terms import Glossary


def _nothing(*args: str) -> str:
    return ""


def _no_drawing(name: str, lang: str) -> "Figure":
    raise ValueError("figures are drawn for a notebook only: this render has no drawing service")


@dataclass(frozen=True)
class CodeCell:
    """A notebook's code cell: a snippet's source, as its file holds it, and the output its capture shows."""

    snippet: str  # "ch01/first_kernel"
    source: str
    stdout: str  # "" when there is no capture to show


CELL = "\x02cell{}\x03"  # where a code cell goes in a notebook's Markdown: never in a page, never typed


@dataclass(frozen=True)
class Context:
    """One page render. The services are plain functions, so directives stay free of mkdocs."""

    lang: str
    page: str  # docs-relative path, for messages
    book: Mapping[str, Entry]
    figure: Callable[[str, str], str] = _nothing  # (name, lang) -> HTML
    notebook: Callable[[str, str], str] = _nothing  # (chapter, lang) -> Markdown
    sections: Callable[[str], str] = _nothing  # lang -> the section index
    pages: Callable[[str], list[PageText]] = lambda lang: []  # lang -> every page of that language, read
    url: str = ""  # in a notebook: the page's published URL, which its links are made absolute against
    drawing: Callable[[str, str], "Figure"] = _no_drawing  # in a notebook: (name, lang) -> the drawn figure
    glossary: "Glossary | None" = None
    glossary_url: str = ""  # where this page reaches the glossary page ("../glossary/"; absolute in a notebook)
    gpu_door: str = ""  # where this page reaches how to capture on a GPU and contribute it (the instructors' page)
    recorded_dir: str = ""  # the folder of traces recorded elsewhere (snippets/recorded): [[kb:recorded]]
    kit: tuple[str, str] = ("", "")  # the capture kit for this language: (its file on GitHub, its Colab link); "" without a repository
    edition_changes: Callable[[str], str] = _nothing  # lang -> what changed since the previous edition (editions.py)
    edition_pdfs: Callable[[str], str] = _nothing  # lang -> this edition's PDFs, linked (editions.py)
    errors: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # scoped claims no fresh capture of their device checks
    said: set[str] = field(default_factory=set)  # notices already given in full on this page
    counts: dict[str, int] = field(default_factory=dict)  # numbering on this page (questions)
    first_line: int = 0  # lines of the page's file before the Markdown rendered (front matter; a body's place)

    def next(self, what: str) -> int:
        """1, 2, 3, ... for each ``what`` on this page."""
        self.counts[what] = self.counts.get(what, 0) + 1
        return self.counts[what]

    cells: list[CodeCell] = field(default_factory=list)  # a notebook's code cells, in the order rendered

    def code_cell(self, cell: CodeCell) -> str:
        """A notebook render's code cell: kept aside, with a marker where it goes in the notebook."""
        self.cells.append(cell)
        return "\n\n" + CELL.format(len(self.cells) - 1) + "\n\n"

    def error(self, where: str, message: str, *, line: int = 0) -> str:
        """Record a problem (the build fails, naming page, directive and message, and the line when
        given: ``en/ch01/index.md:12: [[kb:...]]: ...``); an inline marker for the page."""
        self.errors.append(f"{self.page}{f':{line}' if line else ''}: {where}: {message}")
        return f'<span class="kb-error">{html.escape(where).replace("[", "&#91;")}</span>'

    def entry(self, snippet: str, where: str) -> Entry | None:
        """The snippet's book entry if it has a capture fit to show; its problems reported."""
        found = self.book.get(snippet)
        if found is None:
            self.error(where, f"no snippet {snippet!r} (expected snippets/{snippet}.py)")
            return None
        for problem in found.problems:
            self.error(where, problem)
        return found if found.shown else None
