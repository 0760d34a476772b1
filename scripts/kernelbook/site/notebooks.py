"""A chapter as a Jupyter notebook: generated from its page and snippets, never edited by hand.

``notebook()`` is pure: the chapter's Markdown, its language and the book (which capture
each snippet shows) go in, an nbformat 4.5 dict comes out. Its cells follow the page:
a title cell (the chapter's H1, where the outputs were captured, a link back to the page),
then in document order a Markdown cell per ``##``/``###`` heading and a code cell per
``[[kb:run SNIPPET]]``, whose source is the snippet file and whose output is the stdout of
the capture the page shows. Nothing is executed to make it.

``generate_all()`` writes ``docs/<lang>/<chapter>/notebook.ipynb`` for every chapter page
with ``[[kb:run`` directives, only where the file's content would change, so a build
regenerates a notebook exactly when a snippet, a heading or a capture changed. The JSON
is deterministic (sorted keys, no timestamps, cell ids derived from the content).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..records import Capture, write_atomic
from ..snippets import read_source
from .book import Entry, load_book
from .escape import inert
from .labels import label
from .page_text import headings, strip_code, title
from .settings import BookSettings

NAME = "notebook.ipynb"  # beside the chapter's index.md, in each language
COLAB = "https://colab.research.google.com/github/{repository}/blob/{branch}/docs/{lang}/{chapter}/" + NAME

_RUN = re.compile(r"^\[\[kb:run[ \t]+([^\]\s]+)[ \t]*\]\][ \t]*$", re.MULTILINE)

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
             prefix: str | None = None) -> dict[str, Any]:
    """The chapter as an nbformat 4.5 notebook (a plain dict; see the module docstring).

    ``site_url`` makes the link back to the chapter page absolute (it must work from
    Colab or GitHub too); without it the link is relative to the rendered notebook page.
    ``prefix`` is where the language's pages sit below ``site_url`` ("" or "en/"; by
    default "" for Japanese, the book's default language, and "<lang>/" otherwise).
    """
    title, items = outline(chapter_markdown)
    cells: list[dict[str, Any]] = []
    ids: set[str] = set()
    shown: list[tuple[str, Capture]] = []
    for kind, value, anchor in items:
        if kind == "heading":
            digest = hashlib.sha256(value.encode()).hexdigest()[:8]
            cells.append(_markdown(_unique(f"h-{anchor}" if anchor else f"h-{digest}", ids), value))
            continue
        entry = book.get(value)
        capture = entry.shown if entry else None
        source = read_source(entry.snippet.path) if entry else f"# no snippet {value} (expected snippets/{value}.py)\n"
        if capture is not None:
            shown.append((value, capture))
        stem = re.sub(r"[^A-Za-z0-9-]", "-", value.rsplit("/", 1)[-1])
        cells.append(_code(_unique(f"run-{stem}", ids), source, capture.stdout if capture else ""))
    prefix = ("" if lang == "ja" else f"{lang}/") if prefix is None else prefix
    head = [f"# {title or chapter}", "", label("nb_intro", lang, url=_page_url(site_url, prefix, chapter)), "", label("nb_outputs", lang), "",
            *_provenance(shown, lang), "", label("nb_license", lang)]
    cells.insert(0, _markdown(_unique("title", ids), "\n".join(head)))
    return {
        "cells": cells,
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


def planned(settings: BookSettings, book: dict[str, Entry] | None = None) -> dict[Path, dict[str, Any]]:
    """Every notebook the book should have, by path."""
    book = load_book(settings.root, settings.snippets_dir) if book is None else book
    return {
        page.parent / NAME: notebook(page.read_text(encoding="utf-8"), lang, chapter, book,
                                     site_url=settings.site_url, prefix=settings.url_prefix(lang))
        for lang, chapter, page in chapters(settings)
    }


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


def generate_all(settings: BookSettings, book: dict[str, Entry] | None = None) -> list[Path]:
    """Write each chapter's notebook where it changed; the paths actually (re)written."""
    return [path for path, nb in planned(settings, book).items() if write_if_changed(path, nb)]


def stale(settings: BookSettings, book: dict[str, Entry] | None = None) -> list[Path]:
    """Notebooks missing or different from what ``generate_all`` would write; writes nothing."""
    out = []
    for path, nb in planned(settings, book).items():
        try:
            same = path.read_bytes() == dumps(nb).encode("utf-8")
        except OSError:
            same = False
        if not same:
            out.append(path)
    return out


# ---------------------------------------------------------------- links on the chapter page


def colab_url(repository: str, branch: str, lang: str, chapter: str) -> str:
    return COLAB.format(repository=quote(repository), branch=quote(branch), lang=lang, chapter=quote(chapter))


def buttons(chapter: str, lang: str, repository: str, branch: str, *, base: str = "", view: bool = True) -> str:
    """View, download and Colab links as raw HTML, relative to the chapter page (or ``base``).

    ``notebook/`` is the rendered notebook, ``notebook.ipynb`` the file itself. Raw HTML,
    so that MkDocs does not rewrite the download link into the rendered page's URL.
    """
    base = html.escape(base, quote=True)
    links = []
    if view:
        links.append(f'<a class="md-button md-button--primary kb-nb-view" href="{base}notebook/">{html.escape(label("nb_view", lang))}</a>')
    links.append(f'<a class="md-button kb-nb-download" href="{base}{NAME}" download="{chapter}-{lang}.ipynb">{html.escape(label("nb_download", lang))}</a>')
    if repository:
        url = html.escape(colab_url(repository, branch, lang, chapter), quote=True)
        links.append(f'<a class="md-button kb-nb-colab" href="{url}" target="_blank" rel="noopener">{html.escape(label("nb_colab", lang))}</a>')
    return " ".join(links)


def notebook_links(chapter: str, lang: str, repository: str, branch: str, *, base: str = "", view: bool = True) -> str:
    """The ``[[kb:notebook CHAPTER]]`` block: an admonition with view, download and Colab links.

    Links are relative to the chapter page; ``base`` leads there from another page.
    ``view=False`` leaves out the link to the rendered notebook (a site without mkdocs-jupyter).
    """
    title = label("nb_title", lang).replace('"', "&quot;")
    return "\n".join([
        f'!!! example kb-notebook "{title}"',
        "",
        "    " + label("nb_body", lang),
        "",
        "    " + buttons(chapter, lang, repository, branch, base=base, view=view),
        "",
    ])


def page_bar(chapter: str, lang: str, repository: str, branch: str) -> str:
    """Download and Colab links for the rendered notebook page (one level below the chapter)."""
    return f'<p class="kb-nb-links">{buttons(chapter, lang, repository, branch, base="../", view=False)}</p>\n'
