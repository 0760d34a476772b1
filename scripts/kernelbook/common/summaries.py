"""A capture in brief (:class:`Summary`): the types, and reading one stored as a capture's ``previous``. Pure.

``records.py`` stores a summary in each capture (the one it replaced); ``changes.py`` makes
summaries from captures and compares them. Both import these from here, so neither imports
the other's caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..safety import validation as v


@dataclass(frozen=True)
class KernelCount:
    name: str  # the short name (kernel_names.short_name), or the full one for `kernelbook diff --full`
    count: int


@dataclass(frozen=True)
class SessionSummary:
    launches: int
    kernel_time_us: float
    kernels: tuple[KernelCount, ...]

    def counts(self) -> dict[str, int]:
        return {k.name: k.count for k in self.kernels}


@dataclass(frozen=True)
class Summary:
    """A capture in brief; stored as a newer capture's ``previous``."""

    device_name: str
    torch: str
    captured_at: str
    compute_capability: str | None = None
    driver: str | None = None
    cuda: str | None = None
    triton: str | None = None
    git_commit: str | None = None
    sessions: tuple[SessionSummary, ...] = ()


def summary_from_json(raw: Any, at: str) -> Summary:
    """A stored summary, validated like the rest of a capture (``records.from_json``); raises ``validation.Invalid``."""
    raw = v.record(raw, at, Summary)
    optional = {name: v.text(raw, name, at, optional=True)
                for name in ("compute_capability", "driver", "cuda", "triton", "git_commit")}
    sessions = []
    for i, item in enumerate(v.listed(raw, "sessions", at)):
        where = f"{at}.sessions[{i}]"
        item = v.record(item, where, SessionSummary)
        kernels = []
        for j, kernel in enumerate(v.listed(item, "kernels", where)):
            here = f"{where}.kernels[{j}]"
            kernel = v.record(kernel, here, KernelCount)
            kernels.append(KernelCount(v.text(kernel, "name", here, empty=False), v.integer(kernel, "count", here, minimum=1)))
        launches = v.integer(item, "launches", where)
        if launches != sum(k.count for k in kernels):
            raise v.Invalid(f"{where} counts {launches} launches but its kernels add up to {sum(k.count for k in kernels)}")
        sessions.append(SessionSummary(launches, v.number(item, "kernel_time_us", where), tuple(kernels)))
    return Summary(device_name=v.text(raw, "device_name", at, empty=False), torch=v.text(raw, "torch", at),
                   captured_at=v.text(raw, "captured_at", at), sessions=tuple(sessions), **optional)
