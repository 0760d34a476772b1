"""Figures for the pages: inline SVG drawn from captures. Pure: standard library only.

``figure(name, lang, captures)`` draws one of :data:`FIGURES` in one of :data:`LANGS`
from the captures the page shows (the caller picks CUDA when fresh, else CPU);
``data_key(name, captures)`` is a sha256 of exactly what that figure is drawn from,
plus this drawing code, so a build regenerates a figure only when one of them changes.
Same input, byte-identical SVG.

Every SVG is self-contained (no fonts, no links, no external references), sized by
its ``viewBox`` at ``width="100%"``, coloured only through mkdocs-material's CSS
custom properties (with fallbacks) in a ``<style>`` scoped by a class unique to the
figure and language, so it reads in the light and the dark ("slate") scheme, and
named for screen readers by a ``<title>`` holding the alt text (``role="img"``,
``aria-labelledby``). Text is real ``<text>``: selectable, translated, escaped.

* ``traffic``: the memory traffic of eager ``(a + b).relu()`` against the fused kernel,
  drawn from :data:`TRAFFIC` (which arrays each kernel reads and writes).
* ``timeline``: one profiled call of each version on a shared time axis, from the last
  session of ``ch01/eager_profile`` and ``ch01/compiled_profile``.
* ``sweep``: time per call and effective bandwidth against tensor length, from
  ``ch01/size_sweep``'s data, with the measured copy bandwidth as the roof.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import kernels
from .records import Capture

FIGURES = ("traffic", "timeline", "sweep")
LANGS = ("ja", "en")

EAGER_PROFILE = "ch01/eager_profile"
COMPILED_PROFILE = "ch01/compiled_profile"
SIZE_SWEEP = "ch01/size_sweep"

# Which captures each figure is drawn from.
NEEDS: dict[str, tuple[str, ...]] = {
    "traffic": (),
    "timeline": (EAGER_PROFILE, COMPILED_PROFILE),
    "sweep": (SIZE_SWEEP,),
}


@dataclass(frozen=True)
class Figure:
    """One drawn figure, ready to inline in a page of language ``lang``."""

    name: str  # "traffic" | "timeline" | "sweep"
    lang: str  # "ja" | "en"
    svg: str  # a complete <svg ...>...</svg> element
    alt: str  # alt text in the page's language (also the <title> the svg is labelled by)
    caption: str  # one sentence in the page's language, plain text
    data: dict  # what it was drawn from, e.g. {"eager_kernel_bars": 2, ...}


class MissingCapture(KeyError):
    """A figure needs a capture the caller did not pass; the message names the snippet."""

    def __str__(self) -> str:  # KeyError would print the repr, quotes and all
        return str(self.args[0]) if self.args else ""


# ---------------------------------------------------------------- the traffic table


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


# ---------------------------------------------------------------- words

_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "kernels_1": "1 kernel",
        "kernels_n": "{n} kernels",
        "transfers_1": "1 transfer",
        "transfers_n": "{n} transfers",
        "list_sep": ", ",
        "list_last": " and ",
        # traffic
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
        # timeline
        "l_eager": "eager: {kernels}",
        "l_compiled": "torch.compile: {kernels}",
        "l_lane_launch": "CPU launches",
        "l_lane_gpu": "GPU kernels",
        "l_lane_op": "CPU ops",
        "l_lane_cpu": "CPU kernels",
        "l_axis": "time since the profile started (µs)",
        "l_tip": "{name}: starts at {ts} µs, takes {dur} µs",
        "l_group_alt": "{title} ({names}), the last ending at {end} µs",
        "l_alt": "Timeline of one profiled call of each version on a shared time axis{device}. {groups}.",
        "l_caption": "One profiled call of each version on a shared time axis: eager launches {eager}, "
        "torch.compile launches {compiled}{device}.",
        "l_groups_sep": "; ",
        # sweep
        "s_time": "(a) time per call",
        "s_bw": "(b) effective bandwidth",
        "s_bw_sub": "bytes moved ÷ time",
        "s_x": "elements (log scale)",
        "s_eager": "eager",
        "s_compiled": "torch.compile",
        "s_roof": "copy bandwidth {bw}",
        "s_point_time": "{n} elements: {value}",  # tooltips: the marker's shape and colour say the series
        "s_point_bw": "{n} elements: {value} ({arrays} arrays moved)",
        "s_alt": "Two log–log charts over {k} tensor lengths from {lo} to {hi} elements{device}. Left: time per "
        "call; at {hi} elements eager took {eager_t} and torch.compile {compiled_t}. Right: effective "
        "bandwidth, counting {eager_arrays} arrays moved for eager and {fused_arrays} for compiled; at "
        "{hi} elements eager reached {eager_bw} and torch.compile {compiled_bw}{roof}.",
        "s_alt_roof": ", against a measured copy bandwidth of {bw}",
        "s_caption": "Eager versus compiled (a + b).relu() from {lo} to {hi} elements: time per call, and the "
        "bandwidth each reaches if eager moves {eager_arrays} arrays and compiled {fused_arrays}{device}.",
        # devices
        "on_cpu": " (CPU rehearsal)",
        "on_gpu": " ({name})",
        "on_mixed": " (eager on {eager}, compiled on {compiled})",
    },
    "ja": {
        "kernels_1": "カーネル 1 個",
        "kernels_n": "カーネル {n} 個",
        "transfers_1": "転送 1 回",
        "transfers_n": "転送 {n} 回",
        "list_sep": "、",
        "list_last": "、",
        # traffic
        "t_eager": "イーガー: {kernels}",
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
        "t_alt": "(a + b).relu() のメモリトラフィック。イーガー: {eager_passes}。GPU メモリとチップのあいだの配列まるごとの"
        "転送は {eager_n} 回で、{trips} は GPU メモリへ出て戻ってくる。融合: {fused_passes}。転送は {fused_n} 回で、"
        "{kept} はレジスタに留まる。",
        "t_caption": "イーガーの (a + b).relu() は GPU メモリとチップのあいだで配列まるごとの転送を {eager_n} 回 ({trips} の往復を含む) "
        "行い、融合したカーネルは {fused_n} 回で済みます。",
        # timeline
        "l_eager": "イーガー: {kernels}",
        "l_compiled": "torch.compile: {kernels}",
        "l_lane_launch": "CPU 起動",
        "l_lane_gpu": "GPU カーネル",
        "l_lane_op": "CPU 演算",
        "l_lane_cpu": "CPU カーネル",
        "l_axis": "プロファイル開始からの時間 (µs)",
        "l_tip": "{name}: 開始 {ts} µs、所要 {dur} µs",
        "l_group_alt": "{title} ({names})、最後のものは {end} µs に終了",
        "l_alt": "各版の 1 回の呼び出しを共通の時間軸に並べたタイムライン{device}。{groups}。",
        "l_caption": "各版の 1 回の呼び出しを共通の時間軸に並べたもの: イーガーは{eager}、torch.compile は{compiled}"
        "を起動します{device}。",
        "l_groups_sep": "。",
        # sweep
        "s_time": "(a) 1 回あたりの時間",
        "s_bw": "(b) 実効帯域",
        "s_bw_sub": "動かすバイト数 ÷ 時間",
        "s_x": "要素数 (対数目盛)",
        "s_eager": "イーガー",
        "s_compiled": "torch.compile",
        "s_roof": "コピー帯域 {bw}",
        "s_point_time": "{n} 要素: {value}",
        "s_point_bw": "{n} 要素: {value} (配列 {arrays} 本分)",
        "s_alt": "要素数 {lo} から {hi} までの {k} 通りの長さについての両対数グラフ 2 つ{device}。左: 1 回あたりの時間。"
        "{hi} 要素でイーガーは {eager_t}、torch.compile は {compiled_t}。右: イーガーは配列 {eager_arrays} 本分、"
        "コンパイル版は {fused_arrays} 本分を動かすとした実効帯域。{hi} 要素でイーガーは {eager_bw}、"
        "torch.compile は {compiled_bw}{roof}。",
        "s_alt_roof": "。測定したコピー帯域は {bw}",
        "s_caption": "要素数 {lo} から {hi} までのイーガー版とコンパイル版の (a + b).relu(): 1 回あたりの時間と、"
        "イーガーが配列 {eager_arrays} 本分、コンパイル版が {fused_arrays} 本分を動かすとしたときの実効帯域{device}。",
        # devices
        "on_cpu": " (CPU での予行演習)",
        "on_gpu": " ({name})",
        "on_mixed": " (イーガーは {eager}、コンパイル版は {compiled} で測定)",
    },
}


def _t(lang: str, key: str, **values: Any) -> str:
    return _STRINGS[lang][key].format(**values)


def _count(lang: str, what: str, n: int) -> str:
    return _t(lang, f"{what}_1" if n == 1 else f"{what}_n", n=n)


def _join(lang: str, items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return _STRINGS[lang]["list_sep"].join(items[:-1]) + _STRINGS[lang]["list_last"] + items[-1]


# ---------------------------------------------------------------- the interface


def figure(name: str, lang: str, captures: Mapping[str, Capture]) -> Figure:
    """Draw figure ``name`` in language ``lang`` from ``captures`` (snippet id -> capture).

    Raises ``MissingCapture`` (a ``KeyError``) naming the snippet when a needed capture is
    absent, and ``ValueError`` for an unknown figure or language or unusable data.
    """
    _check(name, lang)
    inputs = _inputs(name, captures)
    draw: Callable[[dict, str], Figure] = _DRAW[name]
    return draw(inputs, lang)


def data_key(name: str, captures: Mapping[str, Capture]) -> str:
    """sha256 (hex) of exactly the data figure ``name`` is drawn from, and of the drawing code.

    The same for both languages. Unrelated parts of a capture (stdout, wall time, other
    sessions' events) do not change it; a kernel's time or name does.
    """
    _check(name, "en")
    payload = {"figure": name, "code": _CODE_HASH, "inputs": _inputs(name, captures)}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _check(name: str, lang: str) -> None:
    if name not in FIGURES:
        raise ValueError(f"unknown figure {name!r}; kernelbook draws {', '.join(FIGURES)}")
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r} for figure {name!r}; expected one of {', '.join(LANGS)}")


def _code_hash() -> str:
    """The drawing code (this module and the kernel-name shortener): part of every data key."""
    digest = hashlib.sha256()
    for module_file in (__file__, kernels.__file__):
        try:
            digest.update(Path(module_file).read_bytes())
        except (OSError, TypeError):  # e.g. run from a zip: fall back to the version
            from . import __version__

            digest.update(f"kernelbook {__version__}".encode())
    return digest.hexdigest()


_CODE_HASH = _code_hash()


def _need(captures: Mapping[str, Capture], snippet: str, name: str) -> Capture:
    capture = captures.get(snippet)
    if capture is None:
        have = ", ".join(sorted(captures)) or "none"
        raise MissingCapture(
            f"figure {name!r} needs the capture of {snippet}, which was not given (given: {have}); "
            f"run `kernelbook capture {snippet}`"
        )
    return capture


def _inputs(name: str, captures: Mapping[str, Capture]) -> dict:
    """Exactly what figure ``name`` is drawn from, as plain JSON-able data (validated)."""
    if name == "traffic":
        return {
            "arrays": list(ARRAYS),
            "traffic": {
                version: [[p.kernel, list(p.reads), list(p.writes), list(p.in_registers)] for p in passes]
                for version, passes in TRAFFIC.items()
            },
        }
    if name == "timeline":
        return {"groups": [_timeline_group(captures, snippet) for snippet in NEEDS["timeline"]]}
    return _sweep_inputs(captures)


def _finite(value: Any, what: str, *, positive: bool = False) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: expected a number, got {value!r}") from None
    if not math.isfinite(number) or number < 0 or (positive and number == 0):
        raise ValueError(f"{what}: expected a {'positive' if positive else 'non-negative'} finite number, got {value!r}")
    return number


# ---------------------------------------------------------------- SVG pieces


def _esc(text: Any) -> str:
    """Text or attribute value, escaped for XML; characters XML cannot hold are dropped."""
    clean = "".join(
        ch
        for ch in str(text)
        if ch in "\t\n\r" or (0x20 <= ord(ch) < 0xD800) or (0xE000 <= ord(ch) <= 0xFFFD) or ord(ch) >= 0x10000
    )
    return clean.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _num(x: float) -> str:
    """A coordinate: at most one decimal (a tenth of a viewBox unit is under a pixel at any
    width the page shows), no trailing zeros, never ``-0``."""
    text = f"{x:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _attrs(attrs: Mapping[str, Any]) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = "class" if key == "cls" else key.replace("_", "-")
        text = _num(value) if isinstance(value, float) else str(value)
        parts.append(f' {name}="{_esc(text)}"')
    return "".join(parts)


def _el(tag: str, content: str | None = None, **attrs: Any) -> str:
    if content is None:
        return f"<{tag}{_attrs(attrs)}/>"
    return f"<{tag}{_attrs(attrs)}>{content}</{tag}>"


def _text(x: float, y: float, text: str, **attrs: Any) -> str:
    return _el("text", _esc(text), x=float(x), y=float(y), **attrs)


def _title(text: str) -> str:
    return f"<title>{_esc(text)}</title>"


def _width(text: str, size: float, *, mono: bool = False, bold: bool = False) -> float:
    """A generous estimate of the drawn width: the page's font is not known here."""
    units = 0.0
    for ch in text:
        if unicodedata.east_asian_width(ch) in ("W", "F"):
            units += 1.0
        elif mono:
            units += 0.61
        elif ch.isupper() or ch.isdigit() or ch in "mwMW":
            units += 0.68
        elif ch in "iljtf.,:;'|!() ":
            units += 0.36
        else:
            units += 0.58
    return units * size * (1.08 if bold else 1.0)


def _fit(text: str, room: float, size: float, *, mono: bool = False, min_chars: int = 3) -> str:
    """``text`` cut with an ellipsis to fit ``room``; "" when not even ``min_chars`` fit."""
    if _width(text, size, mono=mono) <= room:
        return text
    for n in range(len(text) - 1, 0, -1):
        cut = text[:n].rstrip() + "…"
        if _width(cut, size, mono=mono) <= room:
            return cut if n >= min_chars else ""
    return ""


# Colours: mkdocs-material's custom properties, which its light and dark ("slate")
# schemes both define; the fallbacks keep the figure readable outside the theme.
FG = "var(--md-default-fg-color,currentColor)"
TEXT = "var(--md-default-fg-color,CanvasText)"
FG_LIGHT = "var(--md-default-fg-color--light,#888)"
FG_LIGHTEST = "var(--md-default-fg-color--lightest,#88888829)"  # 0x29/255: alpha .16
BG = "var(--md-default-bg-color,Canvas)"
ACCENT = "var(--md-accent-fg-color,#e6357a)"
MONO = "var(--md-code-font-family,ui-monospace,monospace)"

FONT = 14  # body text, in viewBox units (every viewBox is 720 wide)
SMALL = 13  # ticks, kernel names, notes: never below 11, so that 375 px screens can still read it


def _css(cls: str, body: str = "") -> str:
    """Styles scoped to one figure in one language: colours by role, never hard-coded.

    Only the rules whose classes and elements the drawing uses are kept: the SVG is inlined
    in the page, so every byte here is a byte of every page load. Presentation shared by
    many elements (stroke widths, marker fills, the badges' text) lives here rather than on
    each element, for the same reason.
    """
    s = f".{cls}"
    rules = [
        ("", f"color:{FG};font-size:{FONT}px"),  # text inherits the size; .kb-small on a group shrinks all of it
        (" text", f"fill:{TEXT}"),
        (" .kb-small", f"font-size:{SMALL}px"),
        (" .kb-big", "font-size:16px"),
        (" .kb-bold", "font-weight:700"),
        (" .kb-mono", f"font-family:{MONO}"),
        (" .kb-muted", f"fill:{FG_LIGHT}"),
        (" .kb-accent", f"fill:{ACCENT}"),
        (" .kb-band", f"fill:{FG_LIGHTEST}"),
        (" .kb-box", f"fill:{BG};stroke:currentColor;stroke-width:1.5"),
        (" .kb-ghost", f"fill:none;stroke:{FG_LIGHT};stroke-width:1.5;stroke-dasharray:5 4"),
        # one path of straight segments each (nothing to fill), 1 wide (the default)
        (" .kb-grid", f"stroke:{FG_LIGHTEST}"),
        (" .kb-axis", f"stroke:{FG_LIGHT}"),
        (" .kb-roundtrip", f"color:{ACCENT}"),
        (" .kb-box.kb-roundtrip-box", f"stroke:{ACCENT};stroke-width:2"),
        # a transfer: shaft, head, numbered badge
        (" .kb-transfer line", "stroke:currentColor;stroke-width:2"),
        (" .kb-roundtrip line", "stroke-width:2.5"),
        (" .kb-transfer path", "fill:currentColor"),
        (" .kb-transfer circle", f"fill:{BG};stroke:currentColor;stroke-width:1.5"),
        (" .kb-transfer text", f"fill:currentColor;font-size:{SMALL}px;font-weight:700;text-anchor:middle"),
        # timeline: bars, and the kernel names under them
        (" .kb-cpu-bar", f"fill:{FG_LIGHT}"),
        (" .kb-kernel-bar", f"fill:{ACCENT}"),
        (" .kb-group g text", f"font-size:{SMALL}px;font-family:{MONO}"),
        # sweep: series lines and their markers
        (" .kb-eager", "fill:currentColor"),  # in the figure's colour
        (" .kb-compiled", f"color:{ACCENT};fill:currentColor"),
        (" polyline", "fill:none;stroke:currentColor;stroke-width:2;stroke-linejoin:round"),
        (" .kb-roof", f"stroke:{FG_LIGHT};stroke-width:1.5;stroke-dasharray:6 4"),
        (" .kb-roof-label", f"fill:{FG_LIGHT};stroke:{BG};stroke-width:4px;stroke-linejoin:round;paint-order:stroke"),
    ]
    used = {c for group in re.findall(r'class="([^"]*)"', body) for c in group.split()}
    tags = set(re.findall(r"<([a-z]+)", body))

    def needed(tail: str) -> bool:
        return all(c in used for c in re.findall(r"\.(kb-[\w-]+)", tail)) and all(
            t in tags for t in re.findall(r"(?:^|\s)([a-z]+)", tail)
        )

    return "".join(f"{s}{tail}{{{decl}}}" for tail, decl in rules if needed(tail))


def _svg(name: str, lang: str, width: int, height: float, alt: str, body: Sequence[str]) -> str:
    cls = f"kb-fig-{name}-{lang}"
    title_id = f"{cls}-title"
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" viewBox="0 0 {width} {_num(height)}" '
        f'width="100%" role="img" aria-labelledby="{title_id}" lang="{lang}" '
        f'style="height:auto;max-width:100%;display:block">'
    )
    drawing = "".join(body)
    parts = [head, f'<title id="{title_id}">{_esc(alt)}</title>', f"<style>{_css(cls, drawing)}</style>", drawing, "</svg>"]
    return "\n".join(parts)


def _arrow(x1: float, y1: float, x2: float, y2: float, head: float = 9.0) -> list[str]:
    """A shaft from (x1, y1) to (x2, y2) and a filled head at its end (their paint is the CSS's)."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    bx, by = x2 - ux * head, y2 - uy * head
    px, py = -uy * head * 0.5, ux * head * 0.5
    return [
        _el("line", x1=float(x1), y1=float(y1), x2=float(bx), y2=float(by)),
        _el("path", d=f"M{_num(x2)} {_num(y2)}L{_num(bx + px)} {_num(by + py)}L{_num(bx - px)} {_num(by - py)}Z"),
    ]


def _lines(segments: Sequence[tuple[float, float, float, float]]) -> str:
    """Horizontal and vertical segments (x1, y1, x2, y2) as one path's data: M x y H x2 or V y2."""
    d = []
    for x1, y1, x2, y2 in segments:
        d.append(f"M{_num(x1)} {_num(y1)}" + (f"H{_num(x2)}" if y1 == y2 else f"V{_num(y2)}"))
    return "".join(d)


# ---------------------------------------------------------------- traffic

_TW = 720  # viewBox width of every figure
_T_LEFT, _T_RIGHT = 124.0, 704.0  # where kernels and arrays go; labels left of it


def _draw_traffic(inputs: dict, lang: str) -> Figure:
    arrays: list[str] = inputs["arrays"]
    versions = {v: [(k, r, w, keep) for k, r, w, keep in passes] for v, passes in inputs["traffic"].items()}
    counts = {v: sum(len(r) + len(w) for _, r, w, _ in passes) for v, passes in versions.items()}
    trips = {v: _round_trips([(r, w) for _, r, w, _ in passes], arrays) for v, passes in versions.items()}

    body: list[str] = []
    y = 4.0
    titles = {"eager": "t_eager", "fused": "t_fused"}
    for version, passes in versions.items():
        title = _t(lang, titles[version], kernels=_count(lang, "kernels", len(passes)))
        panel, height = _traffic_panel(lang, version, passes, arrays, trips[version], y, title, counts[version])
        body += panel
        y += height + 14
    # legend: what the arrows mean, and the round trip in the accent colour
    all_trips = sorted({a for v in trips.values() for a in v}, key=arrays.index)
    items = [(_t(lang, "t_legend_read"), None), (_t(lang, "t_legend_write"), None)]
    if all_trips:
        items.append((_t(lang, "t_legend_trip", names=_join(lang, all_trips)), "kb-accent"))
    x = 10.0
    legend = []
    for label, cls in items:
        legend.append(_text(x, y + 10, label, cls=cls))
        x += _width(label, SMALL) + 26
    body.append(_el("g", "".join(legend), cls="kb-small"))
    height = y + 18

    def passes_text(version: str) -> str:
        passes = [_t(lang, "t_pass", kernel=k, reads=_join(lang, r), writes=_join(lang, w)) for k, r, w, _ in versions[version]]
        return _STRINGS[lang]["t_pass_sep"].join(passes)

    kept = _join(lang, [a for _, _, _, keep in versions["fused"] for a in keep]) or "-"
    trip_names = _join(lang, trips["eager"]) or "-"
    alt = _t(
        lang,
        "t_alt",
        eager_passes=passes_text("eager"),
        eager_n=counts["eager"],
        trips=trip_names,
        fused_passes=passes_text("fused"),
        fused_n=_count(lang, "transfers", counts["fused"]) if lang == "en" else counts["fused"],
        kept=kept,
    )
    caption = _t(
        lang,
        "t_caption",
        eager=_count(lang, "transfers", counts["eager"]),
        fused=_count(lang, "transfers", counts["fused"]),
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
        "source": "kernelbook.figures.TRAFFIC",
    }
    return Figure("traffic", lang, _svg("traffic", lang, _TW, height, alt, body), alt, caption, data)


def _traffic_panel(
    lang: str,
    version: str,
    passes: list,
    arrays: list[str],
    trips: tuple[str, ...],
    y0: float,
    title: str,
    count: int,
) -> tuple[list[str], float]:
    """One panel: the chip with its kernels above, GPU memory with its arrays below, arrows between."""
    out: list[str] = [f'<g class="kb-panel" data-version="{_esc(version)}">']
    chip_top, chip_h = y0 + 28, 58.0
    mem_top, mem_h = y0 + 146, 52.0
    out.append(_el("rect", cls="kb-band", x=10.0, y=chip_top, width=_TW - 20.0, height=chip_h, rx=6.0))
    out.append(_el("rect", cls="kb-band", x=10.0, y=mem_top, width=_TW - 20.0, height=mem_h, rx=6.0))
    label = _count(lang, "transfers", count)
    heads = [
        _text(10, y0 + 16, title),
        _text(_TW - 10, y0 + 17, label, cls="kb-big kb-transfer-count", text_anchor="end"),
        _text(20, chip_top + chip_h / 2 + 4.5, _t(lang, "t_chip")),
        _text(20, mem_top + mem_h / 2 + 4.5, _t(lang, "t_memory")),
    ]
    out.append(_el("g", "".join(heads), cls="kb-bold"))

    # arrays: fixed slots left to right, so both panels line up; unused ones are ghosts
    slot = (_T_RIGHT - _T_LEFT) / len(arrays)
    ax = {a: _T_LEFT + (i + 0.5) * slot for i, a in enumerate(arrays)}
    box_w, box_h, box_top = 76.0, 32.0, mem_top + 10
    used = {a for _, r, w, _ in passes for a in (*r, *w)}

    # kernels: equal slots across the chip, in launch order
    kslot = (_T_RIGHT - _T_LEFT) / len(passes)
    kboxes = [(_T_LEFT + i * kslot + 12, kslot - 24) for i in range(len(passes))]
    k_top, k_h = chip_top + 9, 40.0

    # transfers in order: each kernel's reads, then its writes
    transfers_: list[tuple[int, str, str]] = []
    for i, (_, reads, writes, _) in enumerate(passes):
        transfers_ += [(i, a, "read") for a in reads] + [(i, a, "write") for a in writes]
    # where each arrow meets its array: spread when an array has several
    at_array: dict[int, float] = {}
    for a in arrays:
        mine = [j for j, t in enumerate(transfers_) if t[1] == a]
        for n, j in enumerate(mine):
            at_array[j] = ax[a] + (n - (len(mine) - 1) / 2) * 22
    # where it meets its kernel: straight above the array if the kernel box spans it
    at_kernel: dict[int, float] = {}
    for i, (x, w) in enumerate(kboxes):
        mine = sorted((j for j, t in enumerate(transfers_) if t[0] == i), key=lambda j: at_array[j])
        last = -math.inf
        for j in mine:
            pos = min(max(at_array[j], x + 16), x + w - 16)
            pos = max(pos, last + 24)
            at_kernel[j] = pos
            last = pos

    for j, (i, a, direction) in enumerate(transfers_):
        kernel = passes[i][0]
        top = (at_kernel[j], k_top + k_h)
        bottom = (at_array[j], box_top)
        start, end = (bottom, top) if direction == "read" else (top, bottom)
        trip = a in trips
        cls = "kb-transfer kb-roundtrip" if trip else "kb-transfer"
        tip = _t(lang, "t_reads" if direction == "read" else "t_writes", kernel=kernel, array=a)
        mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        # shaft (2.5 wide on a round trip), head, and the numbered badge: painted by the CSS
        parts = [_title(tip), *_arrow(*start, *end)]
        parts.append(_el("circle", cx=float(mx), cy=float(my), r=10.0))
        parts.append(_text(mx, my + 4.2, str(j + 1)))
        out.append(_el("g", "".join(parts), cls=cls, data_kernel=kernel, data_array=a, data_direction=direction))

    # boxes, then their centred labels in one group (boxes never cover another box's label)
    boxes: list[str] = []
    labels: list[str] = []  # in monospace bold
    others: list[str] = []
    for i, ((kernel, _, _, keep), (x, w)) in enumerate(zip(passes, kboxes)):
        boxes.append(_el("rect", cls="kb-box", x=float(x), y=k_top, width=float(w), height=k_h, rx=5.0))
        if keep:
            labels.append(_text(x + w / 2, k_top + 17, kernel))
            note = _t(lang, "t_in_registers", names=_join(lang, keep))
            others.append(_text(x + w / 2, k_top + 33, note, cls="kb-small kb-muted"))
        else:
            labels.append(_text(x + w / 2, k_top + k_h / 2 + 4.5, kernel))

    for a in arrays:
        x = ax[a] - box_w / 2
        if a in used:
            cls = "kb-box kb-roundtrip-box" if a in trips else "kb-box"
            boxes.append(_el("rect", cls=cls, x=float(x), y=box_top, width=box_w, height=box_h, rx=4.0))
            labels.append(_text(ax[a], box_top + box_h / 2 + 4.5, a))
        else:  # not in GPU memory at all in this version
            boxes.append(_el("rect", cls="kb-ghost kb-array-ghost", x=float(x), y=box_top, width=box_w, height=box_h, rx=4.0))
            others.append(_text(ax[a], box_top + box_h / 2 + 4.5, a, cls="kb-mono kb-muted"))
    out += boxes
    out.append(_el("g", _el("g", "".join(labels), cls="kb-mono kb-bold") + "".join(others), text_anchor="middle"))
    out.append("</g>")
    return out, mem_top + mem_h - y0


# ---------------------------------------------------------------- timeline


def _timeline_group(captures: Mapping[str, Capture], snippet: str) -> dict:
    capture = _need(captures, snippet, "timeline")
    where = f"{snippet} ({capture.device})"
    session = capture.last_session
    if session is None:
        raise ValueError(f"figure 'timeline': the capture of {where} has no profiling session; re-run `kernelbook capture {snippet}`")
    cpu_kind = "launch" if session.device_kind == "cuda" else "op"
    events = []
    for e in session.events:
        if e.kind in ("kernel", cpu_kind):
            ts = _finite(e.ts_us, f"figure 'timeline': {where}: event {e.name!r} start")
            dur = _finite(e.dur_us, f"figure 'timeline': {where}: event {e.name!r} duration")
            events.append([e.kind, e.name, ts, dur])
    bars = sum(1 for e in events if e[0] == "kernel")
    if bars != session.launches:
        raise ValueError(
            f"figure 'timeline': the capture of {where} records {session.launches} kernel launches but "
            f"{bars} kernel events to draw; re-run `kernelbook capture --force {snippet}`"
        )
    return {
        "snippet": snippet,
        "device": capture.device,
        "device_kind": session.device_kind,
        "device_name": capture.environment.device_name,
        "launches": session.launches,
        "events": events,
    }


def _place_label(text: str, bar_x: float, lo: float, hi: float) -> tuple[str, float]:
    """Where a bar's label goes, between ``lo`` and ``hi``: at the bar if it fits, else moved
    left (a little, never before ``lo``), else shortened; ("", x) when nothing fits."""
    width = _width(text, SMALL, mono=True)
    start = max(lo, min(bar_x, hi - width), bar_x - 48)
    if start + width <= hi:
        return text, start
    return _fit_name(text, hi - start), start


def _fit_name(text: str, room: float) -> str:
    """A kernel name cut to ``room``: keep its ``<Functor>`` tag, which says what it computes."""
    if _width(text, SMALL, mono=True) <= room:
        return text
    cut = text.find("<")
    if cut > 3 and text.endswith(">"):
        base, tag = text[:cut], text[cut:]
        for n in range(len(base) - 1, 2, -1):
            short = base[:n] + "…" + tag
            if _width(short, SMALL, mono=True) <= room:
                return short
    return _fit(text, room, SMALL, mono=True)


def _nice_step(span: float, target: int = 5) -> float:
    raw = max(span, 1e-9) / target
    magnitude = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * magnitude * 1.0000001:
            return m * magnitude
    return 10 * magnitude


def _fmt_tick(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
    return f"{value:,.{decimals}f}"


def _fmt_us(value: float) -> str:
    return f"{value:,.1f}"


def _device_note(lang: str, groups: Sequence[dict]) -> str:
    kinds = [g["device"] for g in groups]
    if len(set(kinds)) > 1:
        names = ["CPU" if g["device"] == "cpu" else g["device_name"] for g in groups]
        return _t(lang, "on_mixed", eager=names[0], compiled=names[-1])
    if kinds and kinds[0] == "cuda":
        return _t(lang, "on_gpu", name=groups[0]["device_name"])
    return _t(lang, "on_cpu")


def _draw_timeline(inputs: dict, lang: str) -> Figure:
    groups = inputs["groups"]
    x0, x1 = 132.0, 704.0
    t_end = max((ts + dur for g in groups for _, _, ts, dur in g["events"]), default=0.0)
    step = _nice_step(t_end or 1.0)
    axis_end = max(step, math.ceil(t_end / step - 1e-9) * step)
    scale = (x1 - x0) / axis_end

    group_h, lane_pitch, bar_h, gap = 24.0, 42.0, 18.0, 14.0
    top = 6.0
    axis_y = top + len(groups) * (group_h + 2 * lane_pitch) + (len(groups) - 1) * gap + 4
    body: list[str] = []
    # grid first, under everything
    ticks = []
    t = 0.0
    while t <= axis_end + step * 1e-6:
        ticks.append(t)
        t += step
    body.append(_el("path", cls="kb-grid", d=_lines([(x0 + t * scale, top + 4, x0 + t * scale, axis_y) for t in ticks])))

    titles = ("l_eager", "l_compiled")
    y = top
    group_alts = []
    for gi, g in enumerate(groups):
        cuda = g["device_kind"] == "cuda"
        kernel_events = [e for e in g["events"] if e[0] == "kernel"]
        title = _t(lang, titles[min(gi, 1)], kernels=_count(lang, "kernels", len(kernel_events)))
        body.append(f'<g class="kb-group" data-snippet="{_esc(g["snippet"])}">')
        body.append(_text(10, y + 16, title, cls="kb-bold"))
        lanes = (
            (_t(lang, "l_lane_launch" if cuda else "l_lane_op"), "launch" if cuda else "op", "kb-cpu-bar"),
            (_t(lang, "l_lane_gpu" if cuda else "l_lane_cpu"), "kernel", "kb-kernel-bar"),
        )
        for li, (label, kind, bar_cls) in enumerate(lanes):
            ly = y + group_h + li * lane_pitch
            body.append(_el("rect", cls="kb-band", x=x0, y=ly, width=x1 - x0, height=bar_h))
            body.append(_text(10, ly + bar_h / 2 + 4.5, _fit(label, x0 - 16, FONT), cls="kb-lane-label"))
            evs = sorted((e for e in g["events"] if e[0] == kind), key=lambda e: (e[2], e[3]))
            free_from = x0  # labels in a lane never overlap: each starts after the last one ends
            for n, (_, name, ts, dur) in enumerate(evs):
                bx = x0 + ts * scale
                bw = max(dur * scale, 2.0)
                shown = kernels.short_name(name) if kind == "kernel" else name
                until = x0 + evs[n + 1][2] * scale - 8 if n + 1 < len(evs) else _TW - 4.0
                label_text, lx = _place_label(shown, bx, free_from, until)
                tip = _t(lang, "l_tip", name=name, ts=_fmt_us(ts), dur=_fmt_us(dur))
                parts = [_title(tip), _el("rect", cls=bar_cls, x=bx, y=ly, width=bw, height=bar_h, rx=2.0)]
                if label_text:
                    parts.append(_text(lx, ly + bar_h + 15, label_text))  # small, monospace: the CSS's .kb-group g text
                    free_from = lx + _width(label_text, SMALL, mono=True) + 12
                body.append(_el("g", "".join(parts)))
        body.append("</g>")
        end = max((ts + dur for _, _, ts, dur in kernel_events), default=0.0)
        names = _join(lang, [kernels.short_name(e[1]) for e in kernel_events])
        group_alts.append(_t(lang, "l_group_alt", title=title, names=names, end=_fmt_us(end)))
        y += group_h + 2 * lane_pitch + gap

    # the shared time axis
    segments = [(x0, axis_y, x1, axis_y)] + [(x0 + t * scale, axis_y, x0 + t * scale, axis_y + 5) for t in ticks]
    body.append(_el("path", cls="kb-axis", d=_lines(segments)))
    labels = []
    for t in ticks:
        gx = x0 + t * scale
        anchor = "start" if t == 0 else ("end" if gx > x1 - 20 else None)  # None: the group's middle
        labels.append(_el("text", _esc(_fmt_tick(t, step)), x=gx, text_anchor=anchor))
    labels.append(_text((x0 + x1) / 2, 20, _t(lang, "l_axis")))
    body.append(_el("g", "".join(labels), cls="kb-small", text_anchor="middle", transform=f"translate(0 {_num(axis_y + 18)})"))
    height = axis_y + 46

    device = _device_note(lang, groups)
    counts = [sum(1 for e in g["events"] if e[0] == "kernel") for g in groups]
    described = _STRINGS[lang]["l_groups_sep"].join(group_alts)
    alt = _t(lang, "l_alt", device=device, groups=described[:1].upper() + described[1:])
    caption = _t(
        lang,
        "l_caption",
        eager=_count(lang, "kernels", counts[0]),
        compiled=_count(lang, "kernels", counts[-1]),
        device=device,
    )
    kinds = sorted({g["device"] for g in groups})
    data = {
        "eager_kernel_bars": counts[0],
        "compiled_kernel_bars": counts[-1],
        "device": kinds[0] if len(kinds) == 1 else "mixed",
        "sources": [f"{g['snippet']} ({g['device']})" for g in groups],
        "axis_us": axis_end,
    }
    return Figure("timeline", lang, _svg("timeline", lang, _TW, height, alt, body), alt, caption, data)


# ---------------------------------------------------------------- sweep


def _sweep_inputs(captures: Mapping[str, Capture]) -> dict:
    capture = _need(captures, SIZE_SWEEP, "sweep")
    where = f"figure 'sweep': {SIZE_SWEEP} ({capture.device})"
    data = capture.data
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list) or not data["rows"]:
        raise ValueError(f"{where}: the capture has no results rows; re-run `kernelbook capture --force {SIZE_SWEEP}`")
    rows = []
    for i, row in enumerate(data["rows"]):
        if not isinstance(row, dict):
            raise ValueError(f"{where}: row {i} is not an object")
        rows.append(
            [
                _finite(row.get("elements"), f"{where}: row {i} elements", positive=True),
                _finite(row.get("eager_s"), f"{where}: row {i} eager_s", positive=True),
                _finite(row.get("compiled_s"), f"{where}: row {i} compiled_s", positive=True),
            ]
        )
    roof = data.get("copy_bandwidth_bytes_per_s")
    return {
        "snippet": SIZE_SWEEP,
        "device": capture.device,
        "device_name": capture.environment.device_name,
        "bytes_per_element": _finite(data.get("bytes_per_element", 4), f"{where}: bytes_per_element", positive=True),
        "copy_bandwidth_bytes_per_s": None if roof is None else _finite(roof, f"{where}: copy bandwidth", positive=True),
        "rows": sorted(rows),
        "arrays": {"eager": transfers("eager"), "compiled": transfers("fused")},
    }


_SI = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def _fmt_si(value: float, unit: str, digits: int = 3) -> str:
    """``45.2 GB/s``, ``195 ms``-style: three significant digits and an SI prefix."""
    for factor, prefix in _SI:
        if value >= factor * 0.9995:
            return f"{_sig(value / factor, digits)} {prefix}{unit}"
    return f"{_sig(value, digits)} {unit}"


def _fmt_seconds(seconds: float, digits: int = 3) -> str:
    for factor, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if seconds >= factor * 0.9995:
            return f"{_sig(seconds / factor, digits)} {unit}"
    return f"{_sig(seconds / 1e-9, digits)} ns"


def _sig(value: float, digits: int) -> str:
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"


def _fmt_bw(bytes_per_s: float) -> str:
    gbs = bytes_per_s / 1e9
    if gbs >= 1000:
        return f"{_sig(gbs / 1000, 2 if gbs < 10000 else 3)} TB/s"
    return f"{gbs:.0f} GB/s" if gbs >= 10 else f"{_sig(gbs, 2)} GB/s"


def _decade_label(k: int, kind: str) -> str:
    value = 10.0**k
    if kind == "seconds":
        return _fmt_seconds(value, 1)
    if kind == "bandwidth":
        return _fmt_si(value, "B/s", 1)
    for factor, suffix in _SI:  # elements: 100, 1k, 10k, 1M
        if value >= factor:
            return f"{value / factor:.0f}{suffix}"
    return f"{value:g}"


class _LogAxes:
    """A log–log plot area: data in, viewBox coordinates out."""

    def __init__(self, left: float, top: float, width: float, height: float, xs: Sequence[float], ys: Sequence[float]):
        self.left, self.top, self.width, self.height = left, top, width, height
        self.xlo, self.xhi = math.floor(math.log10(min(xs)) + 1e-9), math.ceil(math.log10(max(xs)) - 1e-9)
        self.ylo, self.yhi = math.floor(math.log10(min(ys)) + 1e-9), math.ceil(math.log10(max(ys)) - 1e-9)
        if self.xhi <= self.xlo:
            self.xhi = self.xlo + 1
        if self.yhi <= self.ylo:
            self.yhi = self.ylo + 1
        self.xpad, self.ypad = 0.25, 0.1

    def x(self, value: float) -> float:
        lo, hi = self.xlo - self.xpad, self.xhi + self.xpad
        return self.left + (math.log10(value) - lo) / (hi - lo) * self.width

    def y(self, value: float) -> float:
        lo, hi = self.ylo - self.ypad, self.yhi + self.ypad
        return self.top + self.height - (math.log10(value) - lo) / (hi - lo) * self.height

    def frame(self, xkind: str, ykind: str) -> list[str]:
        """Gridlines (one path), axes and ticks (one path), decade labels (two groups)."""
        bottom, right = self.top + self.height, self.left + self.width
        ystep = 1 if self.yhi - self.ylo <= 7 else 2
        xstep = 1 if self.xhi - self.xlo <= 7 else 2
        grid, axis, ylabels, xlabels = [], [], [], []
        for k in range(self.ylo, self.yhi + 1):
            gy = self.y(10.0**k)
            grid.append((self.left, gy, right, gy))
            if (k - self.ylo) % ystep == 0:
                ylabels.append(_el("text", _esc(_decade_label(k, ykind)), y=gy))
        for k in range(self.xlo, self.xhi + 1):
            gx = self.x(10.0**k)
            grid.append((gx, self.top, gx, bottom))
            axis.append((gx, bottom, gx, bottom + 5))
            if (k - self.xlo) % xstep == 0:
                xlabels.append(_el("text", _esc(_decade_label(k, xkind)), x=gx))
        axis += [(self.left, bottom, right, bottom), (self.left, self.top, self.left, bottom)]
        return [
            _el("path", cls="kb-grid", d=_lines(grid)),
            _el("path", cls="kb-axis", d=_lines(axis)),
            # labels share their x (y ticks) or y (x ticks): the group's offset holds it
            _el("g", "".join(ylabels), cls="kb-small", text_anchor="end", transform=f"translate({_num(self.left - 6)} 4)"),
            _el("g", "".join(xlabels), cls="kb-small", text_anchor="middle", transform=f"translate(0 {_num(bottom + 18)})"),
        ]


def _roof_label_spot(axes: _LogAxes, ry: float, width: float, lines: Sequence[Sequence[tuple[float, float]]]) -> tuple[float, float]:
    """Where the roof's label sits: just above the line if it can, else below; the spot that
    crosses the fewest data points and lines (the label has a halo for when none is clear)."""
    left, right = axes.left + 6, max(axes.left + 6, axes.left + axes.width - 6 - width)
    xs = [left + (right - left) * i / 8 for i in range(9)]
    candidates = [(x, ry - 6) for x in xs] + [(x, ry + 17) for x in xs]
    inside = [(x, y) for x, y in candidates if y - SMALL >= axes.top - 6 and y + 3 <= axes.top + axes.height]
    samples = []
    for pts in lines:
        samples += pts
        for (xa, ya), (xb, yb) in zip(pts, pts[1:]):
            samples += [(xa + (xb - xa) * i / 24, ya + (yb - ya) * i / 24) for i in range(1, 24)]

    def hits(spot: tuple[float, float]) -> int:
        x, y = spot
        return sum(1 for px, py in samples if x - 5 <= px <= x + width + 5 and y - SMALL - 4 <= py <= y + 6)

    return min(inside or candidates, key=hits)


def _plain(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def _marker(series: str, x: float, y: float, content: str | None = None, **attrs: Any) -> str:
    """A dot (eager) or a square (compiled), filled by its series' group."""
    if series == "eager":
        return _el("circle", content, **attrs, cx=x, cy=y, r=4.0)
    return _el("path", content, **attrs, d=f"M{_num(x - 4)} {_num(y - 4)}h8v8h-8z")


def _draw_sweep(inputs: dict, lang: str) -> Figure:
    rows = inputs["rows"]
    bpe = inputs["bytes_per_element"]
    roof = inputs["copy_bandwidth_bytes_per_s"]
    arrays = inputs["arrays"]
    ns = [r[0] for r in rows]
    times = {"eager": [r[1] for r in rows], "compiled": [r[2] for r in rows]}
    bws = {s: [arrays[s] * n * bpe / t for n, t in zip(ns, times[s])] for s in times}
    names = {"eager": _t(lang, "s_eager"), "compiled": _t(lang, "s_compiled")}

    top, plot_h = 62.0, 196.0
    charts = (
        ("time", _t(lang, "s_time"), "", "seconds", times, _LogAxes(72, top, 272, plot_h, ns, times["eager"] + times["compiled"])),
        (
            "bandwidth",
            _t(lang, "s_bw"),
            _t(lang, "s_bw_sub"),
            "bandwidth",
            bws,
            _LogAxes(432, top, 272, plot_h, ns, bws["eager"] + bws["compiled"] + ([roof, roof * 2.5] if roof else [])),
        ),
    )
    body: list[str] = []
    # legend, top left
    lx = 72.0
    for series in ("eager", "compiled"):
        sample = _el("polyline", points=f"{_num(lx)},14 {_num(lx + 24)},14")
        sample += _marker(series, lx + 12, 14.0)
        sample += _text(lx + 32, 18.5, names[series])
        body.append(_el("g", sample, cls=f"kb-{series}"))
        lx += 32 + _width(names[series], FONT) + 24

    for chart, title, subtitle, ykind, values, axes in charts:
        body.append(f'<g class="kb-chart" data-chart="{chart}">')
        body.append(_text(axes.left - 60, 44, title, cls="kb-bold"))
        if subtitle:
            body.append(_text(axes.left + axes.width, 44, subtitle, cls="kb-small kb-muted", text_anchor="end"))
        body += axes.frame("elements", ykind)
        points = {series: [(axes.x(n), axes.y(v)) for n, v in zip(ns, values[series])] for series in values}
        if chart == "bandwidth" and roof:
            ry = axes.y(roof)
            label = _t(lang, "s_roof", bw=_fmt_bw(roof))
            body.append(_el("line", cls="kb-roof", x1=axes.left, y1=ry, x2=axes.left + axes.width, y2=ry))
            lx, ly = _roof_label_spot(axes, ry, _width(label, SMALL), list(points.values()))
            body.append(_text(lx, ly, label, cls="kb-small kb-roof-label"))
        for series in ("eager", "compiled"):
            pts = points[series]
            parts = [_el("polyline", points=" ".join(f"{_num(px)},{_num(py)}" for px, py in pts))]
            for (px, py), n, v in zip(pts, ns, values[series]):
                value = _fmt_seconds(v) if chart == "time" else _fmt_si(v, "B/s")
                key = "s_point_time" if chart == "time" else "s_point_bw"
                tip = _t(lang, key, series=names[series], n=f"{n:,.0f}", value=value, arrays=arrays[series])
                # the marker is the point: its <title> is the tooltip
                parts.append(_marker(series, px, py, _title(tip), cls="kb-point", data_series=series, data_elements=f"{n:.0f}"))
            body.append(_el("g", "".join(parts), cls=f"kb-{series}"))
        body.append("</g>")
    body.append(_text(_TW / 2, top + plot_h + 42, _t(lang, "s_x"), cls="kb-small", text_anchor="middle"))
    height = top + plot_h + 50

    if inputs["device"] == "cuda":
        device = _t(lang, "on_gpu", name=inputs["device_name"])
    else:
        device = _t(lang, "on_cpu")
    lo, hi = f"{ns[0]:,.0f}", f"{ns[-1]:,.0f}"
    alt = _t(
        lang,
        "s_alt",
        k=len(rows),
        lo=lo,
        hi=hi,
        device=device,
        eager_t=_fmt_seconds(times["eager"][-1]),
        compiled_t=_fmt_seconds(times["compiled"][-1]),
        eager_arrays=arrays["eager"],
        fused_arrays=arrays["compiled"],
        eager_bw=_fmt_bw(bws["eager"][-1]),
        compiled_bw=_fmt_bw(bws["compiled"][-1]),
        roof=_t(lang, "s_alt_roof", bw=_fmt_bw(roof)) if roof else "",
    )
    caption = _t(
        lang,
        "s_caption",
        lo=lo,
        hi=hi,
        eager_arrays=arrays["eager"],
        fused_arrays=arrays["compiled"],
        device=device,
    )
    data = {
        "points": len(rows),
        "roof_gbs": round(roof / 1e9, 3) if roof else None,
        "device": inputs["device"],
        "source": f"{inputs['snippet']} ({inputs['device']})",
        "bytes_moved_per_element": {s: _plain(arrays[s] * bpe) for s in ("eager", "compiled")},
    }
    return Figure("sweep", lang, _svg("sweep", lang, _TW, height, alt, body), alt, caption, data)


_DRAW: dict[str, Callable[[dict, str], Figure]] = {
    "traffic": _draw_traffic,
    "timeline": _draw_timeline,
    "sweep": _draw_sweep,
}
