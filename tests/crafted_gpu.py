"""Crafted CUDA-shaped captures of chapter 4's timed snippets, in the shape their `results` take on a GPU,
and a capture file as the lent H200 session writes it (``recorded_under``: another torch and CUDA than here).

No GPU has run them: they exist so the GPU-only figures' drawing code is tested (data drawn =
data given), and the build's reading of a GPU run is tested, before a GPU capture does. Plain
records, no torch.
"""

from __future__ import annotations

import json
from pathlib import Path

from kernelbook import CAPTURE_FORMAT
from kernelbook.common import gpus
from kernelbook.common.records import SCHEMA, Capture, Environment, Freshness, from_json
from kernelbook.common.snippets import source_hash

# What the lent machine has (guide/gpu.md, "A lent GPU session"): not this machine's torch
H200_IMAGE = {"device_name": "NVIDIA H200", "compute_capability": "9.0", "torch": "2.11.0+cu130", "cuda": "13.0",
              "triton": "3.6.0", "driver": "580.95.05", "python": "3.12.3"}
ADD_KERNEL = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)"


def recorded_under(root: Path, sid: str, image: dict = H200_IMAGE, launches: int = 1, together: int = 1) -> Path:
    """A CUDA capture of ``sid`` in the layout and the environment ``kernelbook capture`` writes on ``image``:
    one profiling session of ``launches`` launches of one add kernel, run ``together`` snippets at a time
    (``capture --jobs``). Validated as any capture is read."""
    chapter, name = sid.split("/")
    environment = {"device_kind": "cuda", "device_name": image["device_name"], "torch": image["torch"], "python": image["python"],
                   "platform": "Linux-6.8.0-x86_64-with-glibc2.39", "captured_at": "2026-12-05T01:02:03Z",
                   "compute_capability": image["compute_capability"], "driver": image["driver"], "cuda": image["cuda"],
                   "triton": image["triton"], "git_commit": None, "settings": {"snippets_at_a_time": together}}
    raw = {"schema": SCHEMA, "snippet": sid, "device": "cuda",
           "freshness": {"source_hash": source_hash(root / "snippets" / chapter / f"{name}.py"), "format": CAPTURE_FORMAT,
                         "torch": image["torch"]},
           "environment": environment, "wall_time_s": 0.5, "stdout": [f"{name} on the GPU"], "stderr": [],
           "sessions": [{"index": 0, "device_kind": "cuda", "kernels": [{"name": ADD_KERNEL, "count": launches, "time_us": 2.5 * launches}],
                         "launches": launches}],
           "data": None, "trace_files": []}
    from_json(raw, "crafted")
    key = gpus.gpu_key(image["device_name"], image["compute_capability"])
    path = root / "snippets" / chapter / "captures" / f"{name}.{gpus.slot(key)}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return path


def cuda(snippet: str, data: dict) -> Capture:
    return Capture(snippet, "cuda", Freshness("0" * 64, 2, "2.13.0"),
                   Environment("cuda", "NVIDIA H200", "2.13.0", "3.11", "Linux", "2026-01-01T00:00:00Z"),
                   60.0, "", "", (), data)


def add_relu() -> Capture:
    rows = []
    for n, bw in ((1_000_000, (0.6, 0.9, 0.85, 1.1)), (3_000_000, (1.4, 2.0, 1.9, 2.3)), (10_000_000, (2.3, 3.3, 3.2, 3.6)),
                  (30_000_000, (2.6, 3.8, 3.7, 4.0)), (100_000_000, (2.7, 4.0, 3.9, 4.2))):
        row = {"elements": n}
        for name, tb, arrays in zip(("eager", "compiled", "triton", "copy"), bw, (3, 3, 3, 2)):
            row[f"{name}_bytes_per_s"] = tb * 1e12
            row[f"{name}_s"] = arrays * n * 4 / (tb * 1e12)
            if name in ("compiled", "triton"):
                row[f"{name}_max_abs_error"] = 0.0
        rows.append(row)
    return cuda("ch04/add_relu_bandwidth", {"device": "cuda", "interpreted": False, "timed": True, "block_size": 1024,
                                            "bytes_per_element": 4, "rows": rows})


def block_size() -> Capture:
    n = 100_000_000
    bws = {128: 2.1e12, 256: 3.1e12, 512: 3.7e12, 1024: 3.9e12, 2048: 3.95e12, 4096: 3.8e12, 8192: 3.3e12}
    rows = [{"block_size": b, "programs": -(-n // b), "max_abs_error": 0.0, "time_s": 3 * n * 4 / v, "bytes_per_s": v} for b, v in bws.items()]
    return cuda("ch04/block_size", {"device": "cuda", "interpreted": False, "timed": True, "elements": n, "rows": rows,
                                    "max_abs_error": 0.0, "best_block": 2048, "best_bytes_per_s": 3.95e12, "worst_block": 128,
                                    "worst_bytes_per_s": 2.1e12, "copy_bytes_per_s": 4.2e12})


def softmax() -> Capture:
    rows = []
    for cols, bw in ((256, (0.5, 1.5, 1.6, 1.7, 2.0)), (1024, (0.9, 3.0, 3.2, 3.3, 3.6)), (4096, (1.0, 3.5, 3.6, 3.7, 4.0)),
                     (16384, (1.0, 3.4, 3.2, 3.6, 4.1))):
        row = {"n_rows": 4096, "n_cols": cols}
        for name, tb in zip(("naive", "torch", "compiled", "triton", "copy"), bw):
            row[f"{name}_bytes_per_s"] = tb * 1e12
            row[f"{name}_s"] = 2 * 4096 * cols * 4 / (tb * 1e12)
            if name != "copy":
                row[f"{name}_max_abs_error"] = 1e-8
        rows.append(row)
    return cuda("ch04/fused_softmax", {"device": "cuda", "interpreted": False, "timed": True, "shape": [1823, 781], "block_size": 1024,
                                       "max_abs_error": 1e-8, "max_abs_error_compiled": 1e-9, "max_abs_error_naive": 1e-8, "rows": rows})


def all_captures() -> dict[str, Capture]:
    return {c.snippet: c for c in (add_relu(), block_size(), softmax())}
