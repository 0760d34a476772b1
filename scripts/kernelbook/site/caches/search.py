"""material's search entries for each page, cached on disk by content: a rebuild parses no unchanged page.

material's search plugin parses every page's HTML on every build (``SearchIndex.add_entry_from_context``:
Python's ``HTMLParser``, a callback per tag), and the book's pages are rich in tags (highlighted
code, captured outputs, term links): on a warm build that parse was the largest single cost. What
it makes of a page depends only on the page's HTML, table of contents, URL, title and metadata
(material/plugins/search/plugin.py), so the plugin wraps the index's ``add_entry_from_context``:
the key is a hash of exactly those and material's version, and a hit appends the entries the
parse made before, in the same order. An entry is kept only when it reads back from JSON as it
was; entries unused for :data:`KEEP_DAYS` are removed.

When a page must be parsed, it is parsed without the spans of its highlighted code
(:func:`without_code_spans`: the same entries, a quarter of the time); material finds each section's heading in the table of contents with
``SearchIndex._find_toc_by_id``, a walk of the whole table for every section: quadratic in the
headings (a glossary of 10,000 terms took 12 s there). While the page is parsed the index looks
headings up in a table built once per page instead: the same item, the first in the walk's order.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

from ...common.records import write_atomic
from . import notebooks as notebook_cache, pages as page_cache
from .notebooks import toc_tokens

FORMAT = 1
KEEP_DAYS = page_cache.KEEP_DAYS
RENDERERS = ("mkdocs-material",)


def versions() -> dict[str, str | None]:
    return notebook_cache.versions(RENDERERS)


def key(page, renderers: dict[str, str | None], segmenter: bool) -> str:
    """sha256 of everything material's indexing reads of ``page``; ``segmenter``: whether jieba is installed (it segments Chinese)."""
    blob = json.dumps({"format": FORMAT, "versions": renderers, "segmenter": segmenter, "url": page.url,
                       "title": str(page.title), "meta": page_cache.stable(page.meta), "toc": toc_tokens(page.toc)},
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode() + b"\0" + page.content.encode("utf-8", "surrogatepass")).hexdigest()


def cache_entries(index, folder: Path, renderers: dict[str, str | None], report: Callable[[bool], None] | None = None) -> bool:
    """Make material's ``index.add_entry_from_context`` read from and fill the cache in ``folder``.

    False (and ``index`` left alone) when it is not the index this module knows: one with a list of
    ``entries`` that ``add_entry_from_context`` appends to. ``report(cached)`` hears of each page.
    """
    add = getattr(index, "add_entry_from_context", None)
    if add is None or not isinstance(getattr(index, "entries", None), list):
        return False
    segmenter = getattr(sys.modules.get(type(index).__module__), "jieba", None) is not None

    def add_entry(page) -> None:
        path = folder / f"{key(page, renderers, segmenter)}.json"
        cached = _read(path)
        if cached is not None:
            index.entries.extend(cached)
            with contextlib.suppress(OSError):
                path.touch()  # kept KEEP_DAYS from its last use
            if report:
                report(True)
            return
        before = len(index.entries)
        with toc_lookup(index), code_spans_left_out(page):
            add(page)
        if report:
            report(False)
        made = index.entries[before:]
        try:
            data = json.dumps(made, ensure_ascii=False)
        except (TypeError, ValueError):
            return  # something JSON cannot hold: parsed again next time
        if json.loads(data) == made:
            page_cache.prune(folder, KEEP_DAYS)
            write_atomic(path, data.encode("utf-8"))

    index.add_entry_from_context = add_entry
    return True


def _read(path: Path) -> list[dict[str, Any]] | None:
    """The entries at ``path`` when they have the shape material's entries have; None (parse again) otherwise."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if not isinstance(entry, dict) or not {"location", "title", "text"} <= set(entry):
            return None
        if not all(isinstance(entry[k], str) for k in ("location", "title", "text")):
            return None
    return entries


# Highlighted code is a tag per token (Pygments' <span class="n">): most of a page's tags. Inside
# <pre>, material's parser keeps every character of the text and no span (a span is not among the
# tags it keeps, and whitespace there is kept as it is), so the same text without those spans
# parses to the same entries, in a fraction of the callbacks.
_PRE = re.compile(r"<pre\b[^>]*>.*?</pre>", re.S | re.I)
_CODE_SPAN = re.compile(r'<span(?: class="[^"<>]*")?>|</span>')
_ANY_SPAN = re.compile(r"<span\b", re.I)


def without_code_spans(content: str) -> str:
    """``content`` with the ``<span>`` tags inside ``<pre>`` taken out, their text kept, in each
    ``<pre>`` whose spans all have no attribute but ``class`` (any other, ``data-search-exclude``
    say, leaves that ``<pre>`` as it is)."""
    def plain(pre: re.Match[str]) -> str:
        text = pre.group()
        opened = len(_ANY_SPAN.findall(text))
        stripped = _CODE_SPAN.sub("", text)
        return stripped if opened == len(re.findall(r'<span(?: class="[^"<>]*")?>', text)) else text
    return _PRE.sub(plain, content)


@contextlib.contextmanager
def code_spans_left_out(page) -> Iterator[None]:
    """While inside, ``page.content`` is :func:`without_code_spans` of itself (material's parse reads it)."""
    content = page.content
    page.content = without_code_spans(content)
    try:
        yield
    finally:
        page.content = content


@contextlib.contextmanager
def toc_lookup(index) -> Iterator[None]:
    """While inside, ``index._find_toc_by_id(toc, id)`` answers from a table of ``toc`` built once
    (material's walks the whole table for each section: quadratic in a page's headings)."""
    walk = getattr(type(index), "_find_toc_by_id", None)
    if walk is None:
        yield
        return
    tables: dict[int, tuple[object, dict | None]] = {}

    def find(toc, anchor):
        held = tables.get(id(toc))
        if held is None or held[0] is not toc:
            try:
                held = tables[id(toc)] = (toc, first_by_id(toc))
            except TypeError:  # an id that cannot be a key: material's own walk for this table
                held = tables[id(toc)] = (toc, None)
        try:
            return walk(index, toc, anchor) if held[1] is None else held[1].get(anchor)
        except TypeError:
            return walk(index, toc, anchor)

    index._find_toc_by_id = find
    try:
        yield
    finally:
        del index._find_toc_by_id


def first_by_id(toc) -> dict:
    """Each id of ``toc`` -> its first item in material's walk (an item, then its children, then the next item).

    TypeError when an id cannot be a key."""
    table: dict = {}

    def visit(items) -> None:
        for item in items:
            table.setdefault(item.id, item)
            visit(item.children)

    visit(toc)
    return table
