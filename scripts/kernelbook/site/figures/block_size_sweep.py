"""``[[kb:figure block_size_sweep]]``: the add+relu kernel's achieved bandwidth at each BLOCK_SIZE.

Drawn from a CUDA capture of ``ch04/block_size`` only (``FigureKind(device="cuda")``): the
snippet times nothing on a CPU. One bar per row of its ``results`` (``block_size``,
``programs``, ``bytes_per_s``), in the order of the block sizes, the capture's
``best_block`` in the accent colour, and a dashed line at ``copy_bytes_per_s``, a plain
copy of the same array timed the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...common.records import Capture
from ..prose.units import format_bandwidth
from .axes import LinearY
from .base import Figure, FigureKind, finite, register, rows_of, source
from .strings import Strings
from .svg import FONT, Layout, document, el, lines, num, text, title, width

NAME = "block_size_sweep"
SNIPPET = "ch04/block_size"

S = Strings({
    "en": {
        "y_title": "achieved bandwidth",
        "x_title": "BLOCK_SIZE (elements per program)",
        "x_title_wide": "BLOCK_SIZE (top), programs launched (bottom)",
        "best": "fastest: {block}",
        "copy": "plain copy: {bw}",
        "bar": "BLOCK_SIZE {block}: {programs} programs, {bw}",
        "alt": "Bar chart of the add+relu kernel's achieved bandwidth on {n} elements at each BLOCK_SIZE from {lo} to {hi}"
        "{device}: {values}. The fastest, {best}, is highlighted; a dashed line marks a plain copy at {copy}.",
        "caption": "The same add+relu kernel on {n} elements at every BLOCK_SIZE: bandwidth counted as 3 arrays moved over the "
        "median time, against a plain copy (2 arrays) timed the same way{device}.",
    },
    "ja": {
        "y_title": "実効帯域幅",
        "x_title": "BLOCK_SIZE (1 プログラムあたりの要素数)",
        "x_title_wide": "BLOCK_SIZE (上)、起動したプログラムの数 (下)",
        "best": "最速: {block}",
        "copy": "単純なコピー: {bw}",
        "bar": "BLOCK_SIZE {block}: プログラム {programs} 個、{bw}",
        "alt": "{n} 要素に対する add+relu カーネルの実効帯域幅を、BLOCK_SIZE {lo} から {hi} までの各値について描いた棒グラフ"
        "{device}。{values}。最速の {best} を強調し、破線は単純なコピーの {copy} を示す。",
        "caption": "同じ add+relu カーネルを {n} 要素に対してすべての BLOCK_SIZE で実行したときの実効帯域幅。配列 3 本分を時間の中央値で"
        "割ったもので、同じ方法で測った単純なコピー (配列 2 本分) と比べている{device}。",
    },
})
SUBJECT = {"en": "The add+relu kernel's achieved bandwidth at each BLOCK_SIZE from 128 to 8192, against a plain copy",
         "ja": "add+relu カーネルの実効帯域幅を、BLOCK_SIZE 128 から 8192 までの各値について単純なコピーと比べた図"}


def inputs(captures: Mapping[str, Capture]) -> dict:
    capture, where = source(captures, SNIPPET, NAME)
    data = capture.data
    bars = []
    for i, row in enumerate(rows_of(capture, where)):
        bars.append([
            int(finite(row.get("block_size"), f"{where}: row {i} block_size", positive=True)),
            int(finite(row.get("programs"), f"{where}: row {i} programs", positive=True)),
            finite(row.get("bytes_per_s"), f"{where}: row {i} bytes_per_s (a CPU capture times nothing)", positive=True),
        ])
    bars.sort()
    best = data.get("best_block")
    if best not in [b[0] for b in bars]:
        raise ValueError(f"{where}: best_block {best!r} is not one of the block sizes measured")
    return {
        "snippet": SNIPPET,
        "device": capture.device,
        "device_name": capture.environment.device_name,
        "elements": int(finite(data.get("elements"), f"{where}: elements", positive=True)),
        "bars": bars,
        "best_block": best,
        "copy_bytes_per_s": finite(data.get("copy_bytes_per_s"), f"{where}: copy_bytes_per_s", positive=True),
    }


def draw(inputs: dict, lang: str, layout: Layout) -> Figure:
    bars, best, copy = inputs["bars"], inputs["best_block"], inputs["copy_bytes_per_s"]
    wide = layout.width >= 600  # room for each bar's value above it and its program count under it
    # legend: the highlighted bar, the copy's line
    items = [("bar", S(lang, "best", block=best)), ("copy", S(lang, "copy", bw=format_bandwidth(copy)))]
    legend, lx, ly = [], 4.0, 14.0
    for kind, words in items:
        item = 28 + width(words, FONT)
        if lx > 4.0 and lx + item > layout.width:
            lx, ly = 4.0, ly + 22
        sample = (el("rect", cls="kb-bar kb-best", x=lx, y=ly - 7, width=18.0, height=14.0) if kind == "bar"
                  else el("path", cls="kb-roof", d=f"M{num(lx)} {num(ly)}h20"))
        legend.append(sample + text(lx + 28, ly + 4.5, words))
        lx += item + 20
    top = ly + 46 + (18 if wide else 0)  # room for the values above the bars
    left, right, plot_h = 72.0, layout.width - 12, 220.0
    yaxis = LinearY(top, plot_h, [b[2] for b in bars] + [copy])
    slot = (right - left) / len(bars)
    bar_w = min(slot * 0.64, 56.0)
    body = legend + [text(4, top - 22 - (18 if wide else 0), S(lang, "y_title"), cls="kb-small kb-muted")]
    body += yaxis.frame(left, right)
    drawn, ticks, counts, values = [], [], [], []
    for i, (block, programs, bps) in enumerate(bars):
        cx = left + slot * (i + 0.5)
        y = yaxis.y(bps)
        tip = title(S(lang, "bar", block=block, programs=f"{programs:,}", bw=format_bandwidth(bps)))
        cls = "kb-bar kb-best" if block == best else "kb-bar"
        drawn.append(el("rect", tip, cls=cls, x=cx - bar_w / 2, y=y, width=bar_w, height=yaxis.bottom - y,
                        data_block=block, data_bytes_per_s=f"{bps:.6g}"))
        ticks.append(el("text", str(block), x=cx))
        if wide:
            counts.append(el("text", f"{programs:,}", x=cx))
        if wide or block == best:
            values.append(text(cx, y - 6, format_bandwidth(bps), cls="kb-small kb-halo", text_anchor="middle"))
    copy_y = yaxis.y(copy)
    body.append(el("g", "".join(drawn), cls="kb-chart", data_chart="block_size", data_zero=num(yaxis.bottom),
                   data_top=num(yaxis.top), data_top_value=f"{yaxis.hi:.6g}"))
    body.append(el("path", cls="kb-roof", d=lines([(left, copy_y, right, copy_y)]), data_bytes_per_s=f"{copy:.6g}"))
    body += values
    body.append(el("g", "".join(ticks), cls="kb-small", text_anchor="middle", transform=f"translate(0 {num(yaxis.bottom + 19)})"))
    below = yaxis.bottom + 19
    if wide:  # each bar's program count under its block size
        body.append(el("g", "".join(counts), cls="kb-small kb-muted", text_anchor="middle", transform=f"translate(0 {num(below + 17)})"))
        below += 17
    body.append(text((left + right) / 2, below + 24, S(lang, "x_title_wide" if wide else "x_title"), cls="kb-small",
                     text_anchor="middle"))
    height = below + 32

    device = S.device_note(lang, [inputs])
    n = f"{inputs['elements']:,}"
    shown = S.join(lang, [f"{block} {format_bandwidth(bps)}" for block, _, bps in bars])
    alt = S(lang, "alt", n=n, lo=bars[0][0], hi=bars[-1][0], device=device, values=shown, best=best, copy=format_bandwidth(copy))
    caption = S(lang, "caption", n=n, device=device)
    data = {
        "bars": len(bars),
        "device": inputs["device"],
        "source": f"{inputs['snippet']} ({inputs['device']})",
        "best_block": best,
        "copy_gbs": round(copy / 1e9, 3),
    }
    return Figure(NAME, lang, (document(NAME, lang, layout, height, alt, body),), alt, caption, data)


register(FigureKind(NAME, needs=(SNIPPET,), inputs=inputs, draw=draw, device="cuda", subject=SUBJECT))
