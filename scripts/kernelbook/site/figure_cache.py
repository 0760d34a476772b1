"""Figures for pages: drawn by ``figures`` from the shown captures, cached on disk by their data.

A figure is redrawn only when what it is drawn from (its captures' relevant data, or the
drawing code) changes: ``<cache>/figures/<name>.<lang>.<data key>.html``, one file per
figure and language, older versions removed when a new one is written.

A figure registered for one device (``FigureKind(device="cuda")``) is drawn only from
fresh captures of that device; until the book has them, the page shows a placeholder
that says what the figure will show and which capture it waits for (:func:`placeholder_html`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..records import Capture, write_atomic
from . import figures
from .book import Entry
from .escape import inert
from .labels import label


def figure_html(cache: Path, name: str, lang: str, captures: Mapping[str, Capture]) -> tuple[str, bool]:
    """The ``<figure>`` for a page of language ``lang``, and whether it had to be drawn (not cached).

    Raises what ``figures.figure`` raises for an unknown figure or unusable captures.
    """
    path = cache / "figures" / f"{name}.{lang}.{figures.data_key(name, captures)[:16]}.html"
    try:
        return path.read_text(encoding="utf-8"), False
    except OSError:
        pass
    fig = figures.figure(name, lang, captures)
    out = (f'<figure class="kb-figure" id="kb-figure-{name}">\n{fig.html}\n'
           f"<figcaption>{inert(fig.caption)}</figcaption>\n</figure>\n")
    for stale in path.parent.glob(f"{name}.{lang}.*.html") if path.parent.is_dir() else ():
        stale.unlink(missing_ok=True)
    write_atomic(path, out.encode("utf-8"))
    return out, True


def captures_for(name: str, book: Mapping[str, Entry]) -> tuple[dict[str, Capture], list[str]]:
    """What figure ``name`` is drawn from: each snippet's shown capture, or for a figure of one
    device that device's fresh capture; and the snippets it needs that have none (then it waits)."""
    kind = figures.KINDS.get(name)
    device = kind.device if kind is not None else None
    chosen = {sid: (e.shown if device is None else e.cuda if device == "cuda" else e.cpu) for sid, e in book.items()}
    captures = {sid: c for sid, c in chosen.items() if c is not None}
    waiting = [sid for sid in kind.needs if sid not in captures] if device is not None else []
    return captures, waiting


def placeholder_html(name: str, lang: str) -> str:
    """The ``<figure>`` a page shows while a one-device figure has no capture of its device to be drawn from."""
    kind = figures.KINDS[name]
    words = f'{kind.about[lang]} {label("figure_needs_" + kind.device, lang)}'
    return (f'<figure class="kb-figure kb-figure-waiting" id="kb-figure-{name}" data-waits-for="{kind.device}">\n'
            f'<p class="kb-figure-placeholder">{inert(words)}</p>\n</figure>\n')
