"""What is stale, and what a page may still show: a capture of another source or capture format is
never shown; one stale only because this machine's torch differs still is (issue 47's audit)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import make_project, write
from kernelbook import CAPTURE_FORMAT
from kernelbook.common import freshness
from kernelbook.site import book as site_book
from kernelbook.common.snippets import discover
from test_gpu_workflow import crafted


def _tree(tmp_path: Path, **freshness_fields) -> Path:
    """One snippet and its CPU capture, fresh here unless ``freshness_fields`` say otherwise."""
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/a.py", "print('a')\n")
    path = crafted(root, "ch01/a", "cpu")
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["freshness"].update(freshness_fields)
    path.write_text(json.dumps(raw), encoding="utf-8")
    return root


def _state(root: Path, torch_now: str = "2.13.0") -> freshness.State:
    (snippet,) = discover(root)
    return freshness.assess(root, snippet, "cpu", ("cpu",), torch_now)


@pytest.mark.parametrize("changed, fields, reason", [
    ("format", {"format": CAPTURE_FORMAT - 1}, f"capture format {CAPTURE_FORMAT - 1} -> {CAPTURE_FORMAT}"),
    ("source", {"source_hash": "1" * 64}, "source changed"),
])
def test_a_capture_of_another_format_or_source_is_stale_and_never_shown(tmp_path, changed, fields, reason):
    assert _state(_tree(tmp_path / "fresh")).state == "fresh"
    root = _tree(tmp_path / "stale", **fields)
    state = _state(root)
    assert (state.state, state.changed, state.reason) == ("stale", (changed,), reason)
    assert not state.true_of_source
    (snippet,) = discover(root)
    entry = site_book.entry(root, snippet, ("cpu",), "2.13.0")
    assert entry.cpu is None and entry.shown is None
    assert entry.problems and "cpu capture a.cpu.json is stale" in entry.problems[0]


def test_a_capture_stale_only_because_this_machines_torch_differs_is_still_shown(tmp_path):
    root = _tree(tmp_path)
    state = _state(root, torch_now="2.14.0")
    assert (state.state, state.changed) == ("stale", ("torch",)) and state.true_of_source
    (snippet,) = discover(root)
    entry = site_book.entry(root, snippet, ("cpu",), "2.14.0")
    assert entry.cpu == state.capture
    assert entry.problems == ()


def test_a_failed_run_newer_than_the_capture_is_an_error_and_an_older_one_is_not(tmp_path):
    import os

    root = _tree(tmp_path)
    (snippet,) = discover(root)
    capture, failed = snippet.capture_path("cpu"), freshness.failure_path(root, snippet, "cpu")
    write(failed, f"{freshness.source_hash(snippet.path)}\nRuntimeError: out of luck\ntraceback\n")
    os.utime(capture, (1_000_000, 1_000_000))
    os.utime(failed, (2_000_000, 2_000_000))  # the run failed after this capture was made
    assert (_state(root).state, _state(root).reason) == ("error", "RuntimeError: out of luck")
    assert freshness.assess(root, snippet, "cpu", ("cpu",), "2.13.0", failures=False).state == "fresh"  # pages show the capture
    os.utime(failed, (500_000, 500_000))  # a capture made since the failure replaced it
    assert _state(root).state == "fresh"
    write(failed, "0" * 64 + "\nRuntimeError: of another source\n")
    os.utime(failed, (2_000_000, 2_000_000))
    assert _state(root).state == "fresh"


def test_which_capture_status_strict_demands_as_the_reference_gpus(tmp_path):
    from test_gpus import A100, T4, gpu_capture, tree

    root = tree(tmp_path / "t", snippets=("ch01/a",))
    (snippet,) = discover(root)
    assert [freshness.is_reference(snippet, s, None) for s in ("cuda", "cuda-t4", "cpu")] == [True, True, False]  # none named: any GPU
    assert [freshness.is_reference(snippet, s, "a100_80gb") for s in ("cuda-a100_80gb", "cuda-t4", "cpu")] == [True, False, False]
    gpu_capture(root, "ch01/a", A100, slot="cuda")  # from before keys: stands for the GPU it records
    assert freshness.is_reference(snippet, "cuda", "a100_80gb") and not freshness.is_reference(snippet, "cuda", "t4")
    gpu_capture(root, "ch01/a", T4, slot="cuda")
    assert not freshness.is_reference(snippet, "cuda", "a100_80gb")
