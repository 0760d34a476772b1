"""What every figure is: its record, the registry of figures by name, and input checks. Pure."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...common.records import Capture
from .svg import Layout

LANGS = ("ja", "en")


@dataclass(frozen=True)
class Figure:
    """One drawn figure, ready to inline in a page of language ``lang``."""

    name: str  # "traffic" | "timeline" | "sweep" | ...
    lang: str  # "ja" | "en"
    svgs: tuple[str, ...]  # a complete <svg ...>...</svg> per layout of svg.LAYOUTS, in that order
    alt: str  # alt text in the page's language (also the <title> each svg is labelled by)
    caption: str  # one sentence in the page's language, plain text
    data: dict  # what it was drawn from, e.g. {"eager_kernel_bars": 2, ...}

    @property
    def svg(self) -> str:
        """The first layout's drawing: the wide one."""
        return self.svgs[0]

    @property
    def html(self) -> str:
        """Every layout's drawing, for the page (its CSS shows the one that fits)."""
        return "\n".join(self.svgs)


@dataclass(frozen=True)
class FigureKind:
    """A figure by name: which captures it reads, what it takes from them, how it draws."""

    name: str
    needs: tuple[str, ...]  # snippet ids of the captures it is drawn from
    inputs: Callable[[Mapping[str, Capture]], dict]  # captures -> exactly what it draws (plain JSON data, validated)
    draw: Callable[[dict, str, Layout], Figure]  # (inputs, lang, layout) -> the figure, its one svg laid out for layout.width
    # "cuda": only a GPU can measure what it shows. Drawn only while every capture it needs
    # that the page shows is a CUDA one; otherwise a placeholder says a GPU capture is
    # needed (figures/placeholder.py) and ``inputs`` is never called on the CPU's data.
    device: str | None = None
    subject: Mapping[str, str] | None = None  # lang -> what it shows, for the placeholder's words (required with device)

    def __post_init__(self) -> None:
        if self.device not in (None, "cuda", "cpu"):
            raise ValueError(f"figure {self.name!r}: device is 'cuda', 'cpu' or None, not {self.device!r}")
        if self.device and (not self.subject or set(self.subject) != set(LANGS)):
            raise ValueError(f"figure {self.name!r}: a figure drawn only from {self.device} captures needs a subject in {', '.join(LANGS)}")


KINDS: dict[str, FigureKind] = {}


def register(kind: FigureKind) -> FigureKind:
    """Make ``[[kb:figure NAME]]`` draw ``kind``; each figure module calls this once."""
    if kind.name in KINDS:
        raise ValueError(f"figure {kind.name!r} is registered twice")
    KINDS[kind.name] = kind
    return kind


class MissingCapture(KeyError):
    """A figure needs a capture the caller did not pass; the message names the snippet."""

    def __str__(self) -> str:  # KeyError would print the repr, quotes and all
        return str(self.args[0]) if self.args else ""


def need(captures: Mapping[str, Capture], snippet: str, name: str) -> Capture:
    """The capture of ``snippet`` that figure ``name`` is drawn from, or MissingCapture."""
    capture = captures.get(snippet)
    if capture is None:
        have = ", ".join(sorted(captures)) or "none"
        raise MissingCapture(
            f"figure {name!r} needs the capture of {snippet}, which was not given (given: {have}); "
            f"run `kernelbook capture {snippet}`"
        )
    return capture


def source(captures: Mapping[str, Capture], snippet: str, name: str) -> tuple[Capture, str]:
    """The capture figure ``name`` is drawn from (:func:`need`), and the place its errors name:
    ``figure 'NAME': SNIPPET (DEVICE)``."""
    capture = need(captures, snippet, name)
    return capture, f"figure {name!r}: {snippet} ({capture.device})"


def finite(value: Any, what: str, *, positive: bool = False) -> float:
    """``value`` as a non-negative (or positive) finite float; ValueError naming ``what`` otherwise."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: expected a number, got {value!r}") from None
    if not math.isfinite(number) or number < 0 or (positive and number == 0):
        raise ValueError(f"{what}: expected a {'positive' if positive else 'non-negative'} finite number, got {value!r}")
    return number


def rows_of(capture: Capture, where: str, missing: str | None = None) -> list[dict]:
    """The capture's ``results["rows"]``, each an object; ValueError ``"{where}: {missing}"`` when
    there are none (by default: no results rows, re-capture), naming the row that is not an object otherwise."""
    data = capture.data
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list) or not data["rows"]:
        raise ValueError(f"{where}: " + (missing or f"the capture has no results rows; re-run `kernelbook capture --force {capture.snippet}`"))
    for i, row in enumerate(data["rows"]):
        if not isinstance(row, dict):
            raise ValueError(f"{where}: row {i} is not an object")
    return data["rows"]
