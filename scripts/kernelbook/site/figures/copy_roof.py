"""``[[kb:figure copy_roof]]``: the bandwidth of a plain copy against the bytes it moves.

Drawn from ``ch02/copy_roof``'s ``results``: per size, the bytes moved and the bandwidth
timed from a Python loop (``loop_bytes_per_s``) and, on a GPU, on the GPU alone from a CUDA
graph (``gpu_bytes_per_s``); the cache the snippet marks (``cache_name``, ``cache_bytes``: the GPU's L2 and
its size, or on a CPU the level the copies fell out of and the bytes moved where they did) and, where
the GPU reports one, the peak of its memory interface (``spec_bytes_per_s``). The curve the
chapter reads (``bytes_per_s``: the GPU alone on a GPU, the loop on a CPU) splits the sizes
into three regions: overhead until it first reaches half of its best, then the cache up to
the cache's size, then memory.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...common.records import Capture
from ..prose.units import format_bandwidth, format_bytes
from .axes import LogAxes
from .base import Figure, FigureKind, finite, register, rows_of, source
from .strings import Strings
from .svg import FONT, SMALL, Layout, axis_title, document, el, marker, num, text, title, width

NAME = "copy_roof"
COPY_ROOF = "ch02/copy_roof"
SERIES = ("gpu", "loop")  # drawn in this order; the legend lists them likewise
SHAPES = {"gpu": "circle", "loop": "square"}
STYLES = {"gpu": "kb-compiled", "loop": "kb-eager kb-dashed"}  # accent and solid; text colour and dashed

S = Strings({
    "en": {
        "gpu": "GPU alone (CUDA graph)",
        "loop": "from a Python loop",
        "x": "bytes moved per copy (log scale)",
        "overhead": "overhead",
        "cache": "cache",
        "memory_cuda": "GPU memory",
        "memory_cpu": "outer caches, main memory",
        "cache_line": "{name} {size}",
        "spec": "memory interface peak {bw}",
        "point": "{size} moved: {bw}",
        "alt": "Bandwidth of a plain copy against the bytes it moves, from {lo} to {hi}{device}. {series} "
        "The best rate, {best}, was reached at {best_size}; the largest copy ran at {largest}.{cache}",
        "alt_series": "Timed {what}.",
        "alt_cache": " The {name} cache ({size}) is marked: copies that fit in it ran at up to {cache_best}.",
        "caption": "Copy bandwidth (bytes read and written ÷ time) at {k} sizes{device}, timed {what}{cache}.",
        "caption_cache": "; the dashed line marks the {name} cache ({size}) and the shading the copies that fit in it",
        "alt_edge": " Where the copies fell out of the {name} cache ({size} moved) is marked: copies up to there ran at up to {cache_best}.",
        "caption_edge": "; the dashed line marks where the copies fell out of the {name} cache, after {size} moved, and the shading the copies up to there",
        "and": " and ",
    },
    "ja": {
        "gpu": "GPU 単体 (CUDA グラフ)",
        "loop": "Python のループから",
        "x": "1 回のコピーで動くバイト数 (対数目盛)",
        "overhead": "オーバーヘッド",
        "cache": "キャッシュ",
        "memory_cuda": "GPU メモリ",
        "memory_cpu": "外側のキャッシュ、メインメモリ",
        "cache_line": "{name} {size}",
        "spec": "メモリインターフェースのピーク {bw}",
        "point": "{size} を移動: {bw}",
        "alt": "単純なコピーの帯域幅を、動かすバイト数 {lo} から {hi} に対して示したグラフ{device}。{series}"
        "最高の {best} は {best_size} で出て、いちばん大きなコピーは {largest} だった。{cache}",
        "alt_series": "測定は {what}。",
        "alt_cache": "{name} キャッシュ ({size}) を示してあり、そこに収まるコピーは最高 {cache_best} だった。",
        "caption": "{k} 通りの大きさでのコピーの帯域幅 (読み書きしたバイト数 ÷ 時間){device}。測定は {what}{cache}。",
        "caption_cache": "。破線は {name} キャッシュ ({size}) を、網掛けはそこに収まるコピーを示す",
        "alt_edge": "コピーが {name} キャッシュからはみ出した位置 ({size} を移動したところ) を示してあり、そこまでのコピーは最高 {cache_best} だった。",
        "caption_edge": "。破線はコピーが {name} キャッシュからはみ出した位置 ({size} を移動したところ) を、網掛けはそこまでのコピーを示す",
        "and": "、",
    },
})


def inputs(captures: Mapping[str, Capture]) -> dict:
    capture, where = source(captures, COPY_ROOF, NAME)
    data = capture.data
    rows = []
    for i, row in enumerate(rows_of(capture, where)):
        gpu = row.get("gpu_bytes_per_s")
        rows.append([
            finite(row.get("moved_bytes"), f"{where}: row {i} moved_bytes", positive=True),
            finite(row.get("loop_bytes_per_s"), f"{where}: row {i} loop_bytes_per_s", positive=True),
            None if gpu is None else finite(gpu, f"{where}: row {i} gpu_bytes_per_s", positive=True),
            finite(row.get("bytes_per_s"), f"{where}: row {i} bytes_per_s", positive=True),
        ])
    rows.sort()
    timed = ["gpu"] if all(r[2] is not None for r in rows) else []
    cache = data.get("cache_bytes")
    spec = data.get("spec_bytes_per_s")
    return {
        "snippet": COPY_ROOF,
        "device": capture.device,
        "device_name": capture.environment.device_name,
        "rows": rows,
        "series": timed + ["loop"],
        "cache_name": str(data.get("cache_name") or "") if cache is not None else None,
        "cache_bytes": None if cache is None else finite(cache, f"{where}: cache_bytes", positive=True),
        "spec_bytes_per_s": None if spec is None else finite(spec, f"{where}: spec_bytes_per_s", positive=True),
    }


def regions(rows: list[list], cache_bytes: float | None) -> list[tuple[str, float, float]]:
    """(region, from, to) in bytes moved, left to right: ``overhead`` until the curve the text reads
    first reaches half of its best (the boundary halfway, in log scale, between that size and the
    one before), ``cache`` from there up to ``cache_bytes``, ``memory`` beyond it."""
    lo, hi = rows[0][0], rows[-1][0]
    best = max(r[3] for r in rows)
    first = next(i for i, r in enumerate(rows) if r[3] >= best / 2)
    edge = lo if first == 0 else math.sqrt(rows[first - 1][0] * rows[first][0])
    if cache_bytes is None or cache_bytes <= edge:
        return [("overhead", lo, edge), ("cache", edge, hi)] if first else [("cache", lo, hi)]
    spans = [("overhead", lo, edge)] if first else []
    spans.append(("cache", edge, min(cache_bytes, hi)))
    if cache_bytes < hi:
        spans.append(("memory", cache_bytes, hi))
    return spans


def binary_ticks(lo: float, hi: float) -> list[tuple[float, str]]:
    """Every 16× from the first power of two at or above ``lo`` up to ``hi``: 8 KiB, 128 KiB, 2 MiB, ..."""
    k = math.ceil(math.log2(lo) - 1e-9)
    ticks = []
    while 2.0**k <= hi * (1 + 1e-9):
        ticks.append((2.0**k, format_bytes(2**k)))
        k += 4
    return ticks


def draw(inputs: dict, lang: str, layout: Layout) -> Figure:
    rows, series = inputs["rows"], inputs["series"]
    cache, spec = inputs["cache_bytes"], inputs["spec_bytes_per_s"]
    column = {"loop": 1, "gpu": 2}
    names = {s: S(lang, s) for s in series}
    moved = [r[0] for r in rows]
    values = {s: [r[column[s]] for r in rows] for s in series}

    # legend, top left, one line per series on a phone when they do not fit side by side
    body: list[str] = []
    lx, ly = 4.0, 14.0
    for one in SERIES:
        if one not in series:
            continue
        item = 32 + width(names[one], FONT)
        if lx > 4.0 and lx + item > layout.width:
            lx, ly = 4.0, ly + 22
        sample = el("polyline", points=f"{num(lx)},{num(ly)} {num(lx + 24)},{num(ly)}") + marker(SHAPES[one], lx + 12, ly)
        body.append(el("g", sample + text(lx + 32, ly + 4.5, names[one]), cls=STYLES[one]))
        lx += item + 24

    spans = regions(rows, cache)
    memory = S(lang, "memory_cuda" if inputs["device"] == "cuda" else "memory_cpu")
    labels = {"overhead": S(lang, "overhead"), "cache": S(lang, "cache"), "memory": memory}

    left, right = 66.0, 10.0
    plot_w = layout.width - left - right
    ys = [v for s in series for v in values[s]] + ([spec * 1.3] if spec else [])
    probe = LogAxes(left, 0, plot_w, 1, moved, ys, xticks=binary_ticks(moved[0], moved[-1]))
    # the regions' names sit in rows above the plot: a name that would touch the one before it goes a row down
    placed: list[list[tuple[float, float]]] = []
    region_texts = []
    for region, a, b in spans:
        words = labels[region]
        w = width(words, SMALL)
        xa, xb = probe.x(a), probe.x(b)
        x = min(max((xa + xb) / 2 - w / 2, left), left + plot_w - w)
        row = next((i for i, taken in enumerate(placed) if all(x > e + 8 or x + w < s - 8 for s, e in taken)), len(placed))
        if row == len(placed):
            placed.append([])
        placed[row].append((x, x + w))
        region_texts.append((region, x, row, words))
    top = ly + 16 + 17 * len(placed) + 6
    plot_h = 230.0 if layout.width > 400 else 210.0
    axes = LogAxes(left, top, plot_w, plot_h, moved, ys, xticks=binary_ticks(moved[0], moved[-1]))
    bottom = top + plot_h

    chart = ['<g class="kb-chart" data-chart="copy">']
    for region, a, b in spans:
        if region == "cache":
            chart.append(el("rect", cls="kb-band", x=axes.x(a), y=top, width=axes.x(b) - axes.x(a), height=plot_h,
                            data_region=region))
    chart += axes.frame("bytes", "bandwidth")
    for region, x, row, words in region_texts:
        chart.append(text(x, ly + 16 + 17 * row + SMALL, words, cls="kb-small kb-muted", data_region=region))
    if cache is not None:
        cx = axes.x(cache)
        label = S(lang, "cache_line", name=inputs["cache_name"], size=format_bytes(cache))
        chart.append(el("line", cls="kb-roof", x1=cx, y1=top, x2=cx, y2=bottom, data_bytes=f"{cache:.0f}"))
        w = width(label, SMALL)
        lx_ = cx - 6 - w if cx - 6 - w >= left + 4 else cx + 6
        chart.append(text(lx_, bottom - 8, label, cls="kb-small kb-roof-label"))
    if spec:
        sy = axes.y(spec)
        label = S(lang, "spec", bw=format_bandwidth(spec))
        chart.append(el("line", cls="kb-roof", x1=left, y1=sy, x2=left + plot_w, y2=sy, data_bytes_per_s=f"{spec:.6g}"))
        chart.append(text(left + plot_w - 4, sy - 6, label, cls="kb-small kb-roof-label", text_anchor="end"))
    for one in SERIES:
        if one not in series:
            continue
        pts = [(axes.x(m), axes.y(v)) for m, v in zip(moved, values[one])]
        parts = [el("polyline", points=" ".join(f"{num(px)},{num(py)}" for px, py in pts))]
        for (px, py), m, v in zip(pts, moved, values[one]):
            tip = title(S(lang, "point", size=format_bytes(m), bw=format_bandwidth(v)))
            parts.append(marker(SHAPES[one], px, py, tip, cls="kb-point", data_series=one, data_bytes=f"{m:.0f}"))
        chart.append(el("g", "".join(parts), cls=STYLES[one]))
    chart.append(axis_title(left + plot_w / 2, bottom + 40, S(lang, "x"), layout.width))
    chart.append("</g>")
    body.append("".join(chart))
    height = bottom + 46

    device = S.device_note(lang, [inputs])
    what = S(lang, "and").join(names[s] for s in series)
    primary = [r[3] for r in rows]
    best_i = max(range(len(rows)), key=primary.__getitem__)
    fits = [p for m, p in zip(moved, primary) if cache is not None and m <= cache]
    cache_words = {"name": inputs["cache_name"], "size": format_bytes(cache)} if cache is not None else {}
    # a GPU's line is its L2's reported size; a CPU's is where the copies were measured to fall out of cache
    alt_key, caption_key = ("alt_cache", "caption_cache") if inputs["device"] == "cuda" else ("alt_edge", "caption_edge")
    alt = S(lang, "alt", lo=format_bytes(moved[0]), hi=format_bytes(moved[-1]), device=device,
            series=S(lang, "alt_series", what=what), best=format_bandwidth(primary[best_i]),
            best_size=format_bytes(moved[best_i]), largest=format_bandwidth(primary[-1]),
            cache=S(lang, alt_key, cache_best=format_bandwidth(max(fits)), **cache_words) if fits else "")
    caption = S(lang, "caption", k=len(rows), device=device, what=what,
                cache=S(lang, caption_key, **cache_words) if cache is not None else "")
    data = {
        "points": len(rows),
        "series": [s for s in SERIES if s in series],
        "regions": [[region, a, b] for region, a, b in spans],
        "cache_bytes": cache,
        "spec_gbs": round(spec / 1e9, 3) if spec else None,
        "device": inputs["device"],
        "source": f"{inputs['snippet']} ({inputs['device']})",
    }
    return Figure(NAME, lang, (document(NAME, lang, layout, height, alt, body),), alt, caption, data)


register(FigureKind(NAME, needs=(COPY_ROOF,), inputs=inputs, draw=draw))
