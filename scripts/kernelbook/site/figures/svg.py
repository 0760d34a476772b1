"""SVG primitives every figure is drawn with: elements, text, escaping, sizes, colours, styles,
and the layouts that make a figure fit a phone. Pure.

Every SVG is self-contained (no fonts, no links, no external references), sized by its
``viewBox`` at ``width="100%"``, coloured only through mkdocs-material's CSS custom
properties (with fallbacks) in a ``<style>`` scoped by a class unique to the figure,
language and layout, so it reads in the light and the dark ("slate") scheme, and named
for screen readers by a ``<title>`` holding the alt text (``role="img"``,
``aria-labelledby``). Text is real ``<text>``: selectable, translated, escaped.

Fitting the width. A drawing scales with its column, and so does its text: a 720-unit
drawing in a phone's 343-px column would print 13-unit labels at 6 px. So every figure
is drawn once per :data:`LAYOUTS` entry, a wide one for desktops and a narrow one for
phones (panels side by side become panels stacked, labels move above what they label),
and the page shows one: kernelbook.css switches to the narrow drawing with a container
query when the figure's box is narrower than :func:`narrowest_column` of the wide one,
the width below which the wide drawing's smallest text would fall under :data:`MIN_PX`.
A figure lays itself out for ``layout.width``; :func:`arrange` places panels in rows that
wrap, so a figure made of panels gets its phone layout from the panels' widths alone.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FONT = 14  # body text, in viewBox units
SMALL = 13  # ticks, kernel names, notes: the smallest text any figure draws
MIN_PX = 11  # the smallest text on screen, in CSS px, at every width a drawing is shown at


@dataclass(frozen=True)
class Layout:
    """A width every figure is drawn at (viewBox units: CSS px at scale 1)."""

    name: str  # the drawing's class is kb-layout-<name>; kernelbook.css shows one layout at a time
    width: float
    max_px: float | None = None  # the widest it is ever shown (None: its column's width)


WIDE = Layout("wide", 720.0)  # a desktop's column: about 690 px
NARROW = Layout("narrow", 340.0, max_px=480.0)  # a phone's: 343 px at 375, still MIN_PX at 288 (a 320-px phone)
LAYOUTS = (WIDE, NARROW)  # the first is the one shown when no stylesheet chooses


def narrowest_column(layout: Layout) -> float:
    """The narrowest box (CSS px) ``layout`` may be shown in: its SMALL text is MIN_PX there."""
    return layout.width * MIN_PX / SMALL


@dataclass(frozen=True)
class Panel:
    """A part of a figure drawn from its own origin: ``body`` fills ``width`` × ``height``."""

    width: float
    height: float
    body: str


def arrange(panels: Sequence[Panel], width: float, *, gap: float = 24.0, row_gap: float = 16.0) -> tuple[str, float]:
    """Panels left to right while they fit in ``width``, then on the next row: side by side in
    a wide drawing, one under another in a narrow one. Returns the drawing and its height.

    Raises ValueError for a panel wider than ``width``: it would be cut off on the page.
    """
    rows: list[list[Panel]] = []
    used = 0.0
    for panel in panels:
        if panel.width > width + 1e-6:
            raise ValueError(f"a {num(panel.width)}-unit panel does not fit a {num(width)}-unit drawing")
        if rows and used + gap + panel.width <= width + 1e-6:
            rows[-1].append(panel)
            used += gap + panel.width
        else:
            rows.append([panel])
            used = panel.width
    out, y = [], 0.0
    for row in rows:
        x = 0.0
        for panel in row:
            out.append(el("g", panel.body, transform=f"translate({num(x)} {num(y)})"))
            x += panel.width + gap
        y += max(p.height for p in row) + row_gap
    return "".join(out), (y - row_gap if rows else 0.0)

# Colours: mkdocs-material's custom properties, which its light and dark ("slate")
# schemes both define; the fallbacks keep the figure readable outside the theme.
FG = "var(--md-default-fg-color,currentColor)"
TEXT = "var(--md-default-fg-color,CanvasText)"
FG_LIGHT = "var(--md-default-fg-color--light,#888)"
FG_LIGHTEST = "var(--md-default-fg-color--lightest,#88888829)"  # 0x29/255: alpha .16
BG = "var(--md-default-bg-color,Canvas)"
ACCENT = "var(--md-accent-fg-color,#e6357a)"
# The accent for text: material's pink is 4.1:1 on white and 4.0:1 on slate, enough for a line or a
# bar (3:1) but not for words (4.5:1); kernelbook.css gives each palette a darker or lighter one.
ACCENT_TEXT = "var(--kb-accent-text,#c2185b)"
LINK = "var(--md-typeset-a-color,#4051b5)"  # the primary colour, lightened by material in the dark scheme
MONO = "var(--md-code-font-family,ui-monospace,monospace)"


def esc(text: Any) -> str:
    """Text or attribute value, escaped for XML; characters XML cannot hold are dropped."""
    clean = "".join(
        ch
        for ch in str(text)
        if ch in "\t\n\r" or (0x20 <= ord(ch) < 0xD800) or (0xE000 <= ord(ch) <= 0xFFFD) or ord(ch) >= 0x10000
    )
    return clean.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def num(x: float) -> str:
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
        text = num(value) if isinstance(value, float) else str(value)
        parts.append(f' {name}="{esc(text)}"')
    return "".join(parts)


def el(tag: str, content: str | None = None, **attrs: Any) -> str:
    """An element; ``cls`` is its class, ``a_b`` its ``a-b`` attribute, floats go through ``num``."""
    if content is None:
        return f"<{tag}{_attrs(attrs)}/>"
    return f"<{tag}{_attrs(attrs)}>{content}</{tag}>"


def text(x: float, y: float, words: str, **attrs: Any) -> str:
    return el("text", esc(words), x=float(x), y=float(y), **attrs)


def title(words: str) -> str:
    """A tooltip (and the accessible name) of the element it is the first child of."""
    return f"<title>{esc(words)}</title>"


def width(words: str, size: float, *, mono: bool = False, bold: bool = False) -> float:
    """A generous estimate of the drawn width: the page's font is not known here."""
    units = 0.0
    for ch in words:
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


def fit(words: str, room: float, size: float, *, mono: bool = False, min_chars: int = 3) -> str:
    """``words`` cut with an ellipsis to fit ``room``; "" when not even ``min_chars`` fit."""
    if width(words, size, mono=mono) <= room:
        return words
    for n in range(len(words) - 1, 0, -1):
        cut = words[:n].rstrip() + "…"
        if width(cut, size, mono=mono) <= room:
            return cut if n >= min_chars else ""
    return ""


def wrap(words: str, room: float, size: float) -> list[str]:
    """``words`` in lines no wider than ``room``, broken at spaces and after 、 and 。 (Japanese
    puts no spaces between words); a piece wider than ``room`` on its own is broken anywhere."""
    pieces: list[str] = []
    for piece in re.findall(r"[^\s、。]+[、。]?\s*|[、。]\s*|\s+", words):
        if width(piece.rstrip(), size) <= room:
            pieces.append(piece)
        else:
            pieces.extend(piece)  # character by character
    out: list[str] = []
    line = ""
    for piece in pieces:
        if line.strip() and width((line + piece).rstrip(), size) > room:
            out.append(line.rstrip())
            line = piece.lstrip()
        else:
            line += piece
    if line.strip():
        out.append(line.rstrip())
    return out
def centred(x: float, words: str, size: float, right: float, left: float = 0.0) -> float:
    """Where text centred on ``x`` goes so that all of it stays between ``left`` and ``right``."""
    half = width(words, size) / 2
    return min(max(x, left + half + 2), right - half - 2)


def axis_title(x: float, y: float, words: str, right: float) -> str:
    """An axis's title in small text centred on ``x``, moved in as far as it must to end before ``right``."""
    return text(centred(x, words, SMALL, right), y, words, cls="kb-small", text_anchor="middle")


def arrow(x1: float, y1: float, x2: float, y2: float, head: float = 9.0) -> list[str]:
    """A shaft from (x1, y1) to (x2, y2) and a filled head at its end (their paint is the CSS's)."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    bx, by = x2 - ux * head, y2 - uy * head
    px, py = -uy * head * 0.5, ux * head * 0.5
    return [
        el("line", x1=float(x1), y1=float(y1), x2=float(bx), y2=float(by)),
        el("path", d=f"M{num(x2)} {num(y2)}L{num(bx + px)} {num(by + py)}L{num(bx - px)} {num(by - py)}Z"),
    ]


def marker(shape: str, x: float, y: float, content: str | None = None, **attrs: Any) -> str:
    """A data point: a ``circle``, a ``square`` or a ``triangle`` centred on (x, y), filled by its group's colour."""
    if shape == "circle":
        return el("circle", content, **attrs, cx=x, cy=y, r=4.0)
    if shape == "triangle":
        return el("path", content, **attrs, d=f"M{num(x)} {num(y - 5)}l5 9h-10z")
    if shape == "square":
        return el("path", content, **attrs, d=f"M{num(x - 4)} {num(y - 4)}h8v8h-8z")
    raise ValueError(f"unknown marker shape {shape!r}; expected circle, square or triangle")


def lines(segments: Sequence[tuple[float, float, float, float]]) -> str:
    """Horizontal and vertical segments (x1, y1, x2, y2) as one path's data: M x y H x2 or V y2."""
    d = []
    for x1, y1, x2, y2 in segments:
        d.append(f"M{num(x1)} {num(y1)}" + (f"H{num(x2)}" if y1 == y2 else f"V{num(y2)}"))
    return "".join(d)


# Every rule any figure uses, by role. Only those whose classes and elements a drawing
# uses are kept in its <style>: the SVG is inlined in the page, so every byte here is a
# byte of every page load. Presentation shared by many elements (stroke widths, marker
# fills, the badges' text) lives here rather than on each element, for the same reason.
RULES: tuple[tuple[str, str], ...] = (
    ("", f"color:{FG};font-size:{FONT}px"),  # text inherits the size; .kb-small on a group shrinks all of it
    (" text", f"fill:{TEXT}"),
    (" .kb-small", f"font-size:{SMALL}px"),
    (" .kb-big", "font-size:16px"),
    (" .kb-bold", "font-weight:700"),
    (" .kb-mono", f"font-family:{MONO}"),
    (" .kb-muted", f"fill:{FG_LIGHT}"),
    (" .kb-accent", f"fill:{ACCENT_TEXT}"),
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
    (" .kb-roundtrip text", f"fill:{ACCENT_TEXT}"),  # the round trip's badges: words in the accent
    # timeline: bars, and the kernel names under them
    (" .kb-cpu-bar", f"fill:{FG_LIGHT}"),
    (" .kb-kernel-bar", f"fill:{ACCENT}"),
    (" .kb-group g text", f"font-size:{SMALL}px;font-family:{MONO}"),
    # compiled regions: outlined ranges with their names inside
    (" .kb-region-bar", f"fill:{FG_LIGHTEST};stroke:{FG_LIGHT};stroke-width:1"),
    (" .kb-graph-bar", f"fill:none;stroke:{ACCENT};stroke-width:1.5"),
    # bar charts
    (" .kb-bar", "fill:currentColor"),
    # series lines and their markers
    (" .kb-eager", "fill:currentColor"),  # in the figure's colour
    (" .kb-compiled", f"color:{ACCENT};fill:currentColor"),
    (" .kb-copy", f"color:{FG_LIGHT};fill:currentColor"),
    (" .kb-triton", f"color:{LINK};fill:currentColor"),  # a hand-written Triton kernel (chapter 4)
    (" .kb-library", f"color:{FG};fill:currentColor"),  # a library's own kernel (torch.softmax): dotted
    (" polyline", "fill:none;stroke:currentColor;stroke-width:2;stroke-linejoin:round"),
    (" .kb-copy polyline", "stroke-dasharray:6 4"),
    (" .kb-dashed polyline", "stroke-dasharray:6 4"),
    # roofline: the two roofs (solid, thick) and the ridge between them (dotted)
    (" .kb-roofline", f"fill:none;stroke:{FG_LIGHT};stroke-width:3;stroke-linejoin:round"),
    (" .kb-ridge", f"stroke:{FG_LIGHT};stroke-width:1.5;stroke-dasharray:2 3"),
    (" .kb-library polyline", "stroke-dasharray:2 3"),
    # bars (block-size sweep): the one a figure points out in the accent colour
    (" .kb-bar", f"fill:{FG_LIGHT}"),
    (" .kb-bar.kb-best", f"fill:{ACCENT}"),
    (" .kb-halo", f"stroke:{BG};stroke-width:4px;stroke-linejoin:round;paint-order:stroke"),  # text that may cross a line
    (" .kb-roof", f"stroke:{FG_LIGHT};stroke-width:1.5;stroke-dasharray:6 4"),
    (" .kb-roof-label", f"fill:{FG_LIGHT};stroke:{BG};stroke-width:4px;stroke-linejoin:round;paint-order:stroke"),
)


def css(cls: str, body: str = "") -> str:
    """The rules of :data:`RULES` that ``body`` uses, scoped to the class ``cls``."""
    used = {c for group in re.findall(r'class="([^"]*)"', body) for c in group.split()}
    tags = set(re.findall(r"<([a-z]+)", body))

    def needed(tail: str) -> bool:
        return all(c in used for c in re.findall(r"\.(kb-[\w-]+)", tail)) and all(
            t in tags for t in re.findall(r"(?:^|\s)([a-z]+)", tail)
        )

    return "".join(f".{cls}{tail}{{{decl}}}" for tail, decl in RULES if needed(tail))


def document(name: str, lang: str, layout: Layout, height: float, alt: str, body: Sequence[str]) -> str:
    """The complete ``<svg>`` of one layout: titled by ``alt``, styled by what ``body`` uses.

    Shown by default only in the first of :data:`LAYOUTS` (its own style says so, so a page
    without kernelbook.css shows one drawing, not all of them); sized by the CSS, never
    inline, so that kernelbook.css can switch layouts.
    """
    cls = f"kb-fig-{name}-{lang}-{layout.name}"
    title_id = f"{cls}-title"
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls} kb-layout-{layout.name}" '
        f'viewBox="0 0 {num(layout.width)} {num(height)}" width="100%" role="img" aria-labelledby="{title_id}" lang="{lang}">'
    )
    drawing = "".join(body)
    shown = "block" if layout == LAYOUTS[0] else "none"
    size = f"max-width:{num(layout.max_px)}px;margin:0 auto" if layout.max_px else "max-width:100%"
    box = f".{cls}{{display:{shown};height:auto;{size}}}"
    parts = [head, f'<title id="{title_id}">{esc(alt)}</title>', f"<style>{box}{css(cls, drawing)}</style>", drawing, "</svg>"]
    return "\n".join(parts)


_ROOT = re.compile(r'<svg\b[^>]*\bviewBox="0 0 (?P<w>[\d.]+) (?P<h>[\d.]+)"[^>]*>')


def standalone(svg: str) -> str:
    """One drawing as an image of its own (a notebook embeds it as one): sized by its viewBox, light, opaque.

    No page's theme reaches an image, so its colours fall back to black on white (the
    light scheme), on a white ground of its own, so that it reads on a dark page too.
    """
    m = _ROOT.search(svg)
    if m is None:
        raise ValueError("not a figure's drawing: no <svg> with a viewBox")
    root = m.group(0).replace(' width="100%"', f' width="{m.group("w")}" height="{m.group("h")}" style="color-scheme:light"')
    ground = '<rect width="100%" height="100%" fill="#fff"/>'
    body = svg[m.end():]
    style_end = body.find("</style>")
    cut = style_end + len("</style>") if style_end >= 0 else 0
    return svg[:m.start()] + root + body[:cut] + ground + body[cut:]
