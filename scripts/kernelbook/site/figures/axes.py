"""Axes: a log–log plot area with decade gridlines and labels (or ticks of your own along x),
a linear plot area, and nice linear ticks. Pure."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..prose.units import decade, format_seconds, format_si
from .svg import el, esc, lines, num


def decade_label(k: int, kind: str) -> str:
    """The label of 10**k on an axis of ``kind``: "seconds", "bandwidth", "flops" (FLOP/s) or a plain count."""
    value = 10.0**k
    if kind == "seconds":
        return format_seconds(value, 1)
    if kind == "bandwidth":
        return format_si(value, "B/s", 1)
    if kind == "flops":
        return format_si(value, "FLOP/s", 1)
    return decade(k)


class LogAxes:
    """A log–log plot area: data in, viewBox coordinates out.

    Each axis spans whole decades around its data, with a gridline and a label at each.
    ``xticks`` ((value, label) pairs, e.g. every 16× in bytes) puts x's gridlines and labels
    there instead, and x then spans exactly the data and those ticks.
    """

    def __init__(self, left: float, top: float, width: float, height: float, xs: Sequence[float], ys: Sequence[float],
                 xticks: Sequence[tuple[float, str]] | None = None):
        self.left, self.top, self.width, self.height = left, top, width, height
        self.xticks = tuple(xticks) if xticks else None
        if self.xticks:
            spread = [math.log10(v) for v in [*xs, *(v for v, _ in self.xticks)]]
            self.xlo, self.xhi = min(spread), max(spread)
        else:
            self.xlo, self.xhi = math.floor(math.log10(min(xs)) + 1e-9), math.ceil(math.log10(max(xs)) - 1e-9)
        self.ylo, self.yhi = math.floor(math.log10(min(ys)) + 1e-9), math.ceil(math.log10(max(ys)) - 1e-9)
        if self.xhi <= self.xlo:
            self.xhi = self.xlo + 1
        if self.yhi <= self.ylo:
            self.yhi = self.ylo + 1
        self.xpad, self.ypad = (0.1 if self.xticks else 0.25), 0.1

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
                ylabels.append(el("text", esc(decade_label(k, ykind)), y=gy))
        xmarks = self.xticks or [(10.0**k, decade_label(k, xkind) if (k - self.xlo) % xstep == 0 else "")
                                 for k in range(self.xlo, self.xhi + 1)]
        for value, label in xmarks:
            gx = self.x(value)
            grid.append((gx, self.top, gx, bottom))
            axis.append((gx, bottom, gx, bottom + 5))
            if label:
                xlabels.append(el("text", esc(label), x=gx))
        return _frame(self.left, self.top, right, bottom, grid, axis, ylabels, xlabels)



def nice_step(span: float, target: int = 5) -> float:
    """A 1, 2 or 5 × 10^k step that cuts ``span`` into about ``target`` parts."""
    raw = max(span, 1e-9) / target
    magnitude = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * magnitude * 1.0000001:
            return m * magnitude
    return 10 * magnitude


def tick_label(value: float, step: float) -> str:
    """A linear tick: as many decimals as the step needs, thousands separated."""
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
    return f"{value:,.{decimals}f}"


def linear_ticks(hi: float, target: int = 4) -> list[float]:
    """0, step, 2·step, ... up to the first multiple of a nice step at or above ``hi``."""
    step = nice_step(hi, target)
    count = max(1, math.ceil(hi / step - 1e-9))
    return [i * step for i in range(count + 1)]


class LinearAxes:
    """A linear plot area from ``xlo``–``xhi`` and ``ylo``–``yhi``: data in, viewBox coordinates out."""

    def __init__(self, left: float, top: float, width: float, height: float,
                 xlo: float, xhi: float, ylo: float, yhi: float, xpad: float = 0.0):
        if xhi <= xlo or yhi <= ylo:
            raise ValueError(f"an empty linear axis: x {xlo}..{xhi}, y {ylo}..{yhi}")
        self.left, self.top, self.width, self.height = left, top, width, height
        self.xlo, self.xhi, self.ylo, self.yhi, self.xpad = xlo, xhi, ylo, yhi, xpad

    def x(self, value: float) -> float:
        lo, hi = self.xlo - self.xpad, self.xhi + self.xpad
        return self.left + (value - lo) / (hi - lo) * self.width

    def y(self, value: float) -> float:
        return self.top + self.height - (value - self.ylo) / (self.yhi - self.ylo) * self.height

    def frame(self, xticks: Sequence[tuple[float, str]], yticks: Sequence[tuple[float, str]]) -> list[str]:
        """Horizontal gridlines at the y ticks, the axes, tick marks and labels (as LogAxes.frame)."""
        bottom, right = self.top + self.height, self.left + self.width
        grid = [(self.left, self.y(v), right, self.y(v)) for v, _ in yticks]
        axis = [(self.x(v), bottom, self.x(v), bottom + 5) for v, _ in xticks]
        ylabels = [el("text", esc(label), y=self.y(v)) for v, label in yticks]
        xlabels = [el("text", esc(label), x=self.x(v)) for v, label in xticks]
        return _frame(self.left, self.top, right, bottom, grid, axis, ylabels, xlabels)


def _frame(left: float, top: float, right: float, bottom: float, grid: list, axis: list,
           ylabels: list[str], xlabels: list[str]) -> list[str]:
    """Gridlines (one path), the two axes and the ticks (one path), then the labels of each axis (a group each)."""
    axis = [*axis, (left, bottom, right, bottom), (left, top, left, bottom)]
    return [
        el("path", cls="kb-grid", d=lines(grid)),
        el("path", cls="kb-axis", d=lines(axis)),
        # labels share their x (y ticks) or y (x ticks): the group's offset holds it
        el("g", "".join(ylabels), cls="kb-small", text_anchor="end", transform=f"translate({num(left - 6)} 4)"),
        el("g", "".join(xlabels), cls="kb-small", text_anchor="middle", transform=f"translate(0 {num(bottom + 18)})"),
    ]
class LinearY:
    """A y axis from 0 up to a nice value at or above the largest of ``values``: bandwidths
    near a roof read better on a linear scale than on a log one. Data in, viewBox y out."""

    def __init__(self, top: float, height: float, values: Sequence[float], unit: str = "B/s"):
        self.top, self.height, self.unit = top, height, unit
        largest = max(values) if values and max(values) > 0 else 1.0
        self.step = nice_step(largest, 5)
        self.hi = self.step * math.ceil(largest * 1.02 / self.step)

    @property
    def bottom(self) -> float:
        return self.top + self.height

    def y(self, value: float) -> float:
        return self.bottom - value / self.hi * self.height

    def ticks(self) -> list[tuple[float, str]]:
        """(value, label) from 0 to the top, every label in one prefix: "0", "1.5 TB/s", ..."""
        factor, prefix = next(((f, p) for f, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")) if self.hi >= f), (1.0, ""))
        count = round(self.hi / self.step)
        return [(k * self.step, "0" if k == 0 else f"{tick_label(k * self.step / factor, self.step / factor)} {prefix}{self.unit}")
                for k in range(count + 1)]

    def frame(self, left: float, right: float) -> list[str]:
        """Horizontal gridlines at the ticks (one path), the left axis, the tick labels (one group)."""
        ticks = self.ticks()
        grid = [(left, self.y(v), right, self.y(v)) for v, _ in ticks[1:]]
        labels = "".join(el("text", esc(label), y=self.y(v)) for v, label in ticks)
        return [
            el("path", cls="kb-grid", d=lines(grid)),
            el("path", cls="kb-axis", d=lines([(left, self.bottom, right, self.bottom), (left, self.top, left, self.bottom)])),
            el("g", labels, cls="kb-small", text_anchor="end", transform=f"translate({num(left - 6)} 4)"),
        ]

