"""``[[kb:figure overhead]]``: time per call eager, compiled, and replayed as a CUDA graph. GPU only.

Drawn from ``ch03/reduce_overhead``'s ``results``: ``rows`` (one per size: ``size``,
``batch``, ``width``, ``eager_s``, ``compiled_s``, ``cuda_graph_s``) as horizontal bars on
one log time axis, and ``launches`` (per variant, the CPU's kernel launches and CUDA-graph
launches in one profiled call at the small size) as a line under the bars. CUDA graphs
exist only on a GPU, and the snippet measures nothing on a CPU: the figure is registered
with ``device="cuda"``, so a page showing the CPU capture gets the placeholder instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...common.records import Capture
from ..prose.units import format_seconds
from .axes import decade_label
from .base import Figure, FigureKind, finite, register, rows_of, source
from .strings import Strings
from .svg import FONT, SMALL, Layout, document, el, esc, fit, lines, num, text, title, width, wrap

NAME = "overhead"
REDUCE_OVERHEAD = "ch03/reduce_overhead"
VARIANTS = ("eager", "compiled", "cuda_graph")
CLASSES = {"eager": "kb-eager", "compiled": "kb-compiled", "cuda_graph": "kb-copy"}  # the sweep's three colours

SUBJECT = {
    "en": 'Time per call of a small and a large MLP, eager, compiled and with mode="reduce-overhead" (CUDA graphs)',
    "ja": '小さい MLP と大きい MLP の 1 回あたりの時間 (イーガー版、コンパイル版、mode="reduce-overhead" の CUDA グラフ)',
}

S = Strings({
    "en": {
        "o_eager": "eager",
        "o_compiled": "torch.compile",
        "o_cuda_graph": "CUDA graph",
        "o_group": "{size}: batch {batch}, width {width}",
        "o_axis": "time per call (log scale)",
        "o_tip": "{size}, {variant}: {value} per call",
        "o_launch_kernels_1": "1 kernel launch",
        "o_launch_kernels_n": "{n} kernel launches",
        "o_launch_graphs_1": "1 graph launch",
        "o_launch_graphs_n": "{n} graph launches",
        "o_launches": "One call at the {size} size: {items}.",
        "o_launch_item": "{variant} {counts}",
        "o_and": " and ",
        "o_alt_row": "{size}: eager {eager}, torch.compile {compiled}, CUDA graph {cuda_graph}",
        "o_alt": "Horizontal bars on a log time axis{device}. {rows}. {launches}",
        "o_caption": "Time per call of the same MLP eager, compiled and replayed as a CUDA graph, at the sizes {sizes}{device}.",
        "o_rows_sep": "; ",
    },
    "ja": {
        "o_eager": "イーガー版",
        "o_compiled": "torch.compile",
        "o_cuda_graph": "CUDA グラフ",
        "o_group": "{size}: バッチ {batch}、幅 {width}",
        "o_axis": "1 回あたりの時間 (対数目盛)",
        "o_tip": "{size}、{variant}: 1 回 {value}",
        "o_launch_kernels_1": "カーネルの起動 1 回",
        "o_launch_kernels_n": "カーネルの起動 {n} 回",
        "o_launch_graphs_1": "グラフの起動 1 回",
        "o_launch_graphs_n": "グラフの起動 {n} 回",
        "o_launches": "{size} での 1 回の呼び出し: {items}。",
        "o_launch_item": "{variant} は{counts}",
        "o_and": "と",
        "o_alt_row": "{size}: イーガー版 {eager}、torch.compile {compiled}、CUDA グラフ {cuda_graph}",
        "o_alt": "対数の時間軸の横棒グラフ{device}。{rows}。{launches}",
        "o_caption": "同じ MLP をイーガーモード、コンパイル、CUDA グラフの再生で実行したときの 1 回あたりの時間。大きさは {sizes}{device}。",
        "o_rows_sep": "。",
    },
})


def inputs(captures: Mapping[str, Capture]) -> dict:
    capture, where = source(captures, REDUCE_OVERHEAD, NAME)
    data = capture.data
    rows = []
    for i, row in enumerate(rows_of(capture, where)):
        if not isinstance(row.get("size"), str):
            raise ValueError(f"{where}: row {i} has no size name")
        rows.append({
            "size": row["size"],
            "batch": int(finite(row.get("batch"), f"{where}: row {i} batch", positive=True)),
            "width": int(finite(row.get("width"), f"{where}: row {i} width", positive=True)),
            **{v: finite(row.get(f"{v}_s"), f"{where}: row {i} {v}_s", positive=True) for v in VARIANTS},
        })
    launches = data.get("launches") if isinstance(data.get("launches"), dict) else {}
    counted = {}
    for v in VARIANTS:
        one = launches.get(v)
        if not isinstance(one, dict):
            raise ValueError(f"{where}: results['launches'][{v!r}] is missing")
        counted[v] = {k: int(finite(one.get(k), f"{where}: launches {v} {k}")) for k in ("kernel_launches", "graph_launches")}
    return {"snippet": REDUCE_OVERHEAD, "device": capture.device, "device_name": capture.environment.device_name,
            "rows": rows, "launches": counted, "launch_size": rows[0]["size"]}


def _counts(lang: str, one: dict) -> str:
    parts = []
    if one["kernel_launches"] or not one["graph_launches"]:
        parts.append(S.count(lang, "o_launch_kernels", one["kernel_launches"]))
    if one["graph_launches"]:
        parts.append(S.count(lang, "o_launch_graphs", one["graph_launches"]))
    return S.raw(lang, "o_and").join(parts)


LABELS = 120.0  # room for the variants' names left of the bars, when the drawing has it
ROW = 24.0
BAR = 16.0


def draw(inputs: dict, lang: str, layout: Layout) -> Figure:
    rows = inputs["rows"]
    names = {v: S(lang, f"o_{v}") for v in VARIANTS}
    times = [r[v] for r in rows for v in VARIANTS]
    lo, hi = math.floor(math.log10(min(times)) + 1e-9), math.ceil(math.log10(max(times)) - 1e-9)
    hi = max(hi, lo + 1)
    x0 = LABELS if layout.width >= 600 else 124.0
    value_room = width("999 µs", SMALL) + 10
    x1 = layout.width - value_room
    low = lo - 0.15  # the bars start a little left of the lowest decade

    def x(seconds: float) -> float:
        return x0 + (math.log10(seconds) - low) / (hi - low) * (x1 - x0)

    body: list[str] = []
    y = 4.0
    top = y
    for row in rows:
        group = S(lang, "o_group", size=row["size"], batch=f"{row['batch']:,}", width=f"{row['width']:,}")
        body.append(text(4, y + 16, fit(group, layout.width - 8, FONT), cls="kb-bold"))
        y += 26
        for v in VARIANTS:
            seconds = row[v]
            bx, bw = x0, max(x(seconds) - x0, 2.0)
            value = format_seconds(seconds, 3)
            tip = title(S(lang, "o_tip", size=row["size"], variant=names[v], value=value))
            body.append(text(x0 - 8, y + BAR / 2 + 4.5, fit(names[v], x0 - 16, SMALL), cls="kb-small", text_anchor="end"))
            bar = el("rect", tip, cls="kb-bar", x=bx, y=y, width=bw, height=BAR,
                     data_series=v, data_size=row["size"], data_seconds=repr(seconds))
            body.append(el("g", bar + text(bx + bw + 5, y + BAR / 2 + 4.5, value, cls="kb-small"), cls=CLASSES[v]))
            y += ROW
        y += 8
    axis_y = y
    # decades: gridlines through every group, ticks and labels under them
    ks = list(range(lo, hi + 1))
    body.insert(0, el("path", cls="kb-grid", d=lines([(x(10.0**k), top, x(10.0**k), axis_y) for k in ks])))
    body.append(el("path", cls="kb-axis", d=lines([(x0, axis_y, x1, axis_y)] + [(x(10.0**k), axis_y, x(10.0**k), axis_y + 5) for k in ks])))
    step = 1 if len(ks) <= (7 if layout.width >= 600 else 4) else 2
    ticks = "".join(el("text", esc(decade_label(k, "seconds")), x=x(10.0**k)) for k in ks if (k - lo) % step == 0)
    body.append(el("g", ticks + text((x0 + x1) / 2, 20, S(lang, "o_axis")), cls="kb-small", text_anchor="middle",
                   transform=f"translate(0 {num(axis_y + 18)})"))
    y = axis_y + 50
    # the launches behind the small size's times, in words
    items = [S(lang, "o_launch_item", variant=names[v], counts=_counts(lang, inputs["launches"][v])) for v in VARIANTS]
    launches = S(lang, "o_launches", size=inputs["launch_size"], items=S.join(lang, items))
    for line in wrap(launches, layout.width - 8, SMALL):
        body.append(text(4, y, line, cls="kb-small kb-launches"))
        y += 18
    height = y

    device = S.device_note(lang, [inputs])
    alt_rows = [S(lang, "o_alt_row", size=r["size"], **{v: format_seconds(r[v], 3) for v in VARIANTS}) for r in rows]
    alt = S(lang, "o_alt", device=device, rows=S.raw(lang, "o_rows_sep").join(alt_rows), launches=launches)
    caption = S(lang, "o_caption", device=device, sizes=S.join(lang, [r["size"] for r in rows]))
    data = {
        "device": inputs["device"],
        "source": f"{inputs['snippet']} ({inputs['device']})",
        "bars": [[r["size"], v, r[v]] for r in rows for v in VARIANTS],
        "launches": inputs["launches"],
    }
    return Figure(NAME, lang, (document(NAME, lang, layout, height, alt, body),), alt, caption, data)


register(FigureKind(NAME, needs=(REDUCE_OVERHEAD,), inputs=inputs, draw=draw, device="cuda", subject=SUBJECT))
