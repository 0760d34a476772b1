"""``[[kb:figure traffic]]``: the memory traffic of eager ``(a + b).relu()`` against the fused kernel.

Drawn from :data:`TRAFFIC` (which arrays each kernel reads and writes), not from a capture.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...common.records import Capture
from .base import Figure, FigureKind, register
from .strings import Strings
from .svg import SMALL, Layout, Panel, arrange, arrow, document, el, esc, num, text, title, width

NAME = "traffic"


@dataclass(frozen=True)
class Pass:
    """One kernel's pass over the data: the arrays it reads from and writes to GPU memory."""

    kernel: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    in_registers: tuple[str, ...] = ()  # values the kernel keeps on the chip instead


ARRAYS = ("a", "b", "tmp", "c")  # left to right in GPU memory

# (a + b).relu(): eager runs one kernel per op and hands tmp over through GPU memory;
# the fused kernel keeps the sum in registers. Every number in the traffic figure, and
# the bytes the sweep's bandwidth chart assumes, come from this table.
TRAFFIC: dict[str, tuple[Pass, ...]] = {
    "eager": (
        Pass("add", reads=("a", "b"), writes=("tmp",)),
        Pass("relu", reads=("tmp",), writes=("c",)),
    ),
    "fused": (Pass("add + relu", reads=("a", "b"), writes=("c",), in_registers=("tmp",)),),
}


def transfers(version: str) -> int:
    """Array-sized transfers between GPU memory and the chip: 5 eager, 3 fused."""
    return sum(len(p.reads) + len(p.writes) for p in TRAFFIC[version])


def round_trips(version: str) -> tuple[str, ...]:
    """Arrays one kernel writes to GPU memory only for a later kernel to read back: eager's tmp."""
    return _round_trips([(p.reads, p.writes) for p in TRAFFIC[version]], ARRAYS)


def _round_trips(passes: Sequence[tuple[Sequence[str], Sequence[str]]], arrays: Sequence[str]) -> tuple[str, ...]:
    trips = []
    for name in arrays:
        written = [i for i, (_, writes) in enumerate(passes) if name in writes]
        read = [i for i, (reads, _) in enumerate(passes) if name in reads]
        if written and any(r > min(written) for r in read):
            trips.append(name)
    return tuple(trips)


S = Strings({
    "en": {
        "t_eager": "eager: {kernels}",
        "t_fused": "fused (torch.compile): {kernels}",
        "t_chip": "GPU chip",
        "t_memory": "GPU memory",
        "t_in_registers": "{names}: in registers only",
        "t_reads": "{kernel} reads {array}",
        "t_writes": "{kernel} writes {array}",
        "t_legend_read": "↑ read from GPU memory",
        "t_legend_write": "↓ write to GPU memory",
        "t_legend_trip": "{names}: written out, read back",
        "t_pass": "kernel {kernel} reads {reads} and writes {writes}",
        "t_pass_sep": "; ",
        "t_alt": "Memory traffic of (a + b).relu(). Eager: {eager_passes}. That is {eager_n} array-sized transfers "
        "between GPU memory and the chip, {trips} going out to GPU memory and back. Fused: {fused_passes}. "
        "That is {fused_n}, {kept} staying in registers.",
        "t_caption": "Eager (a + b).relu() makes {eager} between GPU memory and the chip, {trips} out and back "
        "among them; the fused kernel makes {fused}.",
    },
    "ja": {
        "t_eager": "イーガー版: {kernels}",
        "t_fused": "融合 (torch.compile): {kernels}",
        "t_chip": "GPU チップ",
        "t_memory": "GPU メモリ",
        "t_in_registers": "{names} はレジスタ内だけ",
        "t_reads": "{kernel} が {array} を読む",
        "t_writes": "{kernel} が {array} を書く",
        "t_legend_read": "↑ GPU メモリから読む",
        "t_legend_write": "↓ GPU メモリへ書く",
        "t_legend_trip": "{names}: 書き出して読み戻す",
        "t_pass": "カーネル {kernel} が {reads} を読んで {writes} を書く",
        "t_pass_sep": "。",
        "t_alt": "(a + b).relu() のメモリトラフィック。イーガー版: {eager_passes}。GPU メモリとチップのあいだの配列まるごとの"
        "転送は {eager_n} 回で、{trips} は GPU メモリへ出て戻ってくる。融合: {fused_passes}。転送は {fused_n} 回で、"
        "{kept} はレジスタに留まる。",
        "t_caption": "イーガー版の (a + b).relu() は GPU メモリとチップのあいだで配列まるごとの転送を {eager_n} 回 ({trips} の往復を含む) "
        "行い、融合したカーネルは {fused_n} 回で済みます。",
    },
})

SIDE_LABELS = 124.0  # room for "GPU chip" / "GPU memory" beside the bands, when the drawing has it
MIN_SLOT = 80.0  # the least room an array's box and its arrows need


def inputs(captures: Mapping[str, Capture]) -> dict:
    """The table itself: no capture is read."""
    return {
        "arrays": list(ARRAYS),
        "traffic": {
            version: [[p.kernel, list(p.reads), list(p.writes), list(p.in_registers)] for p in passes]
            for version, passes in TRAFFIC.items()
        },
    }


def draw(inputs: dict, lang: str, layout: Layout) -> Figure:
    arrays: list[str] = inputs["arrays"]
    versions = {v: [(k, r, w, keep) for k, r, w, keep in passes] for v, passes in inputs["traffic"].items()}
    counts = {v: sum(len(r) + len(w) for _, r, w, _ in passes) for v, passes in versions.items()}
    trips = {v: _round_trips([(r, w) for _, r, w, _ in passes], arrays) for v, passes in versions.items()}

    titles = {"eager": "t_eager", "fused": "t_fused"}
    panels = []
    for version, passes in versions.items():
        heading = S(lang, titles[version], kernels=S.count(lang, "kernels", len(passes)))
        panels.append(_panel(lang, version, passes, arrays, trips[version], heading, counts[version], layout.width))
    drawn, y = arrange(panels, layout.width, row_gap=14.0)
    # legend: what the arrows mean, and the round trip in the accent colour; it wraps on a phone
    all_trips = sorted({a for v in trips.values() for a in v}, key=arrays.index)
    items = [(S(lang, "t_legend_read"), None), (S(lang, "t_legend_write"), None)]
    if all_trips:
        items.append((S(lang, "t_legend_trip", names=S.join(lang, all_trips)), "kb-accent"))
    legend, legend_h = arrange([Panel(width(words, SMALL), 17.0, text(0, 13, words, cls=cls)) for words, cls in items],
                               layout.width - 20, gap=26.0, row_gap=2.0)
    body = [drawn, el("g", legend, cls="kb-small", transform=f"translate(10 {num(y + 10)})")]
    height = y + 10 + legend_h + 4

    def passes_text(version: str) -> str:
        passes = [S(lang, "t_pass", kernel=k, reads=S.join(lang, r), writes=S.join(lang, w)) for k, r, w, _ in versions[version]]
        return S.raw(lang, "t_pass_sep").join(passes)

    kept = S.join(lang, [a for _, _, _, keep in versions["fused"] for a in keep]) or "-"
    trip_names = S.join(lang, trips["eager"]) or "-"
    alt = S(
        lang,
        "t_alt",
        eager_passes=passes_text("eager"),
        eager_n=counts["eager"],
        trips=trip_names,
        fused_passes=passes_text("fused"),
        fused_n=S.count(lang, "transfers", counts["fused"]) if lang == "en" else counts["fused"],
        kept=kept,
    )
    caption = S(
        lang,
        "t_caption",
        eager=S.count(lang, "transfers", counts["eager"]),
        fused=S.count(lang, "transfers", counts["fused"]),
        eager_n=counts["eager"],
        fused_n=counts["fused"],
        trips=trip_names,
    )
    data = {
        "eager_transfers": counts["eager"],
        "fused_transfers": counts["fused"],
        "eager_kernels": len(versions["eager"]),
        "fused_kernels": len(versions["fused"]),
        "round_trips": list(trips["eager"]),
        "source": f"{__name__}.TRAFFIC",
    }
    return Figure(NAME, lang, (document(NAME, lang, layout, height, alt, body),), alt, caption, data)


def _panel(lang: str, version: str, passes: list, arrays: list[str], trips: tuple[str, ...], heading: str, count: int,
           room: float) -> Panel:
    """One panel, ``room`` wide: the chip with its kernels above, GPU memory with its arrays below, arrows between.

    Where the kernels and arrays leave room, "GPU chip" and "GPU memory" stand beside their
    bands; on a phone they go above the chip and below the memory, and the bands take the width.
    """
    beside = room - SIDE_LABELS - 16 >= MIN_SLOT * len(arrays)
    left, right = (SIDE_LABELS, room - 16) if beside else (10.0, room - 10)
    out: list[str] = [f'<g class="kb-panel" data-version="{esc(version)}">']
    chip_top = 28.0 if beside else 48.0
    chip_h, mem_h = 58.0, 52.0
    mem_top = chip_top + 118
    out.append(el("rect", cls="kb-band", x=10.0, y=chip_top, width=room - 20.0, height=chip_h, rx=6.0))
    out.append(el("rect", cls="kb-band", x=10.0, y=mem_top, width=room - 20.0, height=mem_h, rx=6.0))
    # the count at the heading's right; on a phone at the right of the "GPU chip" line, where a
    # long heading ("fused (torch.compile): 1 kernel") leaves it room
    heads = [
        text(10, 16, heading),
        text(room - 10, 17 if beside else chip_top - 7, S.count(lang, "transfers", count), cls="kb-big kb-transfer-count",
             text_anchor="end"),
    ]
    if beside:
        heads += [text(20, chip_top + chip_h / 2 + 4.5, S(lang, "t_chip")), text(20, mem_top + mem_h / 2 + 4.5, S(lang, "t_memory"))]
    else:
        heads += [text(14, chip_top - 7, S(lang, "t_chip")), text(14, mem_top + mem_h + 17, S(lang, "t_memory"))]
    out.append(el("g", "".join(heads), cls="kb-bold"))

    # arrays: fixed slots left to right, so both panels line up; unused ones are ghosts
    slot = (right - left) / len(arrays)
    ax = {a: left + (i + 0.5) * slot for i, a in enumerate(arrays)}
    box_w, box_h, box_top = min(76.0, slot - 12), 32.0, mem_top + 10
    used = {a for _, r, w, _ in passes for a in (*r, *w)}

    # kernels: equal slots across the chip, in launch order
    kslot = (right - left) / len(passes)
    kboxes = [(left + i * kslot + 12, kslot - 24) for i in range(len(passes))]
    k_top, k_h = chip_top + 9, 40.0

    # transfers in order: each kernel's reads, then its writes
    moves: list[tuple[int, str, str]] = []
    for i, (_, reads, writes, _) in enumerate(passes):
        moves += [(i, a, "read") for a in reads] + [(i, a, "write") for a in writes]
    # where each arrow meets its array: spread when an array has several
    at_array: dict[int, float] = {}
    for a in arrays:
        mine = [j for j, t in enumerate(moves) if t[1] == a]
        for n, j in enumerate(mine):
            at_array[j] = ax[a] + (n - (len(mine) - 1) / 2) * 22
    # where it meets its kernel: straight above the array if the kernel box spans it
    at_kernel: dict[int, float] = {}
    for i, (x, w) in enumerate(kboxes):
        mine = sorted((j for j, t in enumerate(moves) if t[0] == i), key=lambda j: at_array[j])
        last = -math.inf
        for j in mine:
            pos = min(max(at_array[j], x + 16), x + w - 16)
            pos = max(pos, last + 24)
            at_kernel[j] = pos
            last = pos

    for j, (i, a, direction) in enumerate(moves):
        kernel = passes[i][0]
        top = (at_kernel[j], k_top + k_h)
        bottom = (at_array[j], box_top)
        start, end = (bottom, top) if direction == "read" else (top, bottom)
        cls = "kb-transfer kb-roundtrip" if a in trips else "kb-transfer"
        tip = S(lang, "t_reads" if direction == "read" else "t_writes", kernel=kernel, array=a)
        mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        # shaft (2.5 wide on a round trip), head, and the numbered badge: painted by the CSS
        parts = [title(tip), *arrow(*start, *end)]
        parts.append(el("circle", cx=float(mx), cy=float(my), r=10.0))
        parts.append(text(mx, my + 4.2, str(j + 1)))
        out.append(el("g", "".join(parts), cls=cls, data_kernel=kernel, data_array=a, data_direction=direction))

    # boxes, then their centred labels in one group (boxes never cover another box's label)
    boxes: list[str] = []
    labels: list[str] = []  # in monospace bold
    others: list[str] = []
    for (kernel, _, _, keep), (x, w) in zip(passes, kboxes):
        boxes.append(el("rect", cls="kb-box", x=float(x), y=k_top, width=float(w), height=k_h, rx=5.0))
        if keep:
            labels.append(text(x + w / 2, k_top + 17, kernel))
            note = S(lang, "t_in_registers", names=S.join(lang, keep))
            others.append(text(x + w / 2, k_top + 33, note, cls="kb-small kb-muted"))
        else:
            labels.append(text(x + w / 2, k_top + k_h / 2 + 4.5, kernel))

    for a in arrays:
        x = ax[a] - box_w / 2
        if a in used:
            cls = "kb-box kb-roundtrip-box" if a in trips else "kb-box"
            boxes.append(el("rect", cls=cls, x=float(x), y=box_top, width=box_w, height=box_h, rx=4.0))
            labels.append(text(ax[a], box_top + box_h / 2 + 4.5, a))
        else:  # not in GPU memory at all in this version
            boxes.append(el("rect", cls="kb-ghost kb-array-ghost", x=float(x), y=box_top, width=box_w, height=box_h, rx=4.0))
            others.append(text(ax[a], box_top + box_h / 2 + 4.5, a, cls="kb-mono kb-muted"))
    out += boxes
    out.append(el("g", el("g", "".join(labels), cls="kb-mono kb-bold") + "".join(others), text_anchor="middle"))
    out.append("</g>")
    return Panel(room, mem_top + mem_h + (2 if beside else 24), "".join(out))


register(FigureKind(NAME, needs=(), inputs=inputs, draw=draw))
