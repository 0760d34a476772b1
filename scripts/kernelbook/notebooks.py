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

from .book import Entry, load_book
from .labels import label
from .records import Capture, write_atomic
from .twins import LANGS

NAME = "notebook.ipynb"  # beside the chapter's index.md, in each language
COLAB = "https://colab.research.google.com/github/{repository}/blob/{branch}/docs/{lang}/{chapter}/" + NAME

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t]*#*[ \t]*$")
_HEADING = re.compile(r"^(#{2,3})[ \t]+(.+?)[ \t]*$")
_ANCHOR = re.compile(r"[ \t]*\{[ \t]*#[\w-]+[^}]*\}[ \t]*$")
_ANCHOR_ID = re.compile(r"\{[ \t]*#([\w-]+)")
_RUN = re.compile(r"^\[\[kb:run[ \t]+([^\]\s]+)[ \t]*\]\][ \t]*$")

# What the title cell says, in the page's language.
TEXT: dict[str, dict[str, str]] = {
    "intro": {
        "ja": "この章のスニペットを、章のページと同じ順に並べたノートブックです。本文は[章のページ]({url})にあります。このファイルは章のページとスニペットから自動生成しています。",
        "en": "This chapter's snippets, in the order the [chapter page]({url}) runs them; the text is on that page. This file is generated from the page and the snippets.",
    },
    "outputs": {
        "ja": "出力欄には、このノートブックを実行した結果ではなく、章のページに載せたのと同じキャプチャの出力が入っています。",
        "en": "The output cells hold the same captures the chapter page shows, not the result of running this notebook.",
    },
    "captured_one": {
        "ja": "キャプチャした環境: {where}。",
        "en": "Captured on {where}.",
    },
    "captured_many": {
        "ja": "キャプチャした環境:",
        "en": "Captured on:",
    },
    "cpu_all": {
        "ja": "**これは CPU でのキャプチャです。** GPU (CUDA) で実行した出力ではありません。カーネル名も時間も GPU とは異なります。GPU で実行すると、出力欄は GPU での結果に置き換わります。",
        "en": "**This is a CPU capture.** These outputs did not come from a GPU (CUDA) run; kernel names and times differ on a GPU. Run the notebook on a GPU to replace them with a GPU's.",
    },
    "cpu_some": {
        "ja": "**このうち {snippets} は CPU でのキャプチャです。** GPU (CUDA) で実行した出力ではなく、カーネル名も時間も GPU とは異なります。",
        "en": "**Of these, {snippets} are CPU captures:** not from a GPU (CUDA) run; kernel names and times differ on a GPU.",
    },
    "missing": {
        "ja": "キャプチャがまだないため、出力欄は空です。",
        "en": "There are no captures yet, so the output cells are empty.",
    },
    "page_title": {"ja": "{title} (ノートブック)", "en": "{title} (notebook)"},  # on the site: not the chapter's own title
    "date": {"ja": "{date} (UTC)", "en": "{date} (UTC)"},
    "dates": {"ja": "{first} – {last} (UTC)", "en": "{first} to {last} (UTC)"},
}


def text(key: str, lang: str, **fields: object) -> str:
    value = TEXT[key][lang]
    return value.format(**fields) if fields else value


# ---------------------------------------------------------------- reading the chapter


def outline(chapter_markdown: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The H1 and, in order, ``("heading", "## text", anchor)`` and ``("run", snippet_id, "")``.

    Lines inside fenced code blocks are neither headings nor directives.
    """
    title, items, fence = "", [], None
    for line in chapter_markdown.splitlines():
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) and not line.strip()[len(opened.group(1)):].strip():
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        if not title and (h1 := _H1.match(line)):
            title = _ANCHOR.sub("", h1.group(1)).strip()
        elif heading := _HEADING.match(line):
            anchor = _ANCHOR_ID.search(heading.group(2))
            items.append(("heading", f"{heading.group(1)} {_ANCHOR.sub('', heading.group(2)).strip()}", anchor.group(1) if anchor else ""))
        elif run := _RUN.match(line):
            items.append(("run", run.group(1), ""))
    return title, items


# ---------------------------------------------------------------- the notebook


def notebook(chapter_markdown: str, lang: str, chapter: str, book: dict[str, Entry], *, site_url: str = "") -> dict[str, Any]:
    """The chapter as an nbformat 4.5 notebook (a plain dict; see the module docstring).

    ``site_url`` makes the link back to the chapter page absolute (it must work from
    Colab or GitHub too); without it the link is relative to the rendered notebook page.
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
        source = entry.snippet.path.read_text(encoding="utf-8") if entry else f"# no snippet {value} (expected snippets/{value}.py)\n"
        if capture is not None:
            shown.append((value, capture))
        stem = re.sub(r"[^A-Za-z0-9-]", "-", value.rsplit("/", 1)[-1])
        cells.append(_code(_unique(f"run-{stem}", ids), source, capture.stdout if capture else ""))
    head = [f"# {title or chapter}", "", text("intro", lang, url=_page_url(site_url, lang, chapter)), "", text("outputs", lang), "", *_provenance(shown, lang)]
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
        return [text("missing", lang)]
    groups: dict[tuple[str, str, str], list[tuple[str, Capture]]] = {}
    for sid, capture in shown:
        env = capture.environment
        groups.setdefault((capture.device, env.device_name, env.torch), []).append((sid, capture))
    lines = []
    wheres = {key: _where(key, members, lang) for key, members in groups.items()}
    if len(groups) == 1:
        lines.append(text("captured_one", lang, where=next(iter(wheres.values()))))
    else:
        lines.append(text("captured_many", lang))
        lines.append("")
        for key, members in groups.items():
            names = ", ".join(f"`{sid}`" for sid, _ in members)
            lines.append(f"- {wheres[key]}: {names}")
    cpu = [sid for sid, capture in shown if capture.device == "cpu"]
    if cpu:
        lines.append("")
        if len(cpu) == len(shown):
            lines.append("> " + text("cpu_all", lang))
        else:
            lines.append("> " + text("cpu_some", lang, snippets=", ".join(f"`{sid}`" for sid in cpu)))
    return lines


def _where(key: tuple[str, str, str], members: list[tuple[str, Capture]], lang: str) -> str:
    _, name, torch = key
    dates = sorted({c.environment.captured_at[:10] for _, c in members})
    when = text("date", lang, date=dates[0]) if len(dates) == 1 else text("dates", lang, first=dates[0], last=dates[-1])
    cuda = {c.environment.cuda for _, c in members if c.environment.cuda}
    extra = f" · CUDA {', '.join(sorted(cuda))}" if cuda else ""
    return f"{name} · torch {torch}{extra} · {when}"


def _page_url(site_url: str, lang: str, chapter: str) -> str:
    if not site_url:
        return "../"
    prefix = "" if lang == LANGS[0] else f"{lang}/"
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


def site_settings(root: Path) -> dict[str, str]:
    """``site_url`` and ``extra.kernelbook`` (repository, branch) from mkdocs.yml."""
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    # mkdocs.yml holds !!python/... and !ENV tags; their values don't matter here.
    _Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    _Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    path = root / "mkdocs.yml"
    config = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) if path.is_file() else {}
    config = config or {}
    book = ((config.get("extra") or {}).get("kernelbook")) or {}
    return {
        "site_url": str(config.get("site_url") or ""),
        "repository": str(book.get("repository") or ""),
        "branch": str(book.get("branch") or "main"),
    }


def chapters(root: Path) -> list[tuple[str, str, Path]]:
    """``(lang, chapter, index.md)`` for every chapter page that runs snippets."""
    found = []
    for lang in LANGS:
        base = root / "docs" / lang
        for page in sorted(base.glob("*/index.md")):
            if "[[kb:run" in page.read_text(encoding="utf-8"):
                found.append((lang, page.parent.name, page))
    return found


def planned(root: Path, book: dict[str, Entry] | None = None) -> dict[Path, dict[str, Any]]:
    """Every notebook the book should have, by path."""
    book = load_book(root) if book is None else book
    site_url = site_settings(root)["site_url"]
    return {
        page.parent / NAME: notebook(page.read_text(encoding="utf-8"), lang, chapter, book, site_url=site_url)
        for lang, chapter, page in chapters(root)
    }


def generate_all(root: Path, book: dict[str, Entry] | None = None) -> list[Path]:
    """Write each chapter's notebook where it changed; the paths actually (re)written."""
    return [path for path, nb in planned(root, book).items() if write_if_changed(path, nb)]


def stale(root: Path, book: dict[str, Entry] | None = None) -> list[Path]:
    """Notebooks missing or different from what ``generate_all`` would write; writes nothing."""
    out = []
    for path, nb in planned(root, book).items():
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


def notebook_links(chapter: str, lang: str, repository: str, branch: str, *, base: str = "") -> str:
    """The ``[[kb:notebook CHAPTER]]`` block: an admonition with view, download and Colab links.

    Links are relative to the chapter page; ``base`` leads there from another page.
    """
    title = label("nb_title", lang).replace('"', "&quot;")
    return "\n".join([
        f'!!! example kb-notebook "{title}"',
        "",
        "    " + label("nb_body", lang),
        "",
        "    " + buttons(chapter, lang, repository, branch, base=base),
        "",
    ])


def page_bar(chapter: str, lang: str, repository: str, branch: str) -> str:
    """Download and Colab links for the rendered notebook page (one level below the chapter)."""
    return f'<p class="kb-nb-links">{buttons(chapter, lang, repository, branch, base="../", view=False)}</p>\n'
