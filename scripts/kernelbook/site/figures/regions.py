"""``[[kb:figure regions]]``: a graph break on a timeline, and the same function without it.

Drawn from ``ch03/graph_break``: its profiling session 0 (``clip_relu``, a data-dependent
``if`` in the middle) and session 1 (``clip_relu_fixed``, ``torch.where`` instead), each
one call of the compiled function. Per session, from the session's events
(``capture/kernels.py``): the compiled regions (``Torch-Compiled Region: F/C``; a region
inside another is drawn one row lower), the calls of inductor's code (``## Call
CompiledFxGraph … ##``, numbered "graph 1", "graph 2" in time order), the kernels, and
the ``aten::`` ops a region ran outside its graph calls (the Python between the graphs).
Each session has a time axis of its own, from its own start. The number of regions drawn
must equal the number the snippet counted itself (``results[...]["compiled_regions"]``),
which the prose checks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...common.kernel_names import short_name
from ...common.records import Capture
from .axes import nice_step, tick_label
from .base import Figure, FigureKind, finite, register, source
from .strings import Strings
from .svg import FONT, SMALL, Layout, document, el, esc, fit, lines, num, text, title, width, wrap

NAME = "regions"
GRAPH_BREAK = "ch03/graph_break"
PARTS = ("broken", "fixed")  # results keys, one per profiling session in this order
REGION_PREFIX = "Torch-Compiled Region: "
LANES = ("region", "graph", "kernel", "eager")

S = Strings({
    "en": {
        "r_heading": "{function}: {regions}, {breaks}",
        "regions_1": "1 compiled region",
        "regions_n": "{n} compiled regions",
        "breaks_1": "1 graph break",
        "breaks_n": "{n} graph breaks",
        "graphs_1": "1 graph call",
        "graphs_n": "{n} graph calls",
        "r_lane_region": "compiled regions",
        "r_lane_graph": "inductor graphs",
        "r_lane_kernel_cpu": "CPU kernels",
        "r_lane_kernel_cuda": "GPU kernels",
        "r_lane_eager": "ops between graphs",
        "r_graph": "graph {n}",
        "r_axis": "time since the profile started (µs)",
        "r_tip": "{name}: starts at {ts} µs, takes {dur} µs",
        "r_inside": "{inner} inside {outer}",
        "r_between": "with {ops} between its graphs",
        "r_nothing": "with nothing between graphs",
        "r_names_sep": "; ",
        "r_panel_alt": "{function}: {regions} ({names}), {graphs}, {kernels} ({kernel_names}), {between}",
        "r_alt": "Timelines of one profiled call of each compiled function, each on its own time axis{device}. {panels}.",
        "r_caption": "One profiled call of each compiled function: {panels}{device}.",
        "r_panel_caption": "{function} runs as {regions}, {between}",
        "r_sep": "; ",
    },
    "ja": {
        "r_heading": "{function}: {regions}、{breaks}",
        "regions_1": "コンパイル済み領域 1 個",
        "regions_n": "コンパイル済み領域 {n} 個",
        "breaks_1": "グラフブレーク 1 個",
        "breaks_n": "グラフブレーク {n} 個",
        "graphs_1": "グラフの呼び出し 1 回",
        "graphs_n": "グラフの呼び出し {n} 回",
        "r_lane_region": "コンパイル済み領域",
        "r_lane_graph": "inductor のグラフ",
        "r_lane_kernel_cpu": "CPU カーネル",
        "r_lane_kernel_cuda": "GPU カーネル",
        "r_lane_eager": "グラフ間の演算",
        "r_graph": "グラフ {n}",
        "r_axis": "プロファイル開始からの時間 (µs)",
        "r_tip": "{name}: 開始 {ts} µs、所要 {dur} µs",
        "r_inside": "{inner} は {outer} の内側",
        "r_between": "グラフのあいだで {ops} が動きます",
        "r_nothing": "グラフのあいだには何もありません",
        "r_names_sep": "、",
        "r_panel_alt": "{function}: {regions} ({names})、{graphs}、{kernels} ({kernel_names})、{between}",
        "r_alt": "コンパイルした各関数の 1 回の呼び出しのタイムライン。時間軸はそれぞれ別{device}。{panels}。",
        "r_caption": "コンパイルした各関数の 1 回の呼び出し。{panels}{device}。",
        "r_panel_caption": "{function} は{regions}で実行され、{between}",
        "r_sep": "。",
    },
})


def inputs(captures: Mapping[str, Capture]) -> dict:
    capture, where = source(captures, GRAPH_BREAK, NAME)
    data = capture.data if isinstance(capture.data, dict) else {}
    if len(capture.sessions) != len(PARTS):
        raise ValueError(f"{where}: expected {len(PARTS)} profiling sessions ({', '.join(PARTS)}), found {len(capture.sessions)}; "
                         f"re-run `kernelbook capture --force {GRAPH_BREAK}`")
    panels = []
    for part, session in zip(PARTS, capture.sessions):
        results = data.get(part)
        if not isinstance(results, dict) or not isinstance(results.get("function"), str):
            raise ValueError(f"{where}: results[{part!r}] with the function's name is missing; re-run `kernelbook capture --force {GRAPH_BREAK}`")
        events: dict[str, list] = {lane: [] for lane in LANES}
        for e in session.events:
            if e.kind in events:
                ts = finite(e.ts_us, f"{where}: session {session.index} event {e.name!r} start")
                dur = finite(e.dur_us, f"{where}: session {session.index} event {e.name!r} duration")
                events[e.kind].append([e.name, ts, dur])
        for lane in LANES:
            events[lane].sort(key=lambda e: (e[1], -e[2]))
        if not events["region"]:
            raise ValueError(f"{where}: session {session.index} records no compiled regions (a capture made before kernelbook "
                             f"kept them?); re-run `kernelbook capture --force {GRAPH_BREAK}`")
        counted = results.get("compiled_regions")
        if counted != len(events["region"]):
            raise ValueError(f"{where}: session {session.index} holds {len(events['region'])} compiled regions but the snippet "
                             f"counted {counted!r} (results[{part!r}]['compiled_regions']); re-run `kernelbook capture --force {GRAPH_BREAK}`")
        if len(events["kernel"]) != session.launches:
            raise ValueError(f"{where}: session {session.index} records {session.launches} kernel launches but "
                             f"{len(events['kernel'])} kernel events; re-run `kernelbook capture --force {GRAPH_BREAK}`")
        panels.append({
            "function": results["function"],
            "graph_breaks": int(finite(results.get("graph_break_count"), f"{where}: results[{part!r}]['graph_break_count']")),
            "events": events,
        })
    return {
        "snippet": GRAPH_BREAK,
        "device": capture.device,
        "device_name": capture.environment.device_name,
        "device_kind": capture.sessions[0].device_kind,
        "panels": panels,
    }


def depths(regions: list[list]) -> list[int]:
    """How many other regions each region lies inside: the row it is drawn in."""
    out = []
    for i, (_, ts, dur) in enumerate(regions):
        out.append(sum(1 for j, (_, ots, odur) in enumerate(regions)
                       if j != i and ots <= ts and ts + dur <= ots + odur and (ots, -odur) < (ts, -dur)))
    return out


def _us(value: float) -> str:
    return f"{value:,.1f}"


SHIFT = 60.0  # how far left of its bar a label may start, to fit before the drawing's edge


def _labels(items: list[tuple[float, str]], right: float, rows: int = 2) -> list[tuple[float, int, str]]:
    """Labels under bars, (x, row, text): each at its bar's x (or up to SHIFT left of it, to end
    before ``right``), in the first row where it clears the label before it; cut with an
    ellipsis where no row has room."""
    ends = [float("-inf")] * rows
    placed = []
    for x, words in items:
        size = width(words, SMALL, mono=True)
        spots = [(r, max(ends[r] + 10, min(x, right - size), x - SHIFT)) for r in range(rows)]
        row, start = next(((r, at) for r, at in spots if at + size <= right and at <= x), min(spots, key=lambda s: s[1]))
        words = fit(words, right - start, SMALL, mono=True)
        if words:
            placed.append((start, row, words))
            ends[row] = start + width(words, SMALL, mono=True)
    return placed


LANE_LABELS = 172.0  # room for the lane names left of the lanes, when the drawing has it
MIN_AXIS = 360.0  # the least time axis worth keeping the lane names beside it for
BAR = 18.0


def axis_of(panel: dict) -> tuple[float, float]:
    """A panel's time axis: its tick step and its end (µs), past the last thing it draws."""
    t_end = max(ts + dur for lane in LANES for _, ts, dur in panel["events"][lane])
    step = nice_step(t_end or 1.0)
    return step, max(step, math.ceil(t_end / step - 1e-9) * step)


def draw(inputs: dict, lang: str, layout: Layout) -> Figure:
    """Per function, a heading, four lanes and a time axis of its own (a busy CPU can make one
    call a hundred times slower than the other: on one scale the faster would be a sliver);
    lane names left of the lanes, or above them on a phone."""
    panels = inputs["panels"]
    cuda = inputs["device_kind"] == "cuda"
    beside = layout.width - LANE_LABELS - 16 >= MIN_AXIS
    x0, x1 = (LANE_LABELS, layout.width - 16) if beside else (10.0, layout.width - 10)
    lane_names = {"region": S(lang, "r_lane_region"), "graph": S(lang, "r_lane_graph"),
                  "kernel": S(lang, "r_lane_kernel_cuda" if cuda else "r_lane_kernel_cpu"), "eager": S(lang, "r_lane_eager")}

    body: list[str] = []
    y = 6.0
    panel_alts, panel_captions, axes = [], [], []
    for panel in panels:
        ev = panel["events"]
        step, axis_end = axis_of(panel)
        axes.append(axis_end)
        scale = (x1 - x0) / axis_end
        rows = depths(ev["region"])
        regions_words = S.count(lang, "regions", len(ev["region"]))
        heading = S(lang, "r_heading", function=panel["function"], regions=regions_words,
                    breaks=S.count(lang, "breaks", panel["graph_breaks"]))
        body.append(f'<g class="kb-group kb-regions-panel" data-function="{esc(panel["function"])}" data-axis-us="{axis_end:g}">')
        for line in wrap(heading, layout.width - 20, FONT * 1.08):
            body.append(text(10, y + 16, line, cls="kb-bold"))
            y += 20
        y += 8
        grid_top = y
        for lane in LANES:
            if not beside:
                body.append(text(x0, y + 12, fit(lane_names[lane], x1 - x0, FONT), cls="kb-lane-label"))
                y += 18
            lane_rows = max(rows) + 1 if lane == "region" else 1
            lane_h = lane_rows * (BAR + 4) - 4
            body.append(el("rect", cls="kb-band", x=x0, y=y, width=x1 - x0, height=lane_h))
            if beside:
                body.append(text(10, y + lane_h / 2 + 4.5, fit(lane_names[lane], x0 - 16, FONT), cls="kb-lane-label"))
            under = []  # (x, words) labels under the bars of this lane
            for n, (name, ts, dur) in enumerate(ev[lane]):
                bx, bw = x0 + ts * scale, max(dur * scale, 2.0)
                by = y + (rows[n] * (BAR + 4) if lane == "region" else 0)
                tip = title(S(lang, "r_tip", name=name, ts=_us(ts), dur=_us(dur)))
                bar = el("rect", cls=BAR_CLASS[lane], x=bx, y=by, width=bw, height=BAR, rx=2.0, data_ts=f"{ts:g}", data_dur=f"{dur:g}")
                if lane in ("region", "graph"):
                    inside = name.removeprefix(REGION_PREFIX) if lane == "region" else S(lang, "r_graph", n=n + 1)
                    words = fit(inside, bw - 8, SMALL, mono=True)
                    label = text(bx + 4, by + BAR / 2 + 4.5, words) if words else ""
                    body.append(el("g", tip + bar + label, cls=f"kb-{lane}"))
                else:
                    body.append(el("g", tip + bar, cls=f"kb-{lane}"))
                    under.append((bx, short_name(name)))
            label_rows = 0
            for lx, row, words in _labels(under, layout.width - 4.0):
                body.append(text(lx, y + lane_h + 14 + row * 15, words, cls="kb-small kb-mono"))
                label_rows = max(label_rows, row + 1)
            y += lane_h + 8 + label_rows * 15
        # this panel's time axis, and its grid through its lanes
        ticks = [i * step for i in range(int(round(axis_end / step)) + 1)]
        body.append(el("path", cls="kb-grid", d=lines([(x0 + t * scale, grid_top, x0 + t * scale, y) for t in ticks])))
        segments = [(x0, y, x1, y)] + [(x0 + t * scale, y, x0 + t * scale, y + 5) for t in ticks]
        body.append(el("path", cls="kb-axis", d=lines(segments)))
        labels = []
        for t in ticks:
            gx = x0 + t * scale
            anchor = "start" if t == 0 else ("end" if gx > x1 - 20 else None)
            labels.append(el("text", esc(tick_label(t, step)), x=gx, text_anchor=anchor))
        labels.append(text((x0 + x1) / 2, 20, S(lang, "r_axis")))
        body.append(el("g", "".join(labels), cls="kb-small", text_anchor="middle", transform=f"translate(0 {num(y + 18)})"))
        body.append("</g>")
        y += 46 + 18

        nested = [S(lang, "r_inside", inner=name.removeprefix(REGION_PREFIX),
                    outer=next(o.removeprefix(REGION_PREFIX) for o, ots, odur in ev["region"] if o != name and ots <= ts and ts + dur <= ots + odur))
                  for (name, ts, dur), depth in zip(ev["region"], rows) if depth]
        names = S.join(lang, [n.removeprefix(REGION_PREFIX) for n, _, _ in ev["region"]])
        names += "".join(S.raw(lang, "r_names_sep") + words for words in nested)
        eager = [e[0] for e in ev["eager"]]
        between = S(lang, "r_between", ops=S.join(lang, eager)) if eager else S(lang, "r_nothing")
        panel_alts.append(S(lang, "r_panel_alt", function=panel["function"], regions=regions_words, names=names,
                            graphs=S.count(lang, "graphs", len(ev["graph"])), kernels=S.count(lang, "kernels", len(ev["kernel"])),
                            kernel_names=S.join(lang, [short_name(k[0]) for k in ev["kernel"]]), between=between))
        panel_captions.append(S(lang, "r_panel_caption", function=panel["function"], regions=regions_words, between=between))
    height = y - 18

    device = S.device_note(lang, [inputs])
    sep = S.raw(lang, "r_sep")
    alt = S(lang, "r_alt", device=device, panels=sep.join(panel_alts))
    caption = S(lang, "r_caption", device=device, panels=sep.join(panel_captions))
    data = {
        "device": inputs["device"],
        "source": f"{inputs['snippet']} ({inputs['device']})",
        "panels": [{"function": p["function"], "regions": len(p["events"]["region"]), "region_rows": depths(p["events"]["region"]),
                    "graphs": len(p["events"]["graph"]), "kernels": len(p["events"]["kernel"]),
                    "between": [e[0] for e in p["events"]["eager"]], "axis_us": axis}
                   for p, axis in zip(panels, axes)],
    }
    return Figure(NAME, lang, (document(NAME, lang, layout, height, alt, body),), alt, caption, data)


BAR_CLASS = {"region": "kb-region-bar", "graph": "kb-graph-bar", "kernel": "kb-kernel-bar", "eager": "kb-cpu-bar"}


register(FigureKind(NAME, needs=(GRAPH_BREAK,), inputs=inputs, draw=draw))
