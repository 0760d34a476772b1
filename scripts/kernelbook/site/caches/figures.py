"""Figures drawn by ``figures`` from the shown captures, cached on disk by their data.

A figure is redrawn only when what it is drawn from (its captures' relevant data, or the
drawing code) changes: ``<cache>/figures/<name>.<lang>.<slot>.<data key>.json``, the drawn
``Figure`` record, one file per figure, language and capture it is drawn from (the slot,
:func:`drawn_from`), older versions removed when a new one is written. Pages show its HTML
(:func:`page_html`; in a tab per capture: ``figure_tabs``); notebooks embed its drawing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Callable
from xml.etree import ElementTree

from ...safety.files import MiB, InputError, parse_json, read_bounded
from ...common import gpus
from ...common.records import Capture, write_atomic
from .. import figures
from ..prose.escape import inert

if TYPE_CHECKING:
    from ..book import Entry

Draw = Callable[[str, str], figures.Figure]  # (figure name, lang) -> the drawn figure
MAX_ENTRY_BYTES = 16 * MiB


def cached_figure(cache: Path, name: str, lang: str, captures: Mapping[str, Capture]) -> tuple[figures.Figure, bool]:
    """The figure ``name`` in ``lang``, and whether it had to be drawn (not cached).

    Raises what ``figures.figure`` raises for an unknown figure or unusable captures.
    """
    slot = drawn_from(name, captures)
    path = cache / "figures" / f"{name}.{lang}.{slot}.{figures.data_key(name, captures)[:16]}.json"
    found = read_entry(path, name, lang)
    if found is not None:
        return found, False
    fig = figures.figure(name, lang, captures)
    for stale in path.parent.glob(f"{name}.{lang}.*") if path.parent.is_dir() else ():
        if stale.name.split(".")[2:-2] in ([slot], []):  # this capture's older drawing, or one from before slots
            stale.unlink(missing_ok=True)
    record = {"name": fig.name, "lang": fig.lang, "svgs": list(fig.svgs), "alt": fig.alt, "caption": fig.caption, "data": fig.data}
    write_atomic(path, json.dumps(record, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    return fig, True


def drawn_from(name: str, captures: Mapping[str, Capture]) -> str:
    """Which captures figure ``name`` is drawn from, by slot: ``cpu``, ``cuda-h200``, ``cpu+cuda-h200``, or ``none``.

    Part of its cache entry's name: a figure drawn in one tab per GPU (``figure_tabs``) keeps
    an entry per capture, and drawing one tab never removes another's.
    """
    kind = figures.KINDS.get(name)
    needs = kind.needs if kind else ()
    return "+".join(sorted({gpus.slot_of(captures[sid]) for sid in needs if sid in captures})) or "none"


# What the figures module draws, and nothing that runs or loads: an entry holding anything else
# (written by something other than kernelbook: a snippet, a person) is never shown, only redrawn.
SVG_TAGS = {"svg", "g", "line", "path", "polyline", "polygon", "rect", "circle", "ellipse", "text", "tspan", "title",
            "desc", "style"}
_ATTRIBUTE = re.compile(r"[a-z][a-zA-Z0-9-]*")  # no namespace (xlink:href), checked against the names below too
_NO_ATTRIBUTES = {"href", "src", "style"}
_ACTIVE = re.compile(r"javascript:|url\s*\(|@import|expression\s*\(|<|\\", re.IGNORECASE)
SVG_NS = "{http://www.w3.org/2000/svg}"


def read_entry(path: Path, name: str, lang: str) -> figures.Figure | None:
    """The cached figure at ``path``, validated like a capture; None when missing or anything is wrong with it."""
    try:
        raw = parse_json(read_bounded(path, MAX_ENTRY_BYTES, gzipped=False), str(path))
    except InputError:
        return None
    if not isinstance(raw, dict) or set(raw) != {"name", "lang", "svgs", "alt", "caption", "data"}:
        return None
    svgs, alt, caption = raw["svgs"], raw["alt"], raw["caption"]
    if raw["name"] != name or raw["lang"] != lang or not isinstance(raw["data"], dict):
        return None
    if not isinstance(alt, str) or not isinstance(caption, str) or not isinstance(svgs, list) or not svgs:
        return None
    if not all(isinstance(svg, str) and inert_svg(svg) for svg in svgs):
        return None
    return figures.Figure(name, lang, tuple(svgs), alt, caption, raw["data"])


def inert_svg(svg: str) -> bool:
    """Whether ``svg`` is one <svg> of the elements and attributes figures draw, with no script, link or event."""
    if "<!" in svg or "<?" in svg:  # no DOCTYPE, entity, CDATA or processing instruction
        return False
    try:
        root = ElementTree.fromstring(svg)
    except (ElementTree.ParseError, ValueError):
        return False
    if root.tag.removeprefix(SVG_NS) != "svg":
        return False
    for element in root.iter():
        if not isinstance(element.tag, str) or element.tag.removeprefix(SVG_NS) not in SVG_TAGS:
            return False
        for key, value in element.attrib.items():
            if not _ATTRIBUTE.fullmatch(key) or key.lower().startswith("on") or key in _NO_ATTRIBUTES or _ACTIVE.search(value):
                return False
        if element.tag.removeprefix(SVG_NS) == "style" and _ACTIVE.search(element.text or ""):
            return False
        if len(element) and element.tag.removeprefix(SVG_NS) == "style":
            return False
    return True


def page_html(fig: figures.Figure, anchor: str | None = None) -> str:
    """The ``<figure>``, its id ``anchor`` (by default ``kb-figure-NAME``, the notebooks' link to it), and under
    its caption its data as a table, closed until opened (``figures.values``)."""
    return (f'<figure class="kb-figure" id="{anchor or f"kb-figure-{fig.name}"}">\n{fig.html}\n'
            f"<figcaption>{inert(fig.caption)}</figcaption>\n{figures.values.table(fig.svg, fig.lang)}</figure>\n")


def shown_drawing(book: Mapping[str, "Entry"]) -> Draw:
    """Figures drawn straight from the captures the pages show (no cache)."""
    captures = {sid: e.shown for sid, e in book.items() if e.shown is not None}
    return lambda name, lang: figures.figure(name, lang, captures)


def drawing(cache: Path | None, book: Mapping[str, "Entry"], report: Callable[[str, str], None] | None = None) -> Draw:
    """Figures for the notebooks, from the figure cache (the pages' own drawings) when there is one.

    ``report(name, lang)`` hears of each figure that had to be drawn.
    """
    if cache is None:
        return shown_drawing(book)
    captures = {sid: e.shown for sid, e in book.items() if e.shown is not None}

    def draw(name: str, lang: str) -> figures.Figure:
        fig, drawn = cached_figure(cache, name, lang, captures)
        if drawn and report is not None:
            report(name, lang)
        return fig
    return draw
