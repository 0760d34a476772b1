"""``[[kb:figure NAME]]`` on a page: one drawing, or one tab per capture it can be drawn from.

Where the snippet a figure is drawn from has several fresh captures (several GPUs, a GPU
and the CPU), the page draws the figure once from each, in tabs named and ordered as that
snippet's output tabs (``directives/run.py``: the reference GPU, the other GPUs, then the
CPU rehearsal). Material's linked tabs (``content.tabs.link``) switch every tab of the same
name on the page together, so a reader who picks "T4" in an output sees the T4's figures.

Where there is one choice at most, the figure is drawn once from the captures the page
shows, exactly as without tabs. The tabs are raw HTML in the shape pymdownx.tabbed's
``alternate_style`` writes (Material styles and links them by that shape): a drawing
indented under a Markdown ``=== "tab"`` would be read as Markdown, its text mangled.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ...common.records import Capture
from .. import figures
from ..book import Entry
from ..directives.run import gpu_label
from ..caches.figures import cached_figure, page_html


_TITLE = re.compile(r'="(kb-fig-[\w-]+)-title"')  # svg.document's title id, and the aria-labelledby naming it


@dataclass(frozen=True)
class Tab:
    """One drawing of a figure."""

    label: str  # as the snippets' output tabs name it: "CUDA" (their one GPU), "A100 80GB", "CPU"
    key: str  # its GPU key, "cuda" (a GPU of unknown key) or "cpu"
    captures: Mapping[str, Capture]  # snippet id -> capture: the page's shown ones, this tab's swapped in


def choices(entry: Entry) -> list[tuple[str, Capture]]:
    """An example's fresh captures by key, in its tabs' order: the reference GPU, the other GPUs, the CPU."""
    gpu = list(entry.gpus) or ([("cuda", entry.cuda)] if entry.cuda else [])
    return gpu + ([("cpu", entry.cpu)] if entry.cpu else [])


def tabs(name: str, book: Mapping[str, Entry]) -> list[Tab]:
    """The tabs of figure ``name``; [] when it has one choice at most (drawn once, as the page shows its captures).

    A figure drawn from several snippets (the timeline: eager and compiled) has a tab per
    device that every one of them has a fresh capture of: a tab's drawing comes from one
    machine, never one GPU's eager run beside another's compiled run. A figure only a GPU
    can measure (``device="cuda"``) has no CPU tab: there its placeholder would say no GPU
    capture exists beside the GPU tabs that show one.
    """
    kind = figures.KINDS.get(name)
    entries = [book.get(sid) for sid in kind.needs] if kind else []
    if not entries or any(e is None for e in entries):
        return []  # drawn from no capture, or one is missing: figures.figure says which
    found = [dict(choices(e)) for e in entries]
    keys = [k for k in found[0] if all(k in f for f in found[1:])
            and kind.device in (None, "cpu" if k == "cpu" else "cuda")]
    if len(keys) < 2:
        return []
    many = any(len(e.gpus) > 1 for e in entries)  # run.py's rule: one GPU's tab is "CUDA", several are named
    shown = {sid: e.shown for sid, e in book.items() if e.shown is not None}
    return [Tab("CPU" if k == "cpu" else gpu_label(k) if many else "CUDA", k,
                {**shown, **{sid: f[k] for sid, f in zip(kind.needs, found)}}) for k in keys]


def page_figure(cache: Path, name: str, lang: str, book: Mapping[str, Entry], heard: Callable[[bool], None]) -> str:
    """The HTML of ``[[kb:figure NAME]]`` on a page of language ``lang``; ``heard(drawn)`` for each drawing.

    Raises what ``figures.figure`` raises for an unknown figure or unusable captures.
    """
    found = tabs(name, book)
    if not found:
        fig, drawn = cached_figure(cache, name, lang, {sid: e.shown for sid, e in book.items() if e.shown is not None})
        heard(drawn)
        return page_html(fig)
    blocks = []
    for tab in found:
        fig, drawn = cached_figure(cache, name, lang, tab.captures)
        heard(drawn)
        # each drawing's <title> id (its aria-labelledby) made the tab's own: ids are unique on a page
        blocks.append(_TITLE.sub(rf'="\1-{tab.key}-title"', page_html(fig, f"kb-figure-{name}-{tab.key}")))
    return tabbed(name, [t.label for t in found], [t.key for t in found], blocks)


def tabbed(name: str, labels: list[str], keys: list[str], blocks: list[str]) -> str:
    """pymdownx.tabbed's alternate-style tab set around ``blocks``, the first tab checked.

    Its radio group is named ``__tabbed_…`` as pymdownx's are: Material's page script then
    opens the tab a link's ``#`` names, as it does for every other tab.
    """
    group = f"__tabbed_kb-figure-{name}"
    inputs = "".join(f'<input{" checked" if i == 0 else ""} id="{group}-{key}" name="{group}" type="radio">'
                     for i, key in enumerate(keys))
    names = "".join(f'<label for="{group}-{key}">{html.escape(label)}</label>' for label, key in zip(labels, keys))
    content = "".join(f'<div class="tabbed-block">\n{block}</div>\n' for block in blocks)
    return (f'<div class="tabbed-set tabbed-alternate kb-figure-tabs" id="kb-figure-{name}" data-tabs="{name}:{len(keys)}">'
            f'{inputs}<div class="tabbed-labels">{names}</div>\n<div class="tabbed-content">\n{content}</div>\n</div>\n')
