"""Figures for pages: drawn by figures.py from the shown captures, cached on disk by their data."""

from __future__ import annotations

import html
from pathlib import Path

from .book import Entry


def figure_html(root: Path, name: str, lang: str, book: dict[str, Entry]) -> str:
    from . import figures

    captures = {sid: e.shown for sid, e in book.items() if e.shown is not None}
    cache = root / ".kernelbook" / "figures" / f"{name}.{lang}.{figures.data_key(name, captures)[:16]}.html"
    if cache.exists():
        return cache.read_text(encoding="utf-8")
    fig = figures.figure(name, lang, captures)
    out = (f'<figure class="kb-figure" id="kb-figure-{name}">\n{fig.svg}\n'
           f"<figcaption>{html.escape(fig.caption)}</figcaption>\n</figure>\n")
    cache.parent.mkdir(parents=True, exist_ok=True)
    for stale in cache.parent.glob(f"{name}.{lang}.*.html"):
        stale.unlink()
    cache.write_text(out, encoding="utf-8")
    return out
