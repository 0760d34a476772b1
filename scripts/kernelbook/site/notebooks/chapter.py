"""A chapter as a Jupyter notebook: generated from its page and snippets, never edited by hand.

``notebook()`` is pure: the chapter's Markdown, its language and the book (which capture
each snippet shows) go in, an nbformat 4.5 dict comes out; with the glossary, it links
terms as the page does. It carries the chapter as the page tells it:

* a title cell (the chapter's H1, where the outputs were captured, a link to the page,
  the licence), then the chapter's objectives;
* the prose as Markdown cells, one per section (a ``##``…``######`` heading starts a cell,
  whose id is ``h-<the section's anchor>``), in a form Jupyter, Colab and GitHub show:
  admonitions as quotations, collapsible ones as ``<details>``, links absolute
  (``notebook_prose.py``), the first use of each glossary term in a section linked to
  its entry with its definition as the link's title (``term_links.py``);
* every directive by its notebook rendering (``directives/registry.py``: each directive
  registers one beside its page rendering): claims as their values (a scoped claim
  without its device's capture as the page's placeholder), ``[[kb:data]]`` as code,
  questions with the answer in a closed ``<details>``, figures as embedded SVG images;
* a code cell per ``[[kb:run SNIPPET]]``: its source is the snippet file, its output the
  stdout of the capture the page shows; the kernels it launched and where it ran follow
  in Markdown. Nothing is executed to make it.

``generate_all()`` writes ``docs/<lang>/<chapter>/notebook.ipynb`` for every chapter page
with ``[[kb:run`` directives, only where the file's content would change: a build
rewrites a notebook exactly when its page (prose included), a snippet, a capture or the
glossary changed. The JSON is deterministic (sorted keys, no timestamps, cell ids derived
from the content).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

from ...common.records import Capture, write_atomic
from ...common.snippets import local_imports, read_source
from ..prose import objectives, unrendered
from ..prose.markdown_code import in_fences
from ..book import Entry, load_book
from ..directives import Context, render_notebook
from ..prose.escape import inert
from ..caches.figures import Draw, drawing, shown_drawing
from ..glossary.terms import Glossary, load as load_glossary
from ..prose.labels import label
from .markdown import absolute, bold_inside_links
from ..prose.text import front_matter, headings, lines_before, strip_code, title
from ..prose.sections import page_url, relative
from ..settings import BookSettings
from ..glossary.links import link_terms, notebook_link

NAME = "notebook.ipynb"  # beside the chapter's index.md, in each language

TRITON_SWITCH = "TRITON_INTERPRET"  # a snippet that sets it runs its Triton kernels interpreted where there is no GPU
_RUN = re.compile(r"^\[\[kb:run[ \t]+([^\]\s]+)[ \t]*\]\][ \t]*$", re.MULTILINE)
_TITLE_LINE = re.compile(r"^#[ \t]+[^\n]*\n?", re.MULTILINE)
_CUT = re.compile(r"^(?:#{1,6}[ \t][^\n]*|\x02cell(?P<cell>\d+)\x03)$", re.MULTILINE)  # a heading, or where a code cell goes (CELL)


# ---------------------------------------------------------------- reading the chapter


def outline(chapter_markdown: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The H1 and, in order, ``("heading", "## text", anchor)`` and ``("run", snippet_id, "")``.

    Only ``##`` and ``###`` headings; lines inside fenced code blocks are neither headings
    nor directives.
    """
    found = [(h.offset, ("heading", f"{'#' * h.level} {h.text}", h.anchor or ""))
             for h in headings(chapter_markdown) if h.level <= 3]
    found += [(m.start(), ("run", m.group(1), "")) for m in _RUN.finditer(strip_code(chapter_markdown))]
    return title(chapter_markdown) or "", [item for _, item in sorted(found)]


# ---------------------------------------------------------------- the notebook


def notebook(chapter_markdown: str, lang: str, chapter: str, book: dict[str, Entry], *, site_url: str = "",
             prefix: str | None = None, glossary: Glossary | None = None, glossary_page: str = "glossary.md",
             figure: Draw | None = None, source: str | None = None, recorded_dir: str = "") -> dict[str, Any]:
    """The chapter as an nbformat 4.5 notebook (a plain dict; see the module docstring).

    ``site_url`` makes every link absolute (it must work from Colab or GitHub too);
    without it links are relative to the rendered notebook page, one folder below the
    chapter's. ``prefix`` is where the language's pages sit below ``site_url`` ("" or
    "en/"; by default "" for Japanese, the book's default language, and "<lang>/"
    otherwise). ``glossary``: link terms to ``glossary_page`` (relative to the language's
    folder). ``figure`` draws a figure (by default straight from the shown captures; the
    site passes its cache). ``source`` names the page in messages. ``recorded_dir``: the
    traces recorded elsewhere that ``[[kb:recorded]]`` reads (``snippets/recorded``).
    """
    return render(chapter_markdown, lang, chapter, book, site_url=site_url, prefix=prefix, glossary=glossary,
                  glossary_page=glossary_page, figure=figure, source=source, recorded_dir=recorded_dir)[0]


def render(chapter_markdown: str, lang: str, chapter: str, book: dict[str, Entry], *, site_url: str = "",
           prefix: str | None = None, glossary: Glossary | None = None, glossary_page: str = "glossary.md",
           figure: Draw | None = None, source: str | None = None, recorded_dir: str = "") -> tuple[dict[str, Any], list[str]]:
    """``notebook()``, and the problems its directives reported (as the page reports them: page, directive, message)."""
    prefix = ("" if lang == "ja" else f"{lang}/") if prefix is None else prefix
    url = _page_url(site_url, prefix, chapter)
    meta, body = front_matter(chapter_markdown)
    h1 = title(body) or chapter
    before = lines_before(chapter_markdown)
    body = _without_title(body)
    glossary_url = absolute(relative(page_url(glossary_page), f"{chapter}/"), url)
    ctx = Context(lang=lang, page=source or f"{chapter}/index.md", book=book, url=url,
                  drawing=figure or shown_drawing(book), glossary=glossary, glossary_url=glossary_url, first_line=before,
                  recorded_dir=recorded_dir)

    def words(text: str) -> str:
        return bold_inside_links(link_terms(text, glossary, lang, chapter, notebook_link(glossary_url, lang))) if glossary else text

    cells: list[dict[str, Any]] = []
    ids: set[str] = set()
    written: set[Path] = set()  # helper modules a code cell before wrote out
    for kind, value, anchor in _pieces(render_notebook(body, ctx, words=words), headings(body)):
        if kind == "code":
            cell = ctx.cells[value]
            stem = re.sub(r"[^A-Za-z0-9-]", "-", cell.snippet.rsplit("/", 1)[-1])
            entry = book.get(cell.snippet)
            for helper in helpers(entry.snippet.path) if entry is not None else []:
                if helper not in written:  # the first snippet that imports it writes it, for those after too
                    written.add(helper)
                    hid = re.sub(r"[^A-Za-z0-9-]", "-", helper.stem.lstrip("_"))
                    cells.append(_code(_unique(f"helper-{hid}", ids), f"%%writefile {helper.name}\n" + read_source(helper), ""))
            cells.append(_code(_unique(f"run-{stem}", ids), cell.source, cell.stdout))
        else:
            cells.append(_markdown(_unique(anchor, ids), value))
    shown = [(c.snippet, book[c.snippet].shown) for c in ctx.cells if c.snippet in book and book[c.snippet].shown is not None]
    # snippets that switch Triton's interpreter on without a GPU: how to run them, here and on Colab
    triton = [label("nb_triton", lang), ""] if any(TRITON_SWITCH in "".join(c["source"]) for c in cells if c["cell_type"] == "code") else []
    head = [f"# {h1}", "", label("nb_intro", lang, url=url), "", *triton, label("nb_outputs", lang), "",
            *_provenance(shown, lang), "", label("nb_license", lang)]
    first = [_markdown(_unique("title", ids), "\n".join(head))]
    try:
        goals = objectives.read(meta)
    except ValueError:
        goals = []  # the page's render reports it
    if goals:
        first.append(_markdown(_unique("objectives", ids), f'**{label("objectives", lang)}**\n\n' + "\n".join(f"- {g}" for g in goals)))
    nb = {
        "cells": first + cells,
        "metadata": {
            # Colab opens it on a GPU runtime: the book is about what a GPU runs.
            "accelerator": "GPU",
            "colab": {"gpuType": "T4", "provenance": []},
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return nb, list(ctx.errors) + left_as_written(nb, ctx.page)


def helpers(snippet: Path) -> list[Path]:
    """The local modules (``_name.py`` beside it) a snippet imports, transitively, each after those it imports.

    A notebook has no folder beside it: each becomes a ``%%writefile`` cell before the first code
    cell that needs it, so that the notebook runs where only it was downloaded (Colab).
    """
    order: list[Path] = []

    def visit(path: Path, seen: tuple[Path, ...]) -> None:
        for found in local_imports(path, read_source(path)):
            if found not in order and found not in seen and found != snippet:
                visit(found, seen + (found,))
                order.append(found)

    visit(snippet, (snippet,))
    return order


def left_as_written(nb: dict[str, Any], page: str) -> list[str]:
    """What looks like a directive in the notebook's Markdown outside code, as problems naming the page and cell."""
    return [f"{page}: notebook {text}: reaches the notebook as written (a directive outside code must render)"
            for text in unrendered.in_notebook(nb)]


def _without_title(body: str) -> str:
    """The page without its ``#`` title line (outside code): the title cell says it. Its line stays,
    blank, so that what the render reports names the page's lines."""
    in_code = in_fences(body)
    for m in _TITLE_LINE.finditer(body):
        if not in_code(m.start()):
            return body[:m.start()] + "\n" * m.group(0).count("\n") + body[m.end():]
    return body


def _pieces(markdown: str, marks) -> list[tuple[str, Any, str]]:
    """The notebook's Markdown cut into ``("markdown", text, cell id)`` and ``("code", index, "")``, in order.

    A heading starts a Markdown cell (its id ``h-<anchor>``, from the page's headings in
    order); a code cell's marker ends one; Markdown after a code cell in the same section
    is a cell of its own (``p-<anchor>``).
    """
    in_code = in_fences(markdown)
    anchors = iter(marks)
    section, out, start = "intro", [], 0

    def add(text: str) -> None:
        if text.strip():
            first = text.lstrip("\n").split("\n", 1)[0]
            heading = re.match(r"#{1,6}[ \t]", first)
            cell_id = f"h-{section}" if heading else ("intro" if section == "intro" else f"p-{section}")
            out.append(("markdown", text.strip("\n"), cell_id))

    for m in _CUT.finditer(markdown):
        if in_code(m.start()):
            continue
        add(markdown[start:m.start()])
        if m.group("cell") is not None:
            out.append(("code", int(m.group("cell")), ""))
            start = m.end()
        else:
            mark = next(anchors, None)
            section = mark.anchor if mark is not None and mark.anchor else "h" + hashlib.sha256(m.group(0).encode()).hexdigest()[:8]
            start = m.start()
    add(markdown[start:])
    return out


def _provenance(shown: list[tuple[str, Capture]], lang: str) -> list[str]:
    if not shown:
        return [label("nb_missing", lang)]
    groups: dict[tuple[str, str, str], list[tuple[str, Capture]]] = {}
    for sid, capture in shown:
        env = capture.environment
        groups.setdefault((capture.device, env.device_name, env.torch), []).append((sid, capture))
    lines = []
    wheres = {key: _where(key, members, lang) for key, members in groups.items()}
    if len(groups) == 1:
        lines.append(label("nb_captured_one", lang, where=next(iter(wheres.values()))))
    else:
        lines.append(label("nb_captured_many", lang))
        lines.append("")
        for key, members in groups.items():
            names = ", ".join(f"`{sid}`" for sid, _ in members)
            lines.append(f"- {wheres[key]}: {names}")
    cpu = [sid for sid, capture in shown if capture.device == "cpu"]
    if cpu:
        lines.append("")
        if len(cpu) == len(shown):
            lines.append("> " + label("nb_cpu_all", lang))
        else:
            lines.append("> " + label("nb_cpu_some", lang, snippets=", ".join(f"`{sid}`" for sid in cpu)))
    return lines


def _where(key: tuple[str, str, str], members: list[tuple[str, Capture]], lang: str) -> str:
    _, name, torch = key
    dates = sorted({c.environment.captured_at[:10] for _, c in members})
    when = label("nb_date", lang, date=dates[0]) if len(dates) == 1 else label("nb_dates", lang, first=dates[0], last=dates[-1])
    cuda = {c.environment.cuda for _, c in members if c.environment.cuda}
    extra = f" · CUDA {', '.join(inert(c) for c in sorted(cuda))}" if cuda else ""
    # Markdown cells render HTML (Jupyter, Colab, nbconvert): what a capture says is made inert
    return f"{inert(name)} · torch {inert(torch)}{extra} · {inert(when)}"


def _page_url(site_url: str, prefix: str, chapter: str) -> str:
    if not site_url:
        return "../"
    return site_url.rstrip("/") + "/" + prefix + quote(chapter) + "/"


def _unique(cell_id: str, ids: set[str]) -> str:
    cell_id = cell_id[:60]
    candidate, n = cell_id, 1
    while candidate in ids:
        n += 1
        candidate = f"{cell_id}-{n}"
    ids.add(candidate)
    return candidate


def _lines(value: str) -> list[str]:
    """nbformat's multi-line string, as Jupyter writes it: a list of lines with their ends."""
    return value.splitlines(keepends=True)


def _markdown(cell_id: str, source: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": _lines(source)}


def _code(cell_id: str, source: str, stdout: str) -> dict[str, Any]:
    outputs = [{"name": "stdout", "output_type": "stream", "text": _lines(stdout)}] if stdout else []
    return {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": {}, "outputs": outputs, "source": _lines(source)}


def dumps(nb: dict[str, Any]) -> str:
    """As nbformat writes it (indent 1, sorted keys, UTF-8 as is), ending with a newline."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def write_if_changed(path: Path, nb: dict[str, Any]) -> bool:
    """Write ``nb`` to ``path`` unless the file already holds exactly that; True if written."""
    data = dumps(nb).encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    write_atomic(path, data)
    return True


# ---------------------------------------------------------------- the book's notebooks


def chapters(settings: BookSettings) -> list[tuple[str, str, Path]]:
    """``(lang, chapter, index.md)`` for every chapter page that runs snippets."""
    found = []
    for lang in settings.languages:
        for page in sorted(settings.pages(lang).glob("*/index.md")):
            if "[[kb:run" in page.read_text(encoding="utf-8"):
                found.append((lang, page.parent.name, page))
    return found


def committed(settings: BookSettings) -> list[Path]:
    """The chapter notebooks in ``docs/`` now, the default language's first, in chapter order."""
    return [page.parent / NAME for _, _, page in chapters(settings) if (page.parent / NAME).is_file()]


def book_glossary(settings: BookSettings, data: Callable[[str], object] | None = None) -> Glossary | None:
    """The book's glossary (the plugin's ``glossary`` option), or None; ``glossary.GlossaryError`` when it is wrong (``data``: glossary.load's)."""
    if settings.glossary is None:
        return None
    return load_glossary(settings.glossary, settings.languages, source=settings.rel(settings.glossary), data=data)


def planned(settings: BookSettings, book: dict[str, Entry] | None = None, *, glossary: Glossary | None = None,
            figure: Draw | None = None, report: Callable[[str], None] | None = None,
            made: dict[tuple, dict[str, Any]] | None = None) -> dict[Path, dict[str, Any]]:
    """Every notebook the book should have, by path: a pure function of each page, the book and its settings.

    ``glossary`` (default: the book's, read from its file) and ``figure`` (default: drawn
    through the figure cache) let a build pass what it has already read. ``report`` hears
    of each directive that reaches a notebook as written. ``made``: the notebooks an earlier
    call made with the same settings, book, glossary and figures, by page and text; read, and
    filled with those made now that nothing was reported of (a ``mkdocs serve`` edit of one
    page makes that page's notebook again, not every chapter's).
    """
    book = load_book(settings.root, settings.snippets_dir) if book is None else book
    glossary = book_glossary(settings) if glossary is None else glossary
    figure = drawing(settings.cache_dir, book) if figure is None else figure
    found = {}
    for lang, chapter, page in chapters(settings):
        linked = glossary if glossary is not None and (settings.pages(lang) / settings.glossary_page).is_file() else None
        source = page.relative_to(settings.docs_dir).as_posix()
        text = page.read_text(encoding="utf-8")
        key = (lang, chapter, source, linked is not None, text)
        if made is not None and key in made:
            found[page.parent / NAME] = made[key]
            continue
        found[page.parent / NAME] = notebook(
            text, lang, chapter, book, site_url=settings.site_url, prefix=settings.url_prefix(lang),
            glossary=linked, glossary_page=settings.glossary_page, figure=figure, source=source,
            recorded_dir=str(settings.root / settings.snippets_dir / "recorded"))
        problems = left_as_written(found[page.parent / NAME], source) if report is not None or made is not None else []
        for problem in problems if report is not None else ():
            report(problem)  # the directives' own problems are the page's: its render reports them
        if made is not None and not problems:
            made[key] = found[page.parent / NAME]
    return found


def problems(settings: BookSettings, book: dict[str, Entry]) -> list[str]:
    """What would make a notebook wrong: a run of a snippet that does not exist, or one with no usable capture."""
    found = []
    for _, _, page in chapters(settings):
        for kind, value, _ in outline(page.read_text(encoding="utf-8"))[1]:
            entry = book.get(value) if kind == "run" else None
            if kind == "run" and entry is None:
                found.append(f"{page.relative_to(settings.root)}: [[kb:run {value}]]: no snippet {value} (expected snippets/{value}.py)")
            elif entry is not None:
                found += [f"{page.relative_to(settings.root)}: [[kb:run {value}]]: {p}" for p in entry.problems]
    return found


def generate_all(settings: BookSettings, book: dict[str, Entry] | None = None, **given: Any) -> list[Path]:
    """Write each chapter's notebook where it changed; the paths actually (re)written. ``given``: as for ``planned``."""
    return [path for path, nb in planned(settings, book, **given).items() if write_if_changed(path, nb)]


def stale(settings: BookSettings, book: dict[str, Entry] | None = None, **given: Any) -> list[Path]:
    """Notebooks missing or different from what ``generate_all`` would write; writes nothing."""
    out = []
    for path, nb in planned(settings, book, **given).items():
        try:
            same = path.read_bytes() == dumps(nb).encode("utf-8")
        except OSError:
            same = False
        if not same:
            out.append(path)
    return out
