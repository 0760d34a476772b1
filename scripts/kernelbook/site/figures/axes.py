"""Axes: a log–log plot area with decade gridlines and labels, and nice linear ticks. Pure."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..units import decade, format_seconds, format_si
from .svg import el, esc, lines, num


def decade_label(k: int, kind: str) -> str:
    """The label of 10**k on an axis of ``kind``: "seconds", "bandwidth" or a plain count."""
    value = 10.0**k
    if kind == "seconds":
        return format_seconds(value, 1)
    if kind == "bandwidth":
        return format_si(value, "B/s", 1)
    return decade(k)


class LogAxes:
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
                ylabels.append(el("text", esc(decade_label(k, ykind)), y=gy))
        for k in range(self.xlo, self.xhi + 1):
            gx = self.x(10.0**k)
            grid.append((gx, self.top, gx, bottom))
            axis.append((gx, bottom, gx, bottom + 5))
            if (k - self.xlo) % xstep == 0:
                xlabels.append(el("text", esc(decade_label(k, xkind)), x=gx))
        axis += [(self.left, bottom, right, bottom), (self.left, self.top, self.left, bottom)]
        return [
            el("path", cls="kb-grid", d=lines(grid)),
            el("path", cls="kb-axis", d=lines(axis)),
            # labels share their x (y ticks) or y (x ticks): the group's offset holds it
            el("g", "".join(ylabels), cls="kb-small", text_anchor="end", transform=f"translate({num(self.left - 6)} 4)"),
            el("g", "".join(xlabels), cls="kb-small", text_anchor="middle", transform=f"translate(0 {num(bottom + 18)})"),
        ]



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

