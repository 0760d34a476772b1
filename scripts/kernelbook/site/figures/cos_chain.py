"""``[[kb:figure cos_chain]]``: kernels launched and time per call of ``x.cos()`` applied k times.

Drawn from ``ch02/cos_chain``: the kernel counts are the launches of its profiling sessions,
matched to eager or compiled and to k by ``results.sessions`` (one ``{"mode", "k"}`` per
session, in order), not by fixed positions; the times are ``results.rows`` (``eager_s``,
``compiled_s`` per k).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...common.records import Capture
from ..prose.units import format_seconds
from .axes import LinearAxes, linear_ticks, tick_label
from .base import Figure, FigureKind, finite, register, source
from .strings import Strings
from .svg import FONT, Layout, Panel, arrange, document, el, marker, num, text, title, width

NAME = "cos_chain"
COS_CHAIN = "ch02/cos_chain"
MODES = ("eager", "compiled")
SHAPES = {"eager": "circle", "compiled": "square"}
UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))

S = Strings({
    "en": {
        "eager": "eager",
        "compiled": "torch.compile",
        "launches": "(a) kernels per call",
        "time": "(b) time per call ({unit})",
        "x": "k (cosines in a row)",
        "tip_launches": "k = {k}: {count}",
        "tip_time": "k = {k}: {t}",
        "alt": "Two charts of x.cos() applied k times, for k = {ks}{device}. Left: kernels one call launched, "
        "eager: {eager_n}; torch.compile: {compiled_n}. Right: time per call, eager from {e0} at k = {k0} to {e1} at "
        "k = {k1}; torch.compile from {c0} to {c1}.",
        "caption": "x.cos() applied k times, eager and compiled{device}: the kernels one profiled call launched, and "
        "the time per call.",
    },
    "ja": {
        "eager": "イーガー版",
        "compiled": "torch.compile",
        "launches": "(a) 1 回あたりのカーネル数",
        "time": "(b) 1 回あたりの時間 ({unit})",
        "x": "k (続けて適用する cos の回数)",
        "tip_launches": "k = {k}: {count}",
        "tip_time": "k = {k}: {t}",
        "alt": "x.cos() を k 回適用したときのグラフ 2 つ。k = {ks}{device}。左: 1 回の呼び出しで起動されたカーネル数は、"
        "イーガー版が {eager_n}、torch.compile が {compiled_n}。右: 1 回あたりの時間は、イーガー版が k = {k0} の {e0} から "
        "k = {k1} の {e1} まで、torch.compile が {c0} から {c1} まで。",
        "caption": "x.cos() を k 回適用したときの、イーガー版とコンパイル版それぞれの、プロファイルした 1 回の呼び出しが起動した"
        "カーネル数と 1 回あたりの時間{device}。",
    },
})


def inputs(captures: Mapping[str, Capture]) -> dict:
    capture, where = source(captures, COS_CHAIN, NAME)
    data = capture.data
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list) and data[k] for k in ("ks", "sessions", "rows")):
        raise ValueError(f"{where}: the capture has no ks, sessions and rows; re-run `kernelbook capture --force {COS_CHAIN}`")
    if len(data["sessions"]) != len(capture.sessions):
        raise ValueError(f"{where}: results.sessions names {len(data['sessions'])} profiling session(s) "
                         f"but the capture recorded {len(capture.sessions)}")
    ks = [int(finite(k, f"{where}: ks", positive=True)) for k in data["ks"]]
    launches: dict[str, dict[int, int]] = {mode: {} for mode in MODES}
    for i, (meta, session) in enumerate(zip(data["sessions"], capture.sessions)):
        mode, k = (meta.get("mode"), meta.get("k")) if isinstance(meta, dict) else (None, None)
        if mode not in MODES or k not in ks or k in launches[mode]:
            raise ValueError(f"{where}: results.sessions[{i}] is {meta!r}; expected each of {', '.join(MODES)} "
                             f"once for every k in {ks}")
        launches[mode][k] = session.launches
    times: dict[str, dict[int, float]] = {mode: {} for mode in MODES}
    for i, row in enumerate(data["rows"]):
        k = row.get("k") if isinstance(row, dict) else None
        if k not in ks:
            raise ValueError(f"{where}: rows[{i}] has k {k!r}, not one of {ks}")
        for mode in MODES:
            times[mode][k] = finite(row.get(f"{mode}_s"), f"{where}: rows[{i}] {mode}_s", positive=True)
    missing = [(mode, k) for mode in MODES for k in ks if k not in launches[mode] or k not in times[mode]]
    if missing:
        raise ValueError(f"{where}: no session or row for {missing}")
    return {
        "snippet": COS_CHAIN,
        "device": capture.device,
        "device_name": capture.environment.device_name,
        "ks": ks,
        "launches": {mode: [launches[mode][k] for k in ks] for mode in MODES},
        "times": {mode: [times[mode][k] for k in ks] for mode in MODES},
    }


def time_unit(seconds: float) -> tuple[float, str]:
    """The unit the time axis counts in: the largest that keeps its top value at 1 or more."""
    return next(((f, u) for f, u in UNITS if seconds >= f), UNITS[-1])


CHART_W = 340.0  # two charts side by side in the wide layout (with GAP), one under the other on a phone
GAP = 40.0


def draw(inputs: dict, lang: str, layout: Layout) -> Figure:
    ks, launches, times = inputs["ks"], inputs["launches"], inputs["times"]
    names = {mode: S(lang, mode) for mode in MODES}

    legend: list[str] = []
    lx, ly = 4.0, 14.0
    for mode in MODES:
        item = 32 + width(names[mode], FONT)
        sample = el("polyline", points=f"{num(lx)},{num(ly)} {num(lx + 24)},{num(ly)}") + marker(SHAPES[mode], lx + 12, ly)
        legend.append(el("g", sample + text(lx + 32, ly + 4.5, names[mode]), cls=f"kb-{mode}"))
        lx += item + 24

    factor, unit = time_unit(max(max(t) for t in times.values()))
    charts = [
        _chart(lang, "launches", S(lang, "launches"), ks, {m: [float(n) for n in launches[m]] for m in MODES},
               lambda k, v: S(lang, "tip_launches", k=k, count=S.count(lang, "kernels", int(v)))),
        _chart(lang, "time", S(lang, "time", unit=unit), ks, {m: [t / factor for t in times[m]] for m in MODES},
               lambda k, v: S(lang, "tip_time", k=k, t=format_seconds(v * factor, 3))),
    ]
    drawn, charts_h = arrange(charts, layout.width, gap=GAP, row_gap=20.0)
    top = ly + 20
    body = legend + [el("g", drawn, transform=f"translate(0 {num(top)})")]
    height = top + charts_h + 4

    device = S.device_note(lang, [inputs])
    sep = S.raw(lang, "list_sep")
    alt = S(lang, "alt", ks=sep.join(map(str, ks)), device=device,
            eager_n=sep.join(map(str, launches["eager"])), compiled_n=sep.join(map(str, launches["compiled"])),
            k0=ks[0], k1=ks[-1], e0=format_seconds(times["eager"][0], 3), e1=format_seconds(times["eager"][-1], 3),
            c0=format_seconds(times["compiled"][0], 3), c1=format_seconds(times["compiled"][-1], 3))
    caption = S(lang, "caption", device=device)
    data = {
        "ks": ks,
        "launches": launches,
        "time_unit": unit,
        "device": inputs["device"],
        "source": f"{inputs['snippet']} ({inputs['device']})",
    }
    return Figure(NAME, lang, (document(NAME, lang, layout, height, alt, body),), alt, caption, data)


def _chart(lang: str, chart: str, heading: str, ks: list[int], values: dict[str, list[float]],
           tip: Callable[[int, float], str]) -> Panel:
    """One chart against k, linear axes from 0, :data:`CHART_W` wide, heading and x label included."""
    top, plot_h, left = 28.0, 180.0, 44.0
    yticks = linear_ticks(max(max(v) for v in values.values()), 4)
    step = yticks[1] - yticks[0]
    axes = LinearAxes(left, top, CHART_W - left - 10, plot_h, 0.0, float(max(ks)), 0.0, yticks[-1], xpad=0.5)
    body = [f'<g class="kb-chart" data-chart="{chart}">', text(4, 16, heading, cls="kb-bold")]
    body += axes.frame([(k, str(k)) for k in ks], [(v, tick_label(v, step)) for v in yticks])
    for mode in MODES:
        pts = [(axes.x(k), axes.y(v)) for k, v in zip(ks, values[mode])]
        parts = [el("polyline", points=" ".join(f"{num(px)},{num(py)}" for px, py in pts))]
        for (px, py), k, v in zip(pts, ks, values[mode]):
            parts.append(marker(SHAPES[mode], px, py, title(tip(k, v)), cls="kb-point", data_series=mode, data_k=k))
        body.append(el("g", "".join(parts), cls=f"kb-{mode}"))
    body.append(text(axes.left + axes.width / 2, top + plot_h + 40, S(lang, "x"), cls="kb-small", text_anchor="middle"))
    body.append("</g>")
    return Panel(CHART_W, top + plot_h + 46, "".join(body))


register(FigureKind(NAME, needs=(COS_CHAIN,), inputs=inputs, draw=draw))
