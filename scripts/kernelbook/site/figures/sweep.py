"""``[[kb:figure sweep]]``: time per call and effective bandwidth against tensor length.

Drawn from ``ch01/size_sweep``'s ``results`` (rows of elements, eager_s, compiled_s and,
when the run timed it, copy_s); the bytes each version moves come from the traffic table.
A plain copy timed the same way at every length is drawn as a third series, the yardstick
at each length (on a CPU the small arrays sit in caches, for the copy as for the others);
a capture with only ``copy_bandwidth_bytes_per_s`` gets that as a horizontal roof instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...common.records import Capture
from ..prose.units import format_bandwidth, format_seconds, format_si
from .axes import LogAxes
from .base import Figure, FigureKind, finite, register, rows_of, source
from .strings import Strings
from .svg import FONT, SMALL, Layout, Panel, arrange, document, el, marker, num, text, title, width
from .traffic import transfers

NAME = "sweep"
SIZE_SWEEP = "ch01/size_sweep"
COPY_ARRAYS = 2  # a copy into a new tensor reads one array and writes one
SERIES = ("eager", "compiled", "copy")

S = Strings({
    "en": {
        "s_time": "(a) time per call",
        "s_bw": "(b) effective bandwidth",
        "s_bw_sub": "bytes moved ÷ time",
        "s_x": "elements (log scale)",
        "s_eager": "eager",
        "s_compiled": "torch.compile",
        "s_copy": "plain copy",
        "s_roof": "copy bandwidth {bw}",
        "s_point_time": "{n} elements: {value}",  # tooltips: the marker's shape and colour say the series
        "s_point_bw": "{n} elements: {value} ({arrays} arrays moved)",
        "s_alt": "Two log–log charts over {k} tensor lengths from {lo} to {hi} elements{device}. Left: time per "
        "call; at {hi} elements eager took {eager_t} and torch.compile {compiled_t}. Right: effective "
        "bandwidth, counting {eager_arrays} arrays moved for eager and {fused_arrays} for compiled; at "
        "{hi} elements eager reached {eager_bw} and torch.compile {compiled_bw}{roof}.",
        "s_alt_roof": ", against a measured copy bandwidth of {bw}",
        "s_alt_copy": ", and a plain copy, timed the same way, {bw}",
        "s_caption": "Eager versus compiled (a + b).relu() from {lo} to {hi} elements: time per call, and the "
        "bandwidth each reaches if eager moves {eager_arrays} arrays and compiled {fused_arrays}{copy}{device}.",
        "s_caption_copy": ", beside a plain copy (2 arrays) timed the same way",
    },
    "ja": {
        "s_time": "(a) 1 回あたりの時間",
        "s_bw": "(b) 実効帯域幅",
        "s_bw_sub": "動かすバイト数 ÷ 時間",
        "s_x": "要素数 (対数目盛)",
        "s_eager": "イーガー版",
        "s_compiled": "torch.compile",
        "s_copy": "単純なコピー",
        "s_roof": "コピーの帯域幅 {bw}",
        "s_point_time": "{n} 要素: {value}",
        "s_point_bw": "{n} 要素: {value} (配列 {arrays} 本分)",
        "s_alt": "要素数 {lo} から {hi} までの {k} 通りの長さについての両対数グラフ 2 つ{device}。左: 1 回あたりの時間。"
        "{hi} 要素でイーガー版は {eager_t}、torch.compile は {compiled_t}。右: イーガー版は配列 {eager_arrays} 本分、"
        "コンパイル版は {fused_arrays} 本分を動かすとした実効帯域幅。{hi} 要素でイーガー版は {eager_bw}、"
        "torch.compile は {compiled_bw}{roof}。",
        "s_alt_roof": "。測定したコピーの帯域幅は {bw}",
        "s_alt_copy": "、同じ方法で測った単純なコピーは {bw}",
        "s_caption": "要素数 {lo} から {hi} までの、イーガー版とコンパイル版の (a + b).relu() の 1 回あたりの時間と、"
        "イーガー版が配列 {eager_arrays} 本分、コンパイル版が {fused_arrays} 本分を動かすとしたときの実効帯域幅{copy}{device}。",
        "s_caption_copy": "。比較のため、同じ方法で測った単純なコピー (配列 2 本分) も示す",
    },
})


def inputs(captures: Mapping[str, Capture]) -> dict:
    capture, where = source(captures, SIZE_SWEEP, NAME)
    data = capture.data
    captured = rows_of(capture, where)
    rows = []
    copies = all("copy_s" in row for row in captured)  # the copy timed at every length
    for i, row in enumerate(captured):
        rows.append(
            [
                finite(row.get("elements"), f"{where}: row {i} elements", positive=True),
                finite(row.get("eager_s"), f"{where}: row {i} eager_s", positive=True),
                finite(row.get("compiled_s"), f"{where}: row {i} compiled_s", positive=True),
            ]
            + ([finite(row.get("copy_s"), f"{where}: row {i} copy_s", positive=True)] if copies else [])
        )
    roof = None if copies else data.get("copy_bandwidth_bytes_per_s")
    return {
        "snippet": SIZE_SWEEP,
        "device": capture.device,
        "device_name": capture.environment.device_name,
        "bytes_per_element": finite(data.get("bytes_per_element", 4), f"{where}: bytes_per_element", positive=True),
        "copy_bandwidth_bytes_per_s": None if roof is None else finite(roof, f"{where}: copy bandwidth", positive=True),
        "rows": sorted(rows),
        "arrays": {"eager": transfers("eager"), "compiled": transfers("fused")} | ({"copy": COPY_ARRAYS} if copies else {}),
    }


def _roof_label_spot(axes: LogAxes, ry: float, size: float, series: Sequence[Sequence[tuple[float, float]]]) -> tuple[float, float]:
    """Where the roof's label sits: just above the line if it can, else below; the spot that
    crosses the fewest data points and lines (the label has a halo for when none is clear)."""
    left, right = axes.left + 6, max(axes.left + 6, axes.left + axes.width - 6 - size)
    xs = [left + (right - left) * i / 8 for i in range(9)]
    candidates = [(x, ry - 6) for x in xs] + [(x, ry + 17) for x in xs]
    inside = [(x, y) for x, y in candidates if y - SMALL >= axes.top - 6 and y + 3 <= axes.top + axes.height]
    samples = []
    for pts in series:
        samples += pts
        for (xa, ya), (xb, yb) in zip(pts, pts[1:]):
            samples += [(xa + (xb - xa) * i / 24, ya + (yb - ya) * i / 24) for i in range(1, 24)]

    def hits(spot: tuple[float, float]) -> int:
        x, y = spot
        return sum(1 for px, py in samples if x - 5 <= px <= x + size + 5 and y - SMALL - 4 <= py <= y + 6)

    return min(inside or candidates, key=hits)


def _plain(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


SHAPES = {"eager": "circle", "compiled": "square", "copy": "triangle"}


def _marker(series: str, x: float, y: float, content: str | None = None, **attrs: Any) -> str:
    """A dot (eager), a square (compiled) or a triangle (copy), filled by its series' group."""
    return marker(SHAPES[series], x, y, content, **attrs)


CHART_W = 340.0  # one chart: two side by side in the wide layout (with GAP), one under the other on a phone
GAP = 40.0


def draw(inputs: dict, lang: str, layout: Layout) -> Figure:
    rows = inputs["rows"]
    bpe = inputs["bytes_per_element"]
    roof = inputs["copy_bandwidth_bytes_per_s"]
    arrays = inputs["arrays"]
    ns = [r[0] for r in rows]
    series = [s for s in SERIES if s in arrays]
    times = {s: [r[1 + i] for r in rows] for i, s in enumerate(series)}
    bws = {s: [arrays[s] * n * bpe / t for n, t in zip(ns, times[s])] for s in times}
    names = {s: S(lang, f"s_{s}") for s in series}

    # legend, top left; on a phone the three series take two lines
    legend: list[str] = []
    lx, ly = 4.0, 14.0
    for one in series:
        item = 32 + width(names[one], FONT)
        if lx > 4.0 and lx + item > layout.width:
            lx, ly = 4.0, ly + 22
        sample = el("polyline", points=f"{num(lx)},{num(ly)} {num(lx + 24)},{num(ly)}")
        sample += _marker(one, lx + 12, ly)
        sample += text(lx + 32, ly + 4.5, names[one])
        legend.append(el("g", sample, cls=f"kb-{one}"))
        lx += item + 24
    charts = [
        _chart(lang, "time", S(lang, "s_time"), "", "seconds", times, ns, names, arrays, None),
        _chart(lang, "bandwidth", S(lang, "s_bw"), S(lang, "s_bw_sub"), "bandwidth", bws, ns, names, arrays, roof),
    ]
    drawn, charts_h = arrange(charts, layout.width, gap=GAP, row_gap=20.0)
    top = ly + 20
    body = legend + [el("g", drawn, transform=f"translate(0 {num(top)})")]
    height = top + charts_h + 4

    device = S.device_note(lang, [inputs])
    lo, hi = f"{ns[0]:,.0f}", f"{ns[-1]:,.0f}"
    alt = S(
        lang,
        "s_alt",
        k=len(rows),
        lo=lo,
        hi=hi,
        device=device,
        eager_t=format_seconds(times["eager"][-1], 3),
        compiled_t=format_seconds(times["compiled"][-1], 3),
        eager_arrays=arrays["eager"],
        fused_arrays=arrays["compiled"],
        eager_bw=format_bandwidth(bws["eager"][-1]),
        compiled_bw=format_bandwidth(bws["compiled"][-1]),
        roof=(S(lang, "s_alt_roof", bw=format_bandwidth(roof)) if roof
              else S(lang, "s_alt_copy", bw=format_bandwidth(bws["copy"][-1])) if "copy" in bws else ""),
    )
    caption = S(lang, "s_caption", lo=lo, hi=hi, eager_arrays=arrays["eager"], fused_arrays=arrays["compiled"], device=device,
                copy=S(lang, "s_caption_copy") if "copy" in bws else "")
    data = {
        "points": len(rows),
        "roof_gbs": round(roof / 1e9, 3) if roof else None,
        "device": inputs["device"],
        "source": f"{inputs['snippet']} ({inputs['device']})",
        "series": series,
        "bytes_moved_per_element": {s: _plain(arrays[s] * bpe) for s in series},
    }
    return Figure(NAME, lang, (document(NAME, lang, layout, height, alt, body),), alt, caption, data)


def _chart(lang: str, chart: str, heading: str, subtitle: str, ykind: str, values: dict[str, list[float]],
           ns: list[float], names: dict[str, str], arrays: dict[str, int], roof: float | None) -> Panel:
    """One log–log chart, heading and x-axis label included, :data:`CHART_W` wide."""
    top, plot_h, left = 28.0, 196.0, 70.0
    ys = [v for series in values.values() for v in series] + ([roof, roof * 2.5] if roof else [])
    axes = LogAxes(left, top, CHART_W - left - 8, plot_h, ns, ys)
    body = [f'<g class="kb-chart" data-chart="{chart}">', text(4, 16, heading, cls="kb-bold")]
    if subtitle:
        body.append(text(axes.left + axes.width, 16, subtitle, cls="kb-small kb-muted", text_anchor="end"))
    body += axes.frame("elements", ykind)
    points = {series: [(axes.x(n), axes.y(v)) for n, v in zip(ns, values[series])] for series in values}
    if roof:
        ry = axes.y(roof)
        label = S(lang, "s_roof", bw=format_bandwidth(roof))
        body.append(el("line", cls="kb-roof", x1=axes.left, y1=ry, x2=axes.left + axes.width, y2=ry))
        lx, ly = _roof_label_spot(axes, ry, width(label, SMALL), list(points.values()))
        body.append(text(lx, ly, label, cls="kb-small kb-roof-label"))
    for series in values:
        pts = points[series]
        parts = [el("polyline", points=" ".join(f"{num(px)},{num(py)}" for px, py in pts))]
        for (px, py), n, v in zip(pts, ns, values[series]):
            value = format_seconds(v, 3) if chart == "time" else format_si(v, "B/s")
            key = "s_point_time" if chart == "time" else "s_point_bw"
            tip = S(lang, key, series=names[series], n=f"{n:,.0f}", value=value, arrays=arrays[series])
            # the marker is the point: its <title> is the tooltip
            parts.append(_marker(series, px, py, title(tip), cls="kb-point", data_series=series, data_elements=f"{n:.0f}"))
        body.append(el("g", "".join(parts), cls=f"kb-{series}"))
    body.append(text(axes.left + axes.width / 2, top + plot_h + 40, S(lang, "s_x"), cls="kb-small", text_anchor="middle"))
    body.append("</g>")
    return Panel(CHART_W, top + plot_h + 46, "".join(body))


register(FigureKind(NAME, needs=(SIZE_SWEEP,), inputs=inputs, draw=draw))
