"""``[[kb:figure roofline]]``: attainable FLOP/s against arithmetic intensity, from one run.

Drawn from ``ch02/mm_vs_add``'s ``results``: both roofs are measured in that run, not taken
from a datasheet. The memory roof is the copy's bandwidth (``copy_bytes_per_s``) times the
intensity, the compute roof the fastest matmul's FLOP/s (``peak_flop_per_s``); they meet at
``ridge_intensity``. Each matmul (``matmuls``) and the add (``add``) is a point at its
intensity and the FLOP/s it reached.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...records import Capture
from ..units import format_bandwidth, format_number, format_si
from .axes import LogAxes
from .base import Figure, FigureKind, finite, register, source
from .strings import Strings
from .svg import FONT, SMALL, Layout, axis_title, document, el, marker, num, text, title, width

NAME = "roofline"
MM_VS_ADD = "ch02/mm_vs_add"
HEADROOM = 8  # the y axis reaches 8× above the compute roof: room for the labels over it

S = Strings({
    "en": {
        "matmuls": "matmul n × n (n = {lo} … {hi})",
        "add": "elementwise add",
        "x": "arithmetic intensity (FLOP/byte, log scale)",
        "memory_roof": "copy: {bw}",
        "compute_roof": "fastest matmul: {flops}",
        "ridge": "ridge {i} FLOP/byte",
        "ridge_short": "ridge {i}",
        "memory_bound": "memory-bound",
        "compute_bound": "compute-bound",
        "point_mm": "matmul n = {n}: {i} FLOP/byte, {flops}",
        "point_add": "add: {i} FLOP/byte, {flops}",
        "alt": "Roofline measured in one run{device}, on log–log axes of arithmetic intensity and FLOP/s. The memory "
        "roof is a copy's {bw} times the intensity; the compute roof is the fastest matmul's {peak}; they meet at "
        "{ridge} FLOP/byte. The add sits at {add_i} FLOP/byte and {add_f}; the matmuls run from "
        "n = {n0} ({i0} FLOP/byte, {f0}) to n = {n1} ({i1} FLOP/byte, {f1}).",
        "caption": "The roofline of one run{device}: the memory roof is the bandwidth of a copy and the compute roof "
        "the FLOP/s of the fastest matmul, both measured in that run; each point is an operation it timed.",
    },
    "ja": {
        "matmuls": "n × n の行列積 (n = {lo} … {hi})",
        "add": "要素ごとの加算",
        "x": "算術強度 (FLOP/バイト、対数目盛)",
        "memory_roof": "コピー: {bw}",
        "compute_roof": "最速の行列積: {flops}",
        "ridge": "リッジ {i} FLOP/バイト",
        "ridge_short": "リッジ {i}",
        "memory_bound": "メモリ律速",
        "compute_bound": "演算律速",
        "point_mm": "行列積 n = {n}: {i} FLOP/バイト、{flops}",
        "point_add": "加算: {i} FLOP/バイト、{flops}",
        "alt": "1 回の実行で測ったルーフライン{device}。横軸は算術強度、縦軸は FLOP/s の両対数グラフ。メモリの天井は"
        "コピーの帯域 {bw} × 算術強度、演算の天井は最速の行列積の {peak} で、両者は {ridge} FLOP/バイトで交わる。"
        "加算は {add_i} FLOP/バイト、{add_f} の位置にあり、行列積は n = {n0} ({i0} FLOP/バイト、{f0}) から "
        "n = {n1} ({i1} FLOP/バイト、{f1}) まで並ぶ。",
        "caption": "1 回の実行のルーフライン{device}。メモリの天井はコピーの帯域、演算の天井は最速の行列積の FLOP/s で、"
        "どちらも同じ実行の中で測った値。点はそれぞれ、その実行で時間を測った演算。",
    },
})


def inputs(captures: Mapping[str, Capture]) -> dict:
    capture, where = source(captures, MM_VS_ADD, NAME)
    data = capture.data
    if not isinstance(data, dict) or not isinstance(data.get("matmuls"), list) or not data["matmuls"] \
            or not isinstance(data.get("add"), dict):
        raise ValueError(f"{where}: the capture has no matmuls and add; re-run `kernelbook capture --force {MM_VS_ADD}`")
    matmuls = []
    for i, row in enumerate(data["matmuls"]):
        if not isinstance(row, dict):
            raise ValueError(f"{where}: matmul {i} is not an object")
        matmuls.append([
            int(finite(row.get("n"), f"{where}: matmul {i} n", positive=True)),
            finite(row.get("intensity"), f"{where}: matmul {i} intensity", positive=True),
            finite(row.get("flop_per_s"), f"{where}: matmul {i} flop_per_s", positive=True),
        ])
    add = data["add"]
    copy = finite(data.get("copy_bytes_per_s"), f"{where}: copy_bytes_per_s", positive=True)
    peak = finite(data.get("peak_flop_per_s"), f"{where}: peak_flop_per_s", positive=True)
    ridge = finite(data.get("ridge_intensity"), f"{where}: ridge_intensity", positive=True)
    if not math.isclose(ridge, peak / copy, rel_tol=1e-6):
        raise ValueError(f"{where}: ridge_intensity {ridge} is not peak_flop_per_s / copy_bytes_per_s ({peak / copy}); "
                         "the two roofs would not meet there")
    return {
        "snippet": MM_VS_ADD,
        "device": capture.device,
        "device_name": capture.environment.device_name,
        "matmuls": sorted(matmuls),
        "add": [finite(add.get("intensity"), f"{where}: add intensity", positive=True),
                finite(add.get("flop_per_s"), f"{where}: add flop_per_s", positive=True)],
        "copy_bytes_per_s": copy,
        "peak_flop_per_s": peak,
        "ridge_intensity": ridge,
    }


def draw(inputs: dict, lang: str, layout: Layout) -> Figure:
    matmuls, (add_i, add_f) = inputs["matmuls"], inputs["add"]
    bw, peak, ridge = inputs["copy_bytes_per_s"], inputs["peak_flop_per_s"], inputs["ridge_intensity"]
    names = {"mm": S(lang, "matmuls", lo=matmuls[0][0], hi=matmuls[-1][0]), "add": S(lang, "add")}

    # legend, top left: the matmuls in the accent colour, the add in the text's
    body: list[str] = []
    lx, ly = 4.0, 14.0
    for key, cls in (("mm", "kb-compiled"), ("add", "kb-eager")):
        item = 18 + width(names[key], FONT)
        if lx > 4.0 and lx + item > layout.width:
            lx, ly = 4.0, ly + 22
        body.append(el("g", marker("circle", lx + 5, ly) + text(lx + 18, ly + 4.5, names[key]), cls=cls))
        lx += item + 24

    left, right = 98.0, 12.0  # room for "100 MFLOP/s"
    top = ly + 20
    plot_w, plot_h = layout.width - left - right, 260.0
    xs = [add_i / 2, max(m[1] for m in matmuls) * 2]
    ys = [add_f / 4, peak * HEADROOM]
    axes = LogAxes(left, top, plot_w, plot_h, xs, ys)
    bottom, right_x = top + plot_h, left + plot_w
    x_min = 10 ** (axes.xlo - axes.xpad)
    x_max = 10 ** (axes.xhi + axes.xpad)
    y_min = 10 ** (axes.ylo - axes.ypad)

    chart = ['<g class="kb-chart" data-chart="roofline">']
    chart += axes.frame("count", "flops")
    # the roofs: y = bandwidth × intensity up to the ridge (from where it enters the plot), then flat
    x_start = max(x_min, y_min / bw)
    roof = [(x_start, bw * x_start), (ridge, bw * ridge), (x_max, peak)]
    chart.append(el("polyline", cls="kb-roofline", points=" ".join(f"{num(axes.x(x))},{num(axes.y(y))}" for x, y in roof)))
    rx, ry = axes.x(ridge), axes.y(peak)
    chart.append(el("line", cls="kb-ridge", x1=rx, y1=ry, x2=rx, y2=bottom))
    # labels: the memory roof's along its slope, past the add's point (which sits near it); the
    # compute roof's over it, at the right; the ridge's up along its dotted line
    (x0, y0), (x1, y1) = (axes.x(x_start), axes.y(bw * x_start)), (rx, ry)
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    memory = S(lang, "memory_roof", bw=format_bandwidth(bw))
    length, half = math.hypot(x1 - x0, y1 - y0), width(memory, SMALL) / 2
    past_add = (axes.x(add_i) - x0) / (x1 - x0) + (half + 10) / length
    t = min(max(0.5, past_add), 1 - (half + 8) / length)
    mx, my = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
    chart.append(text(mx, my - 7, memory, cls="kb-small kb-roof-label", text_anchor="middle",
                      transform=f"rotate({num(angle)} {num(mx)} {num(my)})"))
    chart.append(text(right_x - 4, ry - 10, S(lang, "compute_roof", flops=format_si(peak, "FLOP/s")),
                      cls="kb-small kb-roof-label", text_anchor="end"))
    ridge_label = S(lang, "ridge", i=format_number(ridge))
    if width(ridge_label, SMALL) > bottom - ry - 16:  # too long for the line: the number alone
        ridge_label = S(lang, "ridge_short", i=format_number(ridge))
    chart.append(text(rx + 4 + SMALL, bottom - 6, ridge_label, cls="kb-small kb-roof-label",
                      transform=f"rotate(-90 {num(rx + 4 + SMALL)} {num(bottom - 6)})"))
    # which side of the ridge is which, along the top: each name centred over its side and kept
    # inside the plot; where they would touch, each goes to its own corner
    memory_bound, compute_bound = S(lang, "memory_bound"), S(lang, "compute_bound")
    wm, wc = width(memory_bound, SMALL) * 1.1, width(compute_bound, SMALL) * 1.1  # estimates run a little short
    xm = max(min((left + rx) / 2, rx - 6 - wm / 2), left + 4 + wm / 2)
    xc = min(max((rx + right_x) / 2, rx + 6 + wc / 2), right_x - 4 - wc / 2)
    if xm + wm / 2 + 12 > xc - wc / 2:
        xm, xc = left + 4 + wm / 2, right_x - 4 - wc / 2
    chart.append(text(xm, top + 16, memory_bound, cls="kb-small kb-muted", text_anchor="middle"))
    chart.append(text(xc, top + 16, compute_bound, cls="kb-small kb-muted", text_anchor="middle"))
    # the measured operations
    dots = [marker("circle", axes.x(i), axes.y(f), title(S(lang, "point_mm", n=n, i=format_number(i), flops=format_si(f, "FLOP/s"))),
                   cls="kb-point", data_op="matmul", data_n=n) for n, i, f in matmuls]
    chart.append(el("g", "".join(dots), cls="kb-compiled"))
    tip = title(S(lang, "point_add", i=format_number(add_i), flops=format_si(add_f, "FLOP/s")))
    chart.append(el("g", marker("circle", axes.x(add_i), axes.y(add_f), tip, cls="kb-point", data_op="add"), cls="kb-eager"))
    chart.append(axis_title(left + plot_w / 2, bottom + 40, S(lang, "x"), layout.width))
    chart.append("</g>")
    body.append("".join(chart))
    height = bottom + 46

    device = S.device_note(lang, [inputs])
    (n0, i0, f0), (n1, i1, f1) = matmuls[0], matmuls[-1]
    alt = S(lang, "alt", device=device, bw=format_bandwidth(bw), peak=format_si(peak, "FLOP/s"), ridge=format_number(ridge),
            add_i=format_number(add_i), add_f=format_si(add_f, "FLOP/s"), n0=n0, i0=format_number(i0),
            f0=format_si(f0, "FLOP/s"), n1=n1, i1=format_number(i1), f1=format_si(f1, "FLOP/s"))
    caption = S(lang, "caption", device=device)
    data = {
        "matmuls": len(matmuls),
        "ridge_intensity": ridge,
        "roof_gbs": round(bw / 1e9, 3),
        "peak_gflops": round(peak / 1e9, 3),
        "device": inputs["device"],
        "source": f"{inputs['snippet']} ({inputs['device']})",
    }
    return Figure(NAME, lang, (document(NAME, lang, layout, height, alt, body),), alt, caption, data)


register(FigureKind(NAME, needs=(MM_VS_ADD,), inputs=inputs, draw=draw))
