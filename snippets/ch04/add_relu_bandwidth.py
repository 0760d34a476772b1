# Achieved bandwidth of add+relu: hand-written Triton vs torch.compile vs eager,
# against a plain copy measured in the same run.
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


def add_relu_triton(a, b, block_size=1024):
    out = torch.empty_like(a)
    n = a.numel()
    # Marks one launch in the profile (on the CPU the interpreter launches no real kernel).
    with record_function("triton: add_relu_kernel"):
        add_relu_kernel[(triton.cdiv(n, block_size),)](a, b, out, n, BLOCK_SIZE=block_size)
    return out


def add_relu_eager(a, b):
    return (a + b).relu()


# dynamic=False: one kernel specialised for each length, the compiler's best case.
add_relu_compiled = torch.compile(add_relu_eager, dynamic=False)


def copy(a, b):
    return a.clone()  # read one array, write one array: the memory roof


def seconds(fn, *args):
    """Median time of one call on the GPU (warm-up included, L2 flushed between calls)."""
    return triton.testing.do_bench(lambda: fn(*args), return_mode="median") / 1e3


# On a GPU: 1 M to 100 M elements. The interpreter's times mean nothing, so the CPU
# run only checks that every version agrees, at one small size, and times nothing.
sizes = [1_000_000, 3_000_000, 10_000_000, 30_000_000, 100_000_000] if device == "cuda" else [100_000]
versions = {"eager": add_relu_eager, "compiled": add_relu_compiled, "triton": add_relu_triton, "copy": copy}
# Bytes each version must move at least: add+relu reads a and b and writes out; copy reads and writes one.
arrays_moved = {"eager": 3, "compiled": 3, "triton": 3, "copy": 2}

rows = []
for n in sizes:
    a = torch.randn(n, device=device)
    b = torch.randn(n, device=device)
    expected = add_relu_eager(a, b)
    row = {"elements": n}
    for name, fn in versions.items():
        if name in ("compiled", "triton"):
            row[f"{name}_max_abs_error"] = (fn(a, b) - expected).abs().max().item()
        t = seconds(fn, a, b) if device == "cuda" else None
        row[f"{name}_s"] = t
        row[f"{name}_bytes_per_s"] = arrays_moved[name] * n * a.element_size() / t if t else None
    rows.append(row)
    del a, b, expected

print(f"device: {device}")
print(f"{'elements':>12} {'eager':>10} {'compiled':>10} {'triton':>10} {'copy':>10}   (GB/s)")
for row in rows:
    cells = [row[f"{k}_bytes_per_s"] for k in versions]
    shown = " ".join(f"{c / 1e9:10.1f}" if c else f"{'-':>10}" for c in cells)
    print(f"{row['elements']:>12} {shown}")
if device == "cpu":
    print("not timed: on the CPU the Triton kernel is interpreted, so its time says nothing")
for name in ("compiled", "triton"):
    print(f"max |{name} - eager|: {max(r[f'{name}_max_abs_error'] for r in rows)}")

results = {
    "device": device,
    "interpreted": os.environ.get("TRITON_INTERPRET") == "1",
    "timed": device == "cuda",
    "block_size": 1024,
    "bytes_per_element": 4,
    "rows": rows,
}
