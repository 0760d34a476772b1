"""ch04/sm90_code, run bare: the chapter's kernels compiled for sm_90 without a GPU.

Needs triton with its NVIDIA backend tools (ptxas, cuobjdump, nvdisasm ship in the wheel the
test extra installs); no GPU, no interpreter. What is checked is the shape of what it prints
and stores, plus the facts that hold for any triton that vectorises at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

pytest.importorskip("triton", reason="triton is not installed (the test extra installs it)")

SNIPPET = ROOT / "snippets/ch04/sm90_code.py"
DUMP = "import json, runpy, sys; ns = runpy.run_path(sys.argv[1]); print('@@' + json.dumps(ns['results']))"


@pytest.fixture(scope="module")
def run():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"} | {"CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run([sys.executable, "-c", DUMP, str(SNIPPET)], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    printed, _, data = done.stdout.rpartition("@@")
    return printed, json.loads(data)


def test_it_prints_its_target_tables_and_listing(run):
    printed, results = run
    lines = printed.splitlines()
    assert lines[0].startswith("compiled for cuda:90 with triton ") and lines[0].endswith("; not run")
    assert results["target"] == "cuda:90"
    assert sum(line.startswith("add+relu") for line in lines) == 2 and any(line.startswith("softmax") for line in lines)
    assert len(results["add_relu"]) == 8 and [r["n_cols"] for r in results["softmax"]] == [2 ** k for k in range(10, 17)]
    assert results["sass_add_relu"] in printed
    for line in results["sass_add_relu"].splitlines():  # each instruction beside its Triton line
        assert "  # " in line


def test_the_facts_the_chapter_rests_on(run):
    _, results = run
    rows = results["add_relu"]
    chapter = rows[2]
    assert (chapter["block_size"], chapter["num_warps"], chapter["divisible"]) == (1024, 4, "all")
    assert chapter["loads_128"] == 2 * chapter["stores_128"] > 0  # two inputs, one output, 16 bytes at a time
    assert chapter["stack_bytes"] == 0 and chapter["shared_bytes"] == 0
    assert [r["divisible"] for r in rows[6:]] == ["pointers", "none"]
    assert all(r["loads_128"] == 0 for r in rows[6:])  # no 16-byte loads without tt.divisibility=16 on n
    for r in rows + results["softmax"]:
        assert 0 < r["registers"] <= r["register_cap"] <= 255 and 0 < r["occupancy_share"] <= 1
        assert r["blocks_per_sm"] * 32 * r["num_warps"] <= results["limits"]["threads"]
    spills = [r["n_cols"] for r in results["softmax"] if r["stack_bytes"] or r["spill_stores"]]
    assert results["softmax_first_spill_cols"] == (spills[0] if spills else None)


def test_under_the_interpreter_it_compiles_nothing_and_says_so():
    """As in a CPU notebook of chapter 4, whose earlier cells switch the interpreter on for the process."""
    env = dict(os.environ, TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([sys.executable, "-c", DUMP, str(SNIPPET)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    printed, _, data = done.stdout.rpartition("@@")
    assert "Triton's interpreter is on in this process" in printed and "restart the kernel" in printed
    assert json.loads(data) is None


def test_the_cos_chain_counts_what_one_more_cosine_costs_each_element(run):
    printed, results = run
    cos = results["cos_chain"]
    (one, two) = cos["rows"]
    assert (one["k"], two["k"]) == (1, 2) and cos["values_per_thread"] == 1024 // (32 * 4)
    for row in cos["rows"]:  # the slow path for |x| >= 105615 is there, and counted apart
        assert 0 < row["instructions_taken"] < row["instructions"]
    assert cos["instructions_per_cos"] == (two["instructions_taken"] - one["instructions_taken"]) / cos["values_per_thread"]
    assert 0 < cos["instructions_per_cos"] < cos["instructions_per_cos_with_slow_path"]
    assert f"one more cosine, per element: {cos['instructions_per_cos']:g} instructions" in printed
