"""When a kernel time counts as moved ("since the previous capture", `kernelbook diff`): by more than the
threshold, a fraction of the old time, the threshold itself still "within" (issue 47's audit, changes.py)."""

from __future__ import annotations

import pytest

from kernelbook.common import changes
from kernelbook.common.summaries import KernelCount, SessionSummary, Summary


@pytest.mark.parametrize("old, new, within", [
    (4.0, 5.0, True),  # exactly the threshold (0.25 × 4): still within
    (4.0, 3.0, True),
    (4.0, 5.01, False),
    (4.0, 2.99, False),
    (8.0, 10.5, False),  # 31% of the old time moved; 24% of the new one: measured against the old
    (0.0, 0.0, True),
    (0.0, 1.0, False),
])
def test_a_time_moved_by_more_than_the_threshold_of_the_old_one(old, new, within):
    assert changes.within(old, new, 0.25) is within


def test_a_session_whose_time_moved_is_a_change_and_one_within_the_threshold_is_not():
    def summary(time_us: float) -> Summary:
        return Summary("CPU (test)", "2.13.0", "2026-01-02T03:04:05Z", None, None, None, None, None,
                       (SessionSummary(1, time_us, (KernelCount("add", 1),)),))

    assert not changes.compare(summary(100.0), summary(110.0)).changed  # 10%: changes.THRESHOLD
    moved = changes.compare(summary(100.0), summary(111.0))
    assert moved.changed and moved.sessions[0].time_moved and moved.sessions[0].time_us == (100.0, 111.0)
