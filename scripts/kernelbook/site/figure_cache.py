"""Figures for pages: drawn by ``figures`` from the shown captures, cached on disk by their data.

A figure is redrawn only when what it is drawn from (its captures' relevant data, or the
drawing code) changes: ``<cache>/figures/<name>.<lang>.<data key>.html``, one file per
figure and language, older versions removed when a new one is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..records import Capture, write_atomic
from . import figures
from .escape import inert


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
