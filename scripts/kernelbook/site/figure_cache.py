"""Figures drawn by ``figures`` from the shown captures, cached on disk by their data.

A figure is redrawn only when what it is drawn from (its captures' relevant data, or the
drawing code) changes: ``<cache>/figures/<name>.<lang>.<data key>.json``, the drawn
``Figure`` record, one file per figure and language, older versions removed when a new
one is written. Pages show its HTML (:func:`figure_html`); notebooks embed its drawing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..records import Capture, write_atomic
from . import figures
from .escape import inert

if TYPE_CHECKING:
    from .book import Entry

Draw = Callable[[str, str], figures.Figure]  # (figure name, lang) -> the drawn figure


def cached_figure(cache: Path, name: str, lang: str, captures: Mapping[str, Capture]) -> tuple[figures.Figure, bool]:
    """The figure ``name`` in ``lang``, and whether it had to be drawn (not cached).

    Raises what ``figures.figure`` raises for an unknown figure or unusable captures.
    """
    path = cache / "figures" / f"{name}.{lang}.{figures.data_key(name, captures)[:16]}.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return figures.Figure(**{**raw, "svgs": tuple(raw["svgs"])}), False
    except (OSError, ValueError, TypeError, KeyError):
        pass
    fig = figures.figure(name, lang, captures)
    for stale in path.parent.glob(f"{name}.{lang}.*") if path.parent.is_dir() else ():
        stale.unlink(missing_ok=True)
    record = {"name": fig.name, "lang": fig.lang, "svgs": list(fig.svgs), "alt": fig.alt, "caption": fig.caption, "data": fig.data}
    write_atomic(path, json.dumps(record, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    return fig, True


def figure_html(cache: Path, name: str, lang: str, captures: Mapping[str, Capture]) -> tuple[str, bool]:
    """The ``<figure>`` for a page of language ``lang``, and whether it had to be drawn (not cached)."""
    fig, drawn = cached_figure(cache, name, lang, captures)
    return page_html(fig), drawn


def page_html(fig: figures.Figure) -> str:
    return (f'<figure class="kb-figure" id="kb-figure-{fig.name}">\n{fig.html}\n'
            f"<figcaption>{inert(fig.caption)}</figcaption>\n</figure>\n")


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
