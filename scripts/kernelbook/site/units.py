"""Numbers written for people: seconds, SI prefixes, bandwidths, ratios, counts. Pure.

The claims in the prose, the kernel tables and the figures all write numbers through
these functions, so a page and its pictures never disagree on how a time is spelled.
"""

from __future__ import annotations

import math

_SECONDS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_SI = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def significant(value: float, digits: int) -> str:
    """``value`` with ``digits`` significant digits, as plain decimals: 1234 -> "1234", 0.01234 -> "0.0123"."""
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"


def format_seconds(seconds: float, digits: int | None = None) -> str:
    """A duration in s, ms or µs.

    ``digits=None`` (prose and tables): two decimals in s and ms, one in µs ("1.25 ms",
    "12.3 µs"). ``digits=N`` (figures): N significant digits, down to ns ("1.25 ms", "512 ns").
    """
    units = _SECONDS if digits else _SECONDS[:3]
    for factor, unit in units:
        if seconds >= factor * (0.9995 if digits else 1.0) or unit == units[-1][1]:
            scaled = seconds / factor
            text = significant(scaled, digits) if digits else f"{scaled:.{1 if unit == 'µs' else 2}f}"
            return f"{text} {unit}"
    raise AssertionError("unreachable: the last unit always matches")


def format_si(value: float, unit: str, digits: int = 3) -> str:
    """``45.2 GB/s``-style: ``digits`` significant digits and an SI prefix."""
    for factor, prefix in _SI:
        if value >= factor * 0.9995:
            return f"{significant(value / factor, digits)} {prefix}{unit}"
    return f"{significant(value, digits)} {unit}"


def format_bandwidth(bytes_per_s: float) -> str:
    """GB/s below a TB/s, whole GB/s from 10 up: "45 GB/s", "3.9 TB/s"."""
    gbs = bytes_per_s / 1e9
    if gbs >= 1000:
        return f"{significant(gbs / 1000, 2 if gbs < 10000 else 3)} TB/s"
    return f"{gbs:.0f} GB/s" if gbs >= 10 else f"{significant(gbs, 2)} GB/s"


def format_ratio(ratio: float) -> str:
    """"12×", "1.4×", "0.83×"."""
    return f"{ratio:.0f}×" if ratio >= 10 else f"{ratio:.1f}×" if ratio >= 1 else f"{ratio:.2f}×"


def format_number(value: float) -> str:
    """Integers with thousands separators, other numbers with three significant digits."""
    return f"{value:,}" if isinstance(value, int) else f"{value:.3g}"


def decade(k: int) -> str:
    """10**k as a short count: 100, 1k, 10k, 1M."""
    value = 10.0**k
    for factor, suffix in _SI:
        if value >= factor:
            return f"{value / factor:.0f}{suffix}"
    return f"{value:g}"
