"""Which capture `kernelbook diff --gpu` compares for a GPU: the keyed file over an old unkeyed one (issue 47)."""

from __future__ import annotations

import pytest

from kernelbook.common.records import Capture, Environment, Freshness
from kernelbook.review import trees


def h200(captured_at: str) -> Capture:
    return Capture("ch01/a", "cuda", Freshness("0" * 64, 2, "2.13.0"),
                   Environment("cuda", "NVIDIA H200", "2.13.0", "3.12", "Linux", captured_at, compute_capability="9.0"),
                   1.0, "", "", ())


@pytest.mark.parametrize("keyed_first", [True, False])
def test_the_keyed_capture_of_a_gpu_wins_over_an_old_unkeyed_one_of_the_same_gpu(keyed_first):
    old, keyed = h200("2025-01-01T00:00:00Z"), h200("2026-01-02T03:04:05Z")
    files = [(("ch01/a", "cuda-h200"), keyed), (("ch01/a", "cuda"), old)]
    side = trees.Side("t", dict(files if keyed_first else files[::-1]))
    assert trees.gpu_side(side, "h200").captures == {("ch01/a", "cuda"): keyed}
    # alone, the unkeyed capture stands for the GPU it records
    assert trees.gpu_side(trees.Side("t", {("ch01/a", "cuda"): old}), "h200").captures == {("ch01/a", "cuda"): old}
    assert trees.gpu_side(side, "t4").captures == {}
