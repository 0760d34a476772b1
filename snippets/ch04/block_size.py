# How big should a block be? The same add+relu kernel at every BLOCK_SIZE from 128 to 8192.
import os

import torch
from torch.profiler import record_function

device = "cuda" if torch.cuda.is_available() else "cpu"
# No GPU: run Triton kernels in Triton's interpreter (numpy on the CPU) instead of
# compiling them. It must be set before triton is imported, so it comes first.
if device == "cpu":
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402  (imported after the interpreter switch on purpose)
import triton.language as tl  # noqa: E402


@triton.jit
def add_relu_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.maximum(a + b, 0.0), mask=mask)


def add_relu_triton(a, b, block_size):
    out = torch.empty_like(a)
    n = a.numel()
    # Marks one launch in the profile (on the CPU the interpreter launches no real kernel).
    with record_function("triton: add_relu_kernel"):
        add_relu_kernel[(triton.cdiv(n, block_size),)](a, b, out, n, BLOCK_SIZE=block_size)
    return out


def seconds(fn, *args):
    """Median time of one call on the GPU (warm-up included, L2 flushed between calls)."""
    return triton.testing.do_bench(lambda: fn(*args), return_mode="median") / 1e3


# 100 M elements on a GPU. The interpreter's times mean nothing, so the CPU run only
# checks every block size on 100,000 elements (not a multiple of any of them) and times nothing.
n = 100_000_000 if device == "cuda" else 100_000
block_sizes = [128, 256, 512, 1024, 2048, 4096, 8192]
a = torch.randn(n, device=device)
b = torch.randn(n, device=device)
expected = (a + b).relu()
bytes_moved = 3 * n * a.element_size()  # read a, read b, write out

rows = []
for block in block_sizes:
    error = (add_relu_triton(a, b, block) - expected).abs().max().item()  # also compiles this size
    t = seconds(add_relu_triton, a, b, block) if device == "cuda" else None
    rows.append({
        "block_size": block,
        "programs": triton.cdiv(n, block),
        "max_abs_error": error,
        "time_s": t,
        "bytes_per_s": bytes_moved / t if t else None,
    })
copy_s = seconds(torch.clone, a) if device == "cuda" else None
copy_bytes_per_s = 2 * n * a.element_size() / copy_s if copy_s else None

print(f"device: {device}   elements: {n}")
print(f"{'BLOCK_SIZE':>10} {'programs':>10} {'GB/s':>8} {'max error':>10}")
for row in rows:
    bw = f"{row['bytes_per_s'] / 1e9:8.1f}" if row["bytes_per_s"] else f"{'-':>8}"
    print(f"{row['block_size']:>10} {row['programs']:>10} {bw} {row['max_abs_error']:>10}")
timed = [r for r in rows if r["bytes_per_s"]]
best = max(timed, key=lambda r: r["bytes_per_s"]) if timed else None
worst = min(timed, key=lambda r: r["bytes_per_s"]) if timed else None
if best:
    print(f"best BLOCK_SIZE: {best['block_size']}   copy: {copy_bytes_per_s / 1e9:.1f} GB/s")
else:
    print("not timed: on the CPU the Triton kernel is interpreted, so its time says nothing")

results = {
    "device": device,
    "interpreted": os.environ.get("TRITON_INTERPRET") == "1",
    "timed": device == "cuda",
    "elements": n,
    "rows": rows,
    "max_abs_error": max(r["max_abs_error"] for r in rows),
    "best_block": best["block_size"] if best else None,
    "best_bytes_per_s": best["bytes_per_s"] if best else None,
    "worst_block": worst["block_size"] if worst else None,
    "worst_bytes_per_s": worst["bytes_per_s"] if worst else None,
    "copy_bytes_per_s": copy_bytes_per_s,
}
