"""``[[kb:figure add_relu_bandwidth]]`` and ``[[kb:figure softmax_bandwidth]]``: achieved
bandwidth against size, one line per version, and a plain copy timed the same way beside them.

Drawn from a CUDA capture only (``FigureKind(device="cuda")``): the snippets time nothing on
a CPU, where Triton's interpreter runs the kernels. Each row of the snippet's ``results``
holds ``<version>_bytes_per_s``, the bytes that version must move at the least over its
median time, as the snippet computed it; the figure draws those numbers as they are, on a
log x axis (the size) and a linear y axis from 0 (bandwidth near the copy's roof reads
better there than on a log scale).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...common.records import Capture
from ..prose.units import format_bandwidth
from .axes import LinearY
from .base import Figure, FigureKind, finite, register, rows_of, source
from .strings import Strings
from .svg import FONT, Layout, document, el, num, text, title, width

# Each version's look: the class that colours it and its marker's shape.
STYLE = {
    "eager": ("kb-eager", "circle"), "naive": ("kb-eager", "circle"), "torch": ("kb-library", "down"),
    "compiled": ("kb-compiled", "square"), "triton": ("kb-triton", "diamond"), "copy": ("kb-copy", "up"),
}

S = Strings({
    "en": {
        "v_eager": "eager",
        "v_naive": "naive (5 ops, eager)",
        "v_torch": "torch.softmax",
        "v_compiled": "torch.compile",
        "v_triton": "your Triton kernel",
        "v_copy": "plain copy",
        "y_title": "achieved bandwidth",
        "x_elements": "elements (log scale)",
        "x_n_cols": "columns per row (log scale), {rows} rows",
        "point": "{x}: {value}",
        "at": "{value} at {x}",
        "alt": "Line chart of achieved bandwidth (the least bytes each version must move, over its median time) "
        "against {what}, from {lo} to {hi}{device}. At {hi}: {values}.",
        "what_elements": "the number of elements",
        "what_n_cols": "the number of columns of a {rows}-row matrix",
        "caption_add_relu": "Achieved bandwidth of add+relu from {lo} to {hi} elements: the three versions counted "
        "as moving 3 arrays (read a, read b, write the result), the plain copy 2, over the median time{device}.",
        "caption_softmax": "Achieved bandwidth of softmax over {rows} rows of {lo} to {hi} columns: every version "
        "counted as reading x once and writing the result once, as the plain copy does, over the median time{device}.",
    },
    "ja": {
        "v_eager": "イーガー版",
        "v_naive": "素朴な版 (5 演算、イーガーモード)",
        "v_torch": "torch.softmax",
        "v_compiled": "torch.compile",
        "v_triton": "自分の Triton カーネル",
        "v_copy": "単純なコピー",
        "y_title": "実効帯域幅",
        "x_elements": "要素数 (対数目盛)",
        "x_n_cols": "1 行の列数 (対数目盛)、{rows} 行",
        "point": "{x}: {value}",
        "at": "{x} で {value}",
        "alt": "実効帯域幅 (各版が最低限動かすバイト数を時間の中央値で割ったもの) を{what}に対して描いた折れ線グラフ。"
        "{lo} から {hi} まで{device}。{hi} では {values}。",
        "what_elements": "要素数",
        "what_n_cols": "{rows} 行の行列の列数",
        "caption_add_relu": "要素数 {lo} から {hi} までの add+relu の実効帯域幅。3 つの版は配列 3 本分 (a を読む、b を読む、"
        "結果を書く)、単純なコピーは 2 本分を動かすとして、時間の中央値で割ったもの{device}。",
        "caption_softmax": "{rows} 行、{lo} 列から {hi} 列までの softmax の実効帯域幅。どの版も単純なコピーと同じく x を 1 回読み"
        "結果を 1 回書くとして、時間の中央値で割ったもの{device}。",
    },
})


@dataclass(frozen=True)
class Spec:
    """One bandwidth figure: where its rows come from and what they are rows of."""

    name: str
    snippet: str
    x_key: str  # "elements" or "n_cols"
    versions: tuple[str, ...]  # drawn in this order, the copy last
    caption: str  # a key of S
    subject: dict[str, str]  # what it shows, for the placeholder without a GPU capture (figures/placeholder.py)
    rows_key: str | None = None  # a fixed count across the rows ("n_rows"), said on the x axis


ADD_RELU = Spec("add_relu_bandwidth", "ch04/add_relu_bandwidth", "elements", ("eager", "compiled", "triton", "copy"), "caption_add_relu",
                {"en": "Achieved bandwidth of add+relu (eager, torch.compile, your Triton kernel, a plain copy) against length",
                 "ja": "add+relu の実効帯域幅 (イーガー版、torch.compile、自分の Triton カーネル、単純なコピー) を長さに対して描いた図"})
SOFTMAX = Spec("softmax_bandwidth", "ch04/fused_softmax", "n_cols", ("naive", "torch", "compiled", "triton", "copy"), "caption_softmax",
               {"en": "Achieved bandwidth of softmax (naive, torch.softmax, torch.compile, your Triton kernel, a plain copy) "
                      "against row length",
                "ja": "softmax の実効帯域幅 (素朴な版、torch.softmax、torch.compile、自分の Triton カーネル、単純なコピー) を"
                      "行の長さに対して描いた図"},
               rows_key="n_rows")


def inputs_for(spec: Spec, captures: Mapping[str, Capture]) -> dict:
    capture, where = source(captures, spec.snippet, spec.name)
    rows = rows_of(capture, where, "the capture has no timed rows (a CPU capture times nothing); this figure is drawn from a GPU capture")
    xs, series, fixed = [], {v: [] for v in spec.versions}, set()
    for i, row in enumerate(rows):
        xs.append(finite(row.get(spec.x_key), f"{where}: row {i} {spec.x_key}", positive=True))
        for v in spec.versions:
            series[v].append(finite(row.get(f"{v}_bytes_per_s"), f"{where}: row {i} {v}_bytes_per_s", positive=True))
        if spec.rows_key:
            fixed.add(finite(row.get(spec.rows_key), f"{where}: row {i} {spec.rows_key}", positive=True))
    if len(fixed) > 1:
        raise ValueError(f"{where}: {spec.rows_key} differs between rows ({sorted(fixed)}); the figure says one")
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    if len({xs[i] for i in order}) != len(xs):
        raise ValueError(f"{where}: two rows have the same {spec.x_key}")
    return {
        "snippet": spec.snippet,
        "device": capture.device,
        "device_name": capture.environment.device_name,
        "x": [_plain(xs[i]) for i in order],
        "series": {v: [series[v][i] for i in order] for v in spec.versions},
        "rows": _plain(fixed.pop()) if fixed else None,
    }


def _plain(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def compact(n: float) -> str:
    """A size as a tick says it: 1M, 30M, 100k, 256, 16,384."""
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= factor and (n / factor).is_integer():
            return f"{n / factor:g}{suffix}"
    return f"{n:,.0f}"


def marker(shape: str, x: float, y: float, content: str | None = None, **attrs: Any) -> str:
    if shape == "circle":
        return el("circle", content, **attrs, cx=x, cy=y, r=4.0)
    paths = {
        "square": f"M{num(x - 4)} {num(y - 4)}h8v8h-8z",
        "diamond": f"M{num(x)} {num(y - 5.5)}l5.5 5.5l-5.5 5.5l-5.5 -5.5z",
        "up": f"M{num(x)} {num(y - 5)}l5 9h-10z",
        "down": f"M{num(x)} {num(y + 5)}l5 -9h-10z",
    }
    return el("path", content, **attrs, d=paths[shape])


def legend(names: dict[str, str], layout_width: float) -> tuple[list[str], float]:
    """One entry per series, wrapping onto new lines; returns the entries and the last line's y."""
    out: list[str] = []
    lx, ly = 4.0, 14.0
    for series, name in names.items():
        item = 32 + width(name, FONT)
        if lx > 4.0 and lx + item > layout_width:
            lx, ly = 4.0, ly + 22
        cls, shape = STYLE[series]
        sample = el("polyline", points=f"{num(lx)},{num(ly)} {num(lx + 24)},{num(ly)}") + marker(shape, lx + 12, ly)
        out.append(el("g", sample + text(lx + 32, ly + 4.5, name), cls=cls))
        lx += item + 20
    return out, ly


def draw_for(spec: Spec, inputs: dict, lang: str, layout: Layout) -> Figure:
    xs, series, rows = inputs["x"], inputs["series"], inputs["rows"]
    names = {v: S(lang, f"v_{v}") for v in series}
    entries, ly = legend(names, layout.width)
    top = ly + 46  # the legend, then the y axis' title
    left, right, plot_h = 72.0, layout.width - 16, 220.0
    yaxis = LinearY(top, plot_h, [b for values in series.values() for b in values])
    lo_log, hi_log = math.log10(xs[0]), math.log10(xs[-1])
    pad = max(hi_log - lo_log, 0.5) * 0.06

    def x_of(value: float) -> float:
        return left + (math.log10(value) - lo_log + pad) / (hi_log - lo_log + 2 * pad) * (right - left)

    body = entries + [text(4, top - 22, S(lang, "y_title"), cls="kb-small kb-muted")]
    body += yaxis.frame(left, right)
    ticks = "".join(el("text", compact(x), x=x_of(x)) for x in xs)
    body.append(el("path", cls="kb-axis", d="".join(f"M{num(x_of(x))} {num(yaxis.bottom)}V{num(yaxis.bottom + 5)}" for x in xs)))
    body.append(el("g", ticks, cls="kb-small", text_anchor="middle", transform=f"translate(0 {num(yaxis.bottom + 19)})"))
    x_title = S(lang, f"x_{spec.x_key}", rows=f"{rows:,}" if rows else "")
    body.append(text((left + right) / 2, yaxis.bottom + 42, x_title, cls="kb-small", text_anchor="middle"))
    plot = []
    for v, values in series.items():
        cls, shape = STYLE[v]
        points = [(x_of(x), yaxis.y(b)) for x, b in zip(xs, values)]
        parts = [el("polyline", points=" ".join(f"{num(px)},{num(py)}" for px, py in points))]
        for (px, py), x, b in zip(points, xs, values):
            tip = f"{names[v]} — " + S(lang, "point", x=f"{x:,}", value=format_bandwidth(b))
            parts.append(marker(shape, px, py, title(tip), cls="kb-point", data_series=v, data_x=f"{x:g}", data_bytes_per_s=f"{b:.6g}"))
        plot.append(el("g", "".join(parts), cls=cls))
    # the chart's own scale, for anyone checking a point against the capture: 0 sits at data-zero
    body.append(el("g", "".join(plot), cls="kb-chart", data_chart="bandwidth", data_zero=num(yaxis.bottom), data_top=num(yaxis.top),
                   data_top_value=f"{yaxis.hi:.6g}"))
    height = yaxis.bottom + 50

    device = S.device_note(lang, [inputs])
    lo, hi = f"{xs[0]:,}", f"{xs[-1]:,}"
    what = S(lang, f"what_{spec.x_key}", rows=f"{rows:,}" if rows else "")
    values = S.join(lang, [f"{names[v]} " + format_bandwidth(series[v][-1]) for v in series])
    alt = S(lang, "alt", what=what, lo=lo, hi=hi, device=device, values=values)
    caption = S(lang, spec.caption, lo=lo, hi=hi, rows=f"{rows:,}" if rows else "", device=device)
    data = {
        "points": len(xs),
        "device": inputs["device"],
        "source": f"{inputs['snippet']} ({inputs['device']})",
        "series": list(series),
        "largest": xs[-1],
        "largest_gbs": {v: round(series[v][-1] / 1e9, 3) for v in series},
    }
    return Figure(spec.name, lang, (document(spec.name, lang, layout, height, alt, body),), alt, caption, data)


for _spec in (ADD_RELU, SOFTMAX):
    register(FigureKind(_spec.name, needs=(_spec.snippet,),
                        inputs=lambda captures, spec=_spec: inputs_for(spec, captures),
                        draw=lambda inputs, lang, layout, spec=_spec: draw_for(spec, inputs, lang, layout),
                        device="cuda", subject=_spec.subject))
