"""Crafted CUDA-shaped captures of chapter 4's timed snippets, in the shape their `results` take on a GPU.

No GPU has run them: they exist so the GPU-only figures' drawing code is tested (data drawn =
data given) before a GPU capture does. Plain records, no torch.
"""

from __future__ import annotations

from kernelbook.common.records import Capture, Environment, Freshness


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
