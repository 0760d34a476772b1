"""The one rule for what of a snippet's stderr a capture leaves out. Pure.

libkineto (inside libtorch) logs one line at its USDT trace points each time a profiler
session starts and stops, whatever ``KINETO_LOG_LEVEL`` says::

    USDT:2026-11-30 15:43:58 5737:5737 SyncActivityProfilerHandler.cpp:52] profiler_start
    USDT:2026-11-30 15:43:58 5737:5737 SyncActivityProfilerHandler.cpp:59] profiler_stop

They are the profiler talking about itself, carry a date and process id that differ on
every run, and say nothing about the snippet. Exactly these lines are dropped; the
capture records how many (``stderr_dropped``), so nothing vanishes unseen. Any other
line, a USDT line that says something else included, is kept.
"""

from __future__ import annotations

import re

PROFILER_USDT = re.compile(r"USDT:\S+ \S+ \d+:\d+ \S+:\d+\] profiler_(?:start|stop)")


def kept_lines(stderr: str) -> tuple[list[str], int]:
    """The lines of ``stderr`` a capture keeps, and how many it dropped by the rule above."""
    lines = stderr.splitlines()
    kept = [line for line in lines if not PROFILER_USDT.fullmatch(line)]
    return kept, len(lines) - len(kept)
