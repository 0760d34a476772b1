"""How one capture differs from another: what a capture keeps of the one it replaced, and the comparison. Pure.

A :class:`Summary` is a capture reduced to what a reviewer compares: where it ran (GPU,
torch, CUDA, triton, ...) and, per profiling session, its kernels by short name with their
launch counts, and the total kernel time. ``kernelbook capture`` and ``merge`` record the
summary of the capture they replace as the new capture's ``previous`` (so each example can
show how its capture changed without git history); ``kernelbook diff`` summarises both
sides the same way. :func:`compare` says what changed; a time that moved by less than the
threshold (a ratio, default 10 %) is no change: noise is not news.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

from .kernel_names import short_name
from .records import Capture
from .summaries import KernelCount, SessionSummary, Summary  # noqa: F401 - re-exported

THRESHOLD = 0.10
# What a reviewer is told about where a capture ran, in this order (not the date or commit: every run moves those).
ENVIRONMENT = ("device_name", "compute_capability", "driver", "cuda", "torch", "triton")
ENVIRONMENT_LABELS = {"device_name": "device", "compute_capability": "compute capability", "driver": "driver",
                      "cuda": "CUDA", "torch": "torch", "triton": "triton"}


def summarize(capture: Capture, full: bool = False) -> Summary:
    """``capture`` in brief: kernels by short name (``full``: by their whole names), equal names added up."""
    env = capture.environment
    sessions = []
    for session in capture.sessions:
        counts: dict[str, int] = {}
        for kernel in session.kernels:
            name = kernel.name if full else short_name(kernel.name)
            counts[name] = counts.get(name, 0) + kernel.count
        sessions.append(SessionSummary(session.launches, round(session.kernel_time_us, 3),
                                       tuple(KernelCount(n, c) for n, c in counts.items())))
    return Summary(env.device_name, env.torch, env.captured_at, env.compute_capability, env.driver, env.cuda,
                   env.triton, env.git_commit, tuple(sessions))


# ---------------------------------------------------------------- comparing two summaries


@dataclass(frozen=True)
class Moved:
    """One thing, old → new (None: absent on that side)."""

    what: str
    old: Any
    new: Any


@dataclass(frozen=True)
class SessionChange:
    index: int
    added: tuple[KernelCount, ...]  # kernels only the new session launched
    removed: tuple[KernelCount, ...]  # kernels only the old one launched
    counts: tuple[Moved, ...]  # kernels both launched, a different number of times
    launches: tuple[int, int]
    time_us: tuple[float, float]
    time_moved: bool  # the total kernel time moved by more than the threshold

    @property
    def ratio(self) -> float | None:
        old, new = self.time_us
        return new / old if old else None

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed or self.counts or self.launches[0] != self.launches[1] or self.time_moved)


@dataclass(frozen=True)
class Change:
    """How the new capture of one snippet × device differs from the old one."""

    environment: tuple[Moved, ...]
    sessions: tuple[SessionChange, ...]  # every session either side has, by index
    session_count: tuple[int, int]

    @property
    def changed(self) -> bool:
        return bool(self.environment) or self.session_count[0] != self.session_count[1] or any(s.changed for s in self.sessions)


def within(old: float, new: float, threshold: float) -> bool:
    """``new`` is ``old`` give or take ``threshold`` (a fraction of ``old``): noise, not news."""
    if old == new:
        return True
    return old != 0 and abs(new - old) <= threshold * abs(old)


_NONE = SessionSummary(0, 0.0, ())


def compare(old: Summary, new: Summary, threshold: float = THRESHOLD) -> Change:
    environment = tuple(Moved(name, getattr(old, name), getattr(new, name))
                        for name in ENVIRONMENT if getattr(old, name) != getattr(new, name))
    sessions = tuple(_session(i, a or _NONE, b or _NONE, threshold)
                     for i, (a, b) in enumerate(zip_longest(old.sessions, new.sessions)))
    return Change(environment, sessions, (len(old.sessions), len(new.sessions)))


def _session(index: int, old: SessionSummary, new: SessionSummary, threshold: float) -> SessionChange:
    before, after = old.counts(), new.counts()
    added = tuple(k for k in new.kernels if k.name not in before)
    removed = tuple(k for k in old.kernels if k.name not in after)
    counts = tuple(Moved(k.name, before[k.name], k.count) for k in new.kernels
                   if k.name in before and before[k.name] != k.count)
    time_us = (old.kernel_time_us, new.kernel_time_us)
    return SessionChange(index, added, removed, counts, (old.launches, new.launches), time_us,
                         not within(*time_us, threshold))
