"""Which capture a page shows for a GPU: its keyed file over an old unkeyed one (issue 47's audit, site/book.py)."""

from __future__ import annotations

from kernelbook.site import book as site_book
from kernelbook.common.snippets import discover
from test_gpus import A100, T4, gpu_capture, tree


def test_a_page_shows_the_keyed_capture_of_a_gpu_not_an_old_unkeyed_one_of_the_same_gpu(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", A100, slot="cuda", captured_at="2025-01-01T00:00:00Z")  # from before keys
    gpu_capture(root, "ch01/a", A100, captured_at="2026-01-02T03:04:05Z")  # a.cuda-a100_80gb.json
    gpu_capture(root, "ch01/a", T4)
    (snippet,) = discover(root)
    entry = site_book.entry(root, snippet, ("cpu",), "2.13.0", reference="a100_80gb")
    assert entry.cuda.environment.captured_at == "2026-01-02T03:04:05Z"
    assert [(key, c.environment.captured_at) for key, c in entry.gpus] == [
        ("a100_80gb", "2026-01-02T03:04:05Z"), ("t4", "2026-01-02T03:04:05Z")]  # the reference GPU first, one capture each


def test_a_stale_cpu_capture_beside_a_shown_gpu_capture_is_a_problem_and_a_missing_one_is_not(tmp_path):
    from test_gpu_workflow import crafted

    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", A100)
    (snippet,) = discover(root)
    assert site_book.entry(root, snippet, ("cpu",), "2.13.0", reference="a100_80gb").problems == ()  # no CPU capture: fine
    crafted(root, "ch01/a", "cpu", source="print('an older version')\n")
    entry = site_book.entry(root, snippet, ("cpu",), "2.13.0", reference="a100_80gb")
    assert entry.cuda is not None and entry.cpu is None
    assert entry.problems == ("cpu capture a.cpu.json is stale (source changed); run `kernelbook capture --device cpu ch01/a`",)
