"""Numbers written for people: seconds, SI prefixes, bandwidths, ratios, counts. Pure.

The claims in the prose, the kernel tables and the figures all write numbers through
these functions, so a page and its pictures never disagree on how a time is spelled.

A value from a snippet's ``results`` is written by the suffix of its key (the
convention snippets name their keys by; ``by_key`` picks, longest suffix first):

==================  =========================================  ==============================
key ends in         written as                                 e.g.
==================  =========================================  ==============================
``_bytes_per_s``    bandwidth, decimal prefixes                ``45 GB/s``, ``3.9 TB/s``
``_flop_per_s``     arithmetic rate, decimal prefixes          ``312 TFLOP/s``
``_bytes``          size, binary (IEC) prefixes                ``4 MiB``, ``1.5 GiB``
``_share``          a fraction as a percentage                 ``85%``
``_s``              seconds                                    ``1.25 ms``, ``12.3 µs``
anything else       integers with thousands separators,        ``2,147,483,648``, ``0.0712``
                    other numbers with three significant digits
==================  =========================================  ==============================
"""

from __future__ import annotations

import math
from typing import Callable

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


def format_specified_bandwidth(bytes_per_s: float) -> str:
    """A vendor's specified bandwidth as the vendor writes it, every digit kept: "4.8 TB/s", "3.35 TB/s", "300 GB/s"."""
    return f"{bytes_per_s / 1e12:g} TB/s" if bytes_per_s >= 1e12 else f"{bytes_per_s / 1e9:g} GB/s"


def ratio_number(ratio: float) -> str:
    """A ratio's digits: whole above 10 (thousands separated), one decimal above 1, two below."""
    if ratio >= 10:
        return f"{ratio:,.0f}"
    if ratio >= 1:
        return f"{ratio:.1f}"
    return f"{ratio:.2f}" if ratio >= 0.01 or ratio == 0 else significant(ratio, 1)


def format_ratio(ratio: float, lang: str = "en", *, exact: bool = False) -> str:
    """en "13,783×", "1.4×", "0.07×"; ja "約 13,783 倍", "約 1.4 倍", "約 0.07 倍".

    Japanese says 「約」 only for a rounded ratio: not when ``exact`` (a ``==`` claim makes it
    so) or when the digits are the ratio itself (「2,048 倍」, 「1.0 倍」 for exactly 1)."""
    digits = ratio_number(ratio)
    if lang != "ja":
        return f"{digits}×"
    rounded = not exact and float(digits.replace(",", "")) != ratio
    return f"約 {digits} 倍" if rounded else f"{digits} 倍"


def format_number(value: float) -> str:
    """Integers with thousands separators, other numbers with three significant digits."""
    if isinstance(value, int):
        return f"{value:,}"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.3g}"


_IEC = ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB"))


def format_bytes(n: float) -> str:
    """A size with binary prefixes: "512 B", "4 MiB", "1.5 GiB" (three significant digits)."""
    for factor, unit in _IEC:
        if abs(n) >= factor:
            return f"{_trim(significant(n / factor, 3))} {unit}"
    return f"{format_number(n)} B"


def format_share(fraction: float) -> str:
    """A fraction as a percentage: 0.85 -> "85%", 0.0712 -> "7.1%", 0.004 -> "0.4%"."""
    pct = fraction * 100
    text = f"{pct:.0f}" if abs(pct) >= 10 else _trim(significant(pct, 2))
    return f"{text}%"


def _trim(digits: str) -> str:
    """Drop trailing zeros after a decimal point: "4.00" -> "4", "1.50" -> "1.5"."""
    return digits.rstrip("0").rstrip(".") if "." in digits else digits


# Longest suffix first: "_bytes_per_s" must win over "_s" and "_bytes".
SUFFIXES: tuple[tuple[str, Callable[[float], str]], ...] = (
    ("_bytes_per_s", lambda v: format_bandwidth(v)),
    ("_flop_per_s", lambda v: format_si(v, "FLOP/s")),
    ("_bytes", lambda v: format_bytes(v)),
    ("_share", lambda v: format_share(v)),
    ("_s", lambda v: format_seconds(v)),
)


def by_key(key: str, value: float) -> str:
    """A number from ``results`` written by its key's suffix (the table above); a key that is
    the unit itself counts too (``copy.bytes_per_s`` is a bandwidth, not seconds)."""
    name = key.rsplit(".", 1)[-1]
    for suffix, write in SUFFIXES:
        if name.endswith(suffix) or name == suffix[1:]:
            return write(value)
    return format_number(value)


def decade(k: int) -> str:
    """10**k as a short count: 100, 1k, 10k, 1M."""
    value = 10.0**k
    for factor, suffix in _SI:
        if value >= factor:
            return f"{value / factor:.0f}{suffix}"
    return f"{value:g}"
