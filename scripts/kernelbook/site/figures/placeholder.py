"""The drawing in place of a figure only one kind of device can measure, while the page shows another's capture. Pure.

A figure registered with ``FigureKind(..., device="cuda", subject={...})`` is drawn only
from CUDA captures. While the page shows a CPU capture of a snippet it needs (no GPU has
run it yet, or its GPU capture is stale), ``figures.figure`` draws this instead: a dashed
box naming what the figure shows and saying, as the claims' predictions do, that it is not
yet measured on a GPU. Nothing is drawn from the CPU's data, so the page never shows a CPU
rehearsal's numbers as if they answered a GPU question.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...common.records import Capture
from .base import Figure, FigureKind, need
from .strings import Strings
from .svg import FONT, SMALL, Layout, document, el, text, wrap

S = Strings({
    "en": {
        "needed_cuda": "Not yet measured on a GPU",
        "needed_cpu": "Not yet measured on a CPU",
        "device_cuda": "GPU (CUDA)",
        "device_cpu": "CPU",
        "why": "This figure is drawn only from a {device} capture of {snippets}, and there is none yet; "
        "the page shows a {shown} capture, which cannot measure it.",
        "alt": "{subject}: {needed}. {why}",
        "caption": "{subject}: not yet measured. This figure is drawn only from a {device} capture, and there is "
        "none yet; the example's {device} tab says how to make one.",
    },
    "ja": {
        "needed_cuda": "GPU ではまだ計測していません",
        "needed_cpu": "CPU ではまだ計測していません",
        "device_cuda": "GPU (CUDA)",
        "device_cpu": "CPU",
        "why": "この図は {snippets} の {device} でのキャプチャだけから描きますが、それはまだありません。"
        "このページが示しているのは {shown} でのキャプチャで、これでは測れません。",
        "alt": "{subject}は、{needed}。{why}",
        "caption": "{subject}は、まだ計測していません。この図は {device} でのキャプチャだけから描くもので、それはまだありません。"
        "キャプチャの作り方は、例の {device} のタブにあります。",
    },
})

PAD = 16.0


def elsewhere(kind: FigureKind, captures: Mapping[str, Capture]) -> dict[str, str]:
    """Snippet -> device, for the captures ``kind`` needs that ran on another device than its own
    (empty when it can be drawn). A needed capture that is missing is MissingCapture, as always."""
    if kind.device is None:
        return {}
    shown = {snippet: need(captures, snippet, kind.name).device for snippet in kind.needs}
    return {snippet: device for snippet, device in shown.items() if device != kind.device}


def inputs(kind: FigureKind, shown: Mapping[str, str]) -> dict:
    """What the placeholder is drawn from: the figure, its device, and where the shown captures ran."""
    return {"figure": kind.name, "device": kind.device, "shown": dict(sorted(shown.items()))}


def draw(kind: FigureKind, inputs: dict, lang: str, layout: Layout) -> Figure:
    device = inputs["device"]
    subject = kind.subject[lang]
    needed = S(lang, f"needed_{device}")
    shown_devices = sorted(set(inputs["shown"].values()))
    why = S(lang, "why", device=S(lang, f"device_{device}"), snippets=S.join(lang, list(inputs["shown"])),
            shown=S.join(lang, [S(lang, f"device_{d}") for d in shown_devices]))
    room = layout.width - 2 * PAD - 8
    body: list[str] = []
    y = PAD + 22
    for line in wrap(subject, room, FONT * 1.08):
        body.append(text(PAD + 4, y, line, cls="kb-bold"))
        y += 20
    y += 6
    for line in wrap(needed, room, 16):
        body.append(text(PAD + 4, y, line, cls="kb-big kb-accent kb-placeholder-needed"))
        y += 22
    y += 2
    for line in wrap(why, room, SMALL):
        body.append(text(PAD + 4, y, line, cls="kb-small kb-muted"))
        y += 18
    height = y + PAD - 4
    box = el("rect", cls="kb-ghost", x=2.0, y=2.0, width=layout.width - 4, height=height - 4, rx=6.0)
    alt = S(lang, "alt", subject=subject, needed=needed, why=why)
    caption = S(lang, "caption", subject=subject, needed=needed, device=S(lang, f"device_{device}"))
    data = {"placeholder": True, "device": device, "shown": inputs["shown"]}
    return Figure(kind.name, lang, (document(kind.name, lang, layout, height, alt, [box, *body]),), alt, caption, data)
