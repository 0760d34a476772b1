"""``[[kb:figure timeline]]``: one profiled call of each version on a shared time axis.

Drawn from the last profiling session of ``ch01/eager_profile`` and ``ch01/compiled_profile``:
CPU launches (or CPU ops) above, kernels below, one bar per launch.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...common.kernel_names import short_name
from ...common.records import Capture
from .axes import nice_step, tick_label
from .base import Figure, FigureKind, finite, need, register
from .strings import Strings
from .svg import FONT, SMALL, Layout, document, el, esc, fit, lines, num, text, title, width

NAME = "timeline"
EAGER_PROFILE = "ch01/eager_profile"
COMPILED_PROFILE = "ch01/compiled_profile"
NEEDS = (EAGER_PROFILE, COMPILED_PROFILE)

S = Strings({
    "en": {
        "l_eager": "eager: {kernels}",
        "l_compiled": "torch.compile: {kernels}",
        "l_lane_launch": "CPU launches",
        "l_lane_gpu": "GPU kernels",
        "l_lane_op": "CPU ops",
        "l_lane_cpu": "CPU kernels",
        "l_axis": "time since the profile started (µs)",
        "l_tip": "{name}: starts at {ts} µs, takes {dur} µs",
        "l_group_alt": "{title} ({names}), the last ending at {end} µs",
        "l_alt": "Timeline of one profiled call of each version on a shared time axis{device}. {groups}.",
        "l_caption": "One profiled call of each version on a shared time axis: eager launches {eager}, "
        "torch.compile launches {compiled}{device}.",
        "l_groups_sep": "; ",
    },
    "ja": {
        "l_eager": "イーガー版: {kernels}",
        "l_compiled": "torch.compile: {kernels}",
        "l_lane_launch": "CPU 起動",
        "l_lane_gpu": "GPU カーネル",
        "l_lane_op": "CPU 演算",
        "l_lane_cpu": "CPU カーネル",
        "l_axis": "プロファイル開始からの時間 (µs)",
        "l_tip": "{name}: 開始 {ts} µs、所要 {dur} µs",
        "l_group_alt": "{title} ({names})、最後のものは {end} µs に終了",
        "l_alt": "各版の 1 回の呼び出しを共通の時間軸に並べたタイムライン{device}。{groups}。",
        "l_caption": "各版の 1 回の呼び出しを共通の時間軸に並べたもの。イーガー版は{eager}、torch.compile は{compiled}"
        "を起動します{device}。",
        "l_groups_sep": "。",
    },
})


def inputs(captures: Mapping[str, Capture]) -> dict:
    return {"groups": [_group(captures, snippet) for snippet in NEEDS]}


def _group(captures: Mapping[str, Capture], snippet: str) -> dict:
    capture = need(captures, snippet, NAME)
    where = f"{snippet} ({capture.device})"
    session = capture.last_session
    if session is None:
        raise ValueError(f"figure 'timeline': the capture of {where} has no profiling session; re-run `kernelbook capture {snippet}`")
    cpu_kind = "launch" if session.device_kind == "cuda" else "op"
    events = []
    for e in session.events:
        if e.kind in ("kernel", cpu_kind):
            ts = finite(e.ts_us, f"figure 'timeline': {where}: event {e.name!r} start")
            dur = finite(e.dur_us, f"figure 'timeline': {where}: event {e.name!r} duration")
            events.append([e.kind, e.name, ts, dur])
    bars = sum(1 for e in events if e[0] == "kernel")
    if bars != session.launches:
        raise ValueError(
            f"figure 'timeline': the capture of {where} records {session.launches} kernel launches but "
            f"{bars} kernel events to draw; re-run `kernelbook capture --force {snippet}`"
        )
    return {
        "snippet": snippet,
        "device": capture.device,
        "device_kind": session.device_kind,
        "device_name": capture.environment.device_name,
        "launches": session.launches,
        "events": events,
    }


def _place_label(words: str, bar_x: float, lo: float, hi: float) -> tuple[str, float]:
    """Where a bar's label goes, between ``lo`` and ``hi``: at the bar if it fits, else moved
    left (a little, never before ``lo``), else shortened; ("", x) when nothing fits."""
    size = width(words, SMALL, mono=True)
    start = max(lo, min(bar_x, hi - size), bar_x - 48)
    if start + size <= hi:
        return words, start
    return _fit_name(words, hi - start), start


def _fit_name(name: str, room: float) -> str:
    """A kernel name cut to ``room``: keep its ``<Functor>`` tag, which says what it computes."""
    if width(name, SMALL, mono=True) <= room:
        return name
    cut = name.find("<")
    if cut > 3 and name.endswith(">"):
        base, tag = name[:cut], name[cut:]
        for n in range(len(base) - 1, 2, -1):
            short = base[:n] + "…" + tag
            if width(short, SMALL, mono=True) <= room:
                return short
    return fit(name, room, SMALL, mono=True)


def _us(value: float) -> str:
    return f"{value:,.1f}"


LANE_LABELS = 132.0  # room for "CPU launches" / "GPU kernels" left of the lanes, when the drawing has it
MIN_AXIS = 360.0  # the least time axis worth keeping the lane labels beside it for


def draw(inputs: dict, lang: str, layout: Layout) -> Figure:
    """Lanes with their labels at the left; on a phone, each label above its lane and the lanes full width."""
    groups = inputs["groups"]
    beside = layout.width - LANE_LABELS - 16 >= MIN_AXIS
    x0, x1 = (LANE_LABELS, layout.width - 16) if beside else (10.0, layout.width - 10)
    t_end = max((ts + dur for g in groups for _, _, ts, dur in g["events"]), default=0.0)
    step = nice_step(t_end or 1.0)
    axis_end = max(step, math.ceil(t_end / step - 1e-9) * step)
    scale = (x1 - x0) / axis_end

    group_h, bar_h, gap = 24.0, 18.0, 14.0
    lane_pitch = 42.0 if beside else 58.0  # a bar and its labels; on a phone, the lane's name above it too
    top = 6.0
    axis_y = top + len(groups) * (group_h + 2 * lane_pitch) + (len(groups) - 1) * gap + 4
    body: list[str] = []
    # grid first, under everything
    ticks = []
    t = 0.0
    while t <= axis_end + step * 1e-6:
        ticks.append(t)
        t += step
    body.append(el("path", cls="kb-grid", d=lines([(x0 + t * scale, top + 4, x0 + t * scale, axis_y) for t in ticks])))

    titles = ("l_eager", "l_compiled")
    y = top
    group_alts = []
    for gi, g in enumerate(groups):
        cuda = g["device_kind"] == "cuda"
        kernel_events = [e for e in g["events"] if e[0] == "kernel"]
        heading = S(lang, titles[min(gi, 1)], kernels=S.count(lang, "kernels", len(kernel_events)))
        body.append(f'<g class="kb-group" data-snippet="{esc(g["snippet"])}">')
        body.append(text(10, y + 16, heading, cls="kb-bold"))
        lanes = (
            (S(lang, "l_lane_launch" if cuda else "l_lane_op"), "launch" if cuda else "op", "kb-cpu-bar"),
            (S(lang, "l_lane_gpu" if cuda else "l_lane_cpu"), "kernel", "kb-kernel-bar"),
        )
        for li, (lane, kind, bar_cls) in enumerate(lanes):
            ly = y + group_h + li * lane_pitch + (0 if beside else 16)
            body.append(el("rect", cls="kb-band", x=x0, y=ly, width=x1 - x0, height=bar_h))
            if beside:
                body.append(text(10, ly + bar_h / 2 + 4.5, fit(lane, x0 - 16, FONT), cls="kb-lane-label"))
            else:
                body.append(text(x0, ly - 5, fit(lane, x1 - x0, FONT), cls="kb-lane-label"))
            evs = sorted((e for e in g["events"] if e[0] == kind), key=lambda e: (e[2], e[3]))
            free_from = x0  # labels in a lane never overlap: each starts after the last one ends
            for n, (_, name, ts, dur) in enumerate(evs):
                bx = x0 + ts * scale
                bw = max(dur * scale, 2.0)
                shown = short_name(name) if kind == "kernel" else name
                until = x0 + evs[n + 1][2] * scale - 8 if n + 1 < len(evs) else layout.width - 4.0
                label_text, lx = _place_label(shown, bx, free_from, until)
                tip = S(lang, "l_tip", name=name, ts=_us(ts), dur=_us(dur))
                parts = [title(tip), el("rect", cls=bar_cls, x=bx, y=ly, width=bw, height=bar_h, rx=2.0)]
                if label_text:
                    parts.append(text(lx, ly + bar_h + 15, label_text))  # small, monospace: the CSS's .kb-group g text
                    free_from = lx + width(label_text, SMALL, mono=True) + 12
                body.append(el("g", "".join(parts)))
        body.append("</g>")
        end = max((ts + dur for _, _, ts, dur in kernel_events), default=0.0)
        names = S.join(lang, [short_name(e[1]) for e in kernel_events])
        group_alts.append(S(lang, "l_group_alt", title=heading, names=names, end=_us(end)))
        y += group_h + 2 * lane_pitch + gap

    # the shared time axis
    segments = [(x0, axis_y, x1, axis_y)] + [(x0 + t * scale, axis_y, x0 + t * scale, axis_y + 5) for t in ticks]
    body.append(el("path", cls="kb-axis", d=lines(segments)))
    labels = []
    for t in ticks:
        gx = x0 + t * scale
        anchor = "start" if t == 0 else ("end" if gx > x1 - 20 else None)  # None: the group's middle
        labels.append(el("text", esc(tick_label(t, step)), x=gx, text_anchor=anchor))
    labels.append(text((x0 + x1) / 2, 20, S(lang, "l_axis")))
    body.append(el("g", "".join(labels), cls="kb-small", text_anchor="middle", transform=f"translate(0 {num(axis_y + 18)})"))
    height = axis_y + 46

    device = S.device_note(lang, groups)
    counts = [sum(1 for e in g["events"] if e[0] == "kernel") for g in groups]
    described = S.raw(lang, "l_groups_sep").join(group_alts)
    alt = S(lang, "l_alt", device=device, groups=described[:1].upper() + described[1:])
    caption = S(
        lang,
        "l_caption",
        eager=S.count(lang, "kernels", counts[0]),
        compiled=S.count(lang, "kernels", counts[-1]),
        device=device,
    )
    kinds = sorted({g["device"] for g in groups})
    data = {
        "eager_kernel_bars": counts[0],
        "compiled_kernel_bars": counts[-1],
        "device": kinds[0] if len(kinds) == 1 else "mixed",
        "sources": [f"{g['snippet']} ({g['device']})" for g in groups],
        "axis_us": axis_end,
    }
    return Figure(NAME, lang, (document(NAME, lang, layout, height, alt, body),), alt, caption, data)


register(FigureKind(NAME, needs=NEEDS, inputs=inputs, draw=draw))
