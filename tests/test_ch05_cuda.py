"""Chapter 5's CUDA C++ examples, run bare: what nvcc makes of the kernels for sm_90, and what the
GPU-only examples do on a machine without a GPU.

ch05/cuda_sm90 needs nvcc (a CUDA toolkit, or the `cuda` extra's wheels, part of the test extra)
and a cuobjdump (the toolkit's or Triton's wheel's); no GPU. The facts checked are the ones the
chapter rests on and that any nvcc which compiles the source as written must produce.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

FOLDER = ROOT / "snippets/ch05"
DUMP = "import json, runpy, sys; ns = runpy.run_path(sys.argv[1]); print('@@' + json.dumps(ns['results']))"
HIDDEN = {"CUDA_VISIBLE_DEVICES": ""}


def bare(name: str, timeout: float) -> tuple[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"} | HIDDEN
    done = subprocess.run([sys.executable, "-c", DUMP, str(FOLDER / f"{name}.py")], capture_output=True, text=True,
                          env=env, cwd=FOLDER, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    printed, _, data = done.stdout.rpartition("@@")
    return printed, json.loads(data)


@pytest.fixture(scope="module")
def sm90():
    return bare("cuda_sm90", 300)


def test_it_says_what_it_compiled_for_and_with(sm90):
    printed, results = sm90
    assert printed.splitlines()[0].startswith("compiled for sm_90 with nvcc ") and printed.splitlines()[0].endswith("; not run")
    assert (results["target"], results["compiler"]) == ("cuda:90", "nvcc")
    assert results["nvcc"].count(".") == 2  # e.g. 13.0.88
    assert set(results["kernels"]) == set(results["restrict"]) == {
        "add_relu_kernel", "add_relu_vec4_kernel", "add_relu_grid_stride_kernel"}
    assert "__global__ void add_relu_vec4_kernel" in results["source"] and "<<<" in results["launchers"]


def test_the_memory_instructions_the_chapter_rests_on(sm90):
    _, results = sm90
    naive, vec4 = results["kernels"]["add_relu_kernel"], results["kernels"]["add_relu_vec4_kernel"]
    # one float per thread: two 4-byte loads, one 4-byte store, nothing wider
    assert (naive["loads_32"], naive["loads_128"], naive["stores_32"], naive["stores_128"]) == (2, 0, 1, 0)
    # four floats per thread: one 16-byte load per input and one 16-byte store, plus the scalar tail
    assert (vec4["loads_128"], vec4["stores_128"], vec4["loads_32"], vec4["stores_32"]) == (2, 1, 2, 1)
    assert "LDG.E.128" in results["sass_vec4"] and "LDG.E.128" not in results["sass_naive"]
    for table in ("kernels", "restrict"):
        for row in results[table].values():
            assert row["stack_bytes"] == 0 and row["shared_bytes"] == 0  # nothing spills, no shared memory
            assert 0 < row["registers"] <= results["limits"]["registers_per_thread"]
            assert row["loads"] == row["loads_32"] + row["loads_128"] and row["stores"] == row["stores_32"] + row["stores_128"]


def test_restrict_moves_loads_ahead_of_stores_and_through_the_read_only_path(sm90):
    _, results = sm90
    plain, restrict = results["kernels"], results["restrict"]
    assert all(row["loads_readonly"] == 0 for row in plain.values())
    assert all(row["loads_readonly"] == row["loads"] for row in restrict.values())  # every load LDG...CONSTANT
    grid, grid_restrict = plain["add_relu_grid_stride_kernel"], restrict["add_relu_grid_stride_kernel"]
    assert grid["loads_ahead"] == 2 < grid_restrict["loads_ahead"]  # without it, each store waits for the next loads
    assert grid["stores"] > 1  # the loop was unrolled
    assert "LDG.E.CONSTANT" in results["sass_grid_stride_restrict"] and ".CONSTANT" not in results["sass_grid_stride"]


def test_occupancy_follows_from_the_registers_and_the_sm90_limits(sm90):
    _, results = sm90
    limits, threads = results["limits"], results["threads_per_block"]
    for row in [*results["kernels"].values(), *results["restrict"].values()]:
        per_block = -(-row["registers"] * 32 // 256) * 256 * (threads // 32)
        fits = {"blocks": limits["blocks"], "threads": limits["threads"] // threads, "registers": limits["registers"] // per_block}
        assert row["blocks_per_sm"] == min(fits.values())
        assert row["limited_by"] == " = ".join(k for k, v in fits.items() if v == row["blocks_per_sm"])
        assert row["occupancy_share"] == row["blocks_per_sm"] * threads / limits["threads"]


def test_without_a_gpu_the_load_inline_examples_say_so_and_build_nothing():
    sys.path.insert(0, str(FOLDER))
    try:
        import _add_relu_cuda
    finally:
        sys.path.remove(str(FOLDER))

    class NoCuda:  # what torch says on a CPU-only machine, without importing torch here
        class cuda:
            @staticmethod
            def is_available():
                return False

        class version:
            cuda = None

    reason = _add_relu_cuda.why_not_built(NoCuda)
    assert reason.startswith("no CUDA GPU here") and "load_inline" in reason
    printed, results = bare("cuda_bandwidth", 300)
    assert reason in printed and "not timed" in printed
    assert results["timed"] is False and results["rows"] is None and results["not_run_reason"] == reason
