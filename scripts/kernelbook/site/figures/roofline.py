"""``[[kb:figure roofline]]``: attainable FLOP/s against arithmetic intensity, from one run.

Drawn from ``ch02/mm_vs_add``'s ``results``: both roofs are measured in that run, not taken
from a datasheet. The memory roof is the copy's bandwidth (``copy_bytes_per_s``) times the
intensity, the compute roof the fastest matmul's FLOP/s (``peak_flop_per_s``); they meet at
``ridge_intensity``. Each matmul (``matmuls``) and the add (``add``) is a point at its
intensity and the FLOP/s it reached.

Beside them, dashed, the FP32 roofs of the GPUs in :data:`VENDOR` from their vendor's
specifications (``docs/gpu_specs.yml``, read by ``site/figures/gpu_specs.py``), labelled as such:
not measured, and part of the figure's data key, so a changed spec file redraws it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...common.records import Capture
from . import gpu_specs
from ..prose.units import format_bandwidth, format_number, format_si, format_specified_bandwidth
from .axes import LogAxes
from .base import Figure, FigureKind, finite, register, source
from .strings import Strings
from .svg import FONT, SMALL, Layout, axis_title, document, el, marker, num, text, title, width

NAME = "roofline"
MM_VS_ADD = "ch02/mm_vs_add"
HEADROOM = 8  # the y axis reaches 8× above the compute roof: room for the labels over it
VENDOR = ("h200", "h100")  # GPUs whose specified roofs are drawn, dashed
VENDOR_HEADROOM = 12  # the y axis reaches 12× above the highest specified roof: room for the side names over it

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
        "vendor": "vendor specification, not measured",
        "vendor_roof": "{names} FP32: {flops}",
        "vendor_ridge": "{name}: {bw}, ridge {i} FLOP/byte",
        "vendor_alt": " Dashed, not measured: the FP32 roofs of the vendor's specifications, {roofs}.",
        "alt": "Roofline measured in one run{device}, on log–log axes of arithmetic intensity and FLOP/s. The memory "
        "roof is a copy's {bw} times the intensity; the compute roof is the fastest matmul's {peak}; they meet at "
        "{ridge} FLOP/byte. The add sits at {add_i} FLOP/byte and {add_f}; the matmuls run from "
        "n = {n0} ({i0} FLOP/byte, {f0}) to n = {n1} ({i1} FLOP/byte, {f1}).",
        "caption": "The roofline of one run{device}: the memory roof is the bandwidth of a copy and the compute roof "
        "the FLOP/s of the fastest matmul, both measured in that run; each point is an operation it timed. "
        "The dashed roofs are vendor specifications, not measured.",
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
        "compute_bound": "計算律速",
        "point_mm": "行列積 n = {n}: {i} FLOP/バイト、{flops}",
        "point_add": "加算: {i} FLOP/バイト、{flops}",
        "vendor": "ベンダー仕様値（実測ではない）",
        "vendor_roof": "{names} FP32: {flops}",
        "vendor_ridge": "{name}: {bw}、リッジ {i} FLOP/バイト",
        "vendor_alt": "破線は実測ではなく、ベンダー仕様値による FP32 の天井で、{roofs}。",
        "alt": "1 回の実行で測ったルーフライン{device}。横軸は算術強度、縦軸は FLOP/s の両対数グラフ。メモリの天井は"
        "コピーの帯域幅 {bw} × 算術強度、計算の天井は最速の行列積の {peak} で、両者は {ridge} FLOP/バイトで交わる。"
        "加算は {add_i} FLOP/バイト、{add_f} の位置にあり、行列積は n = {n0} ({i0} FLOP/バイト、{f0}) から "
        "n = {n1} ({i1} FLOP/バイト、{f1}) まで並ぶ。",
        "caption": "1 回の実行のルーフライン{device}。メモリの天井はコピーの帯域幅、計算の天井は最速の行列積の FLOP/s で、"
        "どちらも同じ実行の中で測った値。点はそれぞれ、その実行で時間を測った演算。破線の天井は実測ではなくベンダー仕様値。",
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
        "vendor": vendor_roofs(),
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


def vendor_roofs() -> list[list]:
    """[short name, memory bytes/s, FP32 FLOP/s] of each GPU in VENDOR, from the spec file; ValueError naming it."""
    try:
        specs = gpu_specs.book_specs()
        gpus = [specs.get(gpu_id) for gpu_id in VENDOR]
    except gpu_specs.SpecError as exc:
        raise ValueError(f"figure {NAME!r}: {exc}") from None
    roofs = []
    for gpu in gpus:
        bandwidth, peak = gpu.memory_bytes_per_s, gpu.flop_per_s("fp32")
        if bandwidth is None or peak is None:
            raise ValueError(f"figure {NAME!r}: {specs.source}: gpus.{gpu.id}: the roofline needs its memory_tb_per_s and fp32_tflops")
        roofs.append([gpu.id.upper(), bandwidth, peak])
    return roofs


def draw_vendor(vendor: list[list], axes: LogAxes, lang: str, x_max: float, y_min: float, left: float, right_x: float) -> list[str]:
    """The specified roofs, dashed, each named along its slope; over the highest, what they are."""
    out = []
    for i, (name, bw, peak) in enumerate(vendor):
        ridge = peak / bw
        x_start = max(10 ** (axes.xlo - axes.xpad), y_min / bw)
        points = [(x_start, bw * x_start), (ridge, peak), (x_max, peak)]
        line = el("polyline", cls="kb-roof", points=" ".join(f"{num(axes.x(x))},{num(axes.y(y))}" for x, y in points))
        (x0, y0), (x1, y1) = (axes.x(x_start), axes.y(bw * x_start)), (axes.x(ridge), axes.y(peak))
        angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
        length = math.hypot(x1 - x0, y1 - y0)
        words = S(lang, "vendor_ridge", name=name, bw=format_specified_bandwidth(bw), i=format_number(ridge))
        if width(words, SMALL) > 0.75 * length:  # a phone's narrow plot: the name alone (the alt text has the rest)
            words = name
        t = 0.12 if words == name else 0.5  # mid-slope: clear of the labels under the flat roof, at the right
        mx, my = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
        dy = -6 if i % 2 == 0 else SMALL + 4  # the first above its line, the next below: parallel lines stay apart
        label = text(mx, my + dy, words, cls="kb-small kb-roof-label", text_anchor="middle",
                     transform=f"rotate({num(angle)} {num(mx)} {num(my)})")
        out.append(el("g", line + label, cls="kb-vendor", data_gpu=name.lower()))
    top = max(peak for _, _, peak in vendor)
    names = ", ".join(name for name, _, peak in vendor if peak == top)
    y = axes.y(top)
    # under the roof, at the right of where the slopes meet it (over it are the names of the two sides);
    # where that is too narrow (a phone's plot), the figure on a line of its own
    roof = S(lang, "vendor_roof", names=names, flops=format_si(top, "FLOP/s", 2))
    room = right_x - 4 - max(axes.x(peak / bw) for _, bw, peak in vendor) - 8
    labels = [(roof, "")] if width(roof, SMALL) <= room else [(part.strip(), "") for part in roof.split(": ")]
    labels[:-1] = [(words + ":", bold) for words, bold in labels[:-1]]
    what = S(lang, "vendor")
    if width(what, SMALL) * 1.15 > right_x - left - 8:  # a phone's plot: on two lines, broken after the comma
        cut = max(what.find(", ") + 1, what.find("（"))
        labels += [(what[:cut].strip(), " kb-bold"), (what[cut:].strip(), " kb-bold")]
    else:
        labels.append((what, " kb-bold"))
    for n, (words, bold) in enumerate(labels):
        out.append(text(right_x - 4, y + (n + 1) * (SMALL + 4) + 2, words, cls="kb-small kb-roof-label" + bold, text_anchor="end"))
    return out


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
    vendor = inputs["vendor"]
    ys = [add_f / 4, max(peak * HEADROOM, *(p * VENDOR_HEADROOM for _, _, p in vendor))]
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
    near = any(p / 8 < peak < p * 8 for _, _, p in vendor)  # its label would meet theirs: put it under them
    chart.append(text(right_x - 4, ry + 4 * SMALL + 20 if near else ry - 10, S(lang, "compute_roof", flops=format_si(peak, "FLOP/s")),
                      cls="kb-small kb-roof-label", text_anchor="end"))
    chart += draw_vendor(vendor, axes, lang, x_max, y_min, left, right_x)
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
    alt += S(lang, "vendor_alt", roofs="; ".join(
        S(lang, "vendor_ridge", name=name, bw=format_specified_bandwidth(bw), i=format_number(p / bw)) + f", {format_si(p, 'FLOP/s', 2)}"
        for name, bw, p in vendor))
    caption = S(lang, "caption", device=device)
    data = {
        "matmuls": len(matmuls),
        "ridge_intensity": ridge,
        "roof_gbs": round(bw / 1e9, 3),
        "peak_gflops": round(peak / 1e9, 3),
        "device": inputs["device"],
        "source": f"{inputs['snippet']} ({inputs['device']})",
        "vendor_ridges": {name: p / bw for name, bw, p in vendor},
    }
    return Figure(NAME, lang, (document(NAME, lang, layout, height, alt, body),), alt, caption, data)


register(FigureKind(NAME, needs=(MM_VS_ADD,), inputs=inputs, draw=draw))
