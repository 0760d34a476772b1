# The fused add+relu, written by hand: read a and b once, write the result once.
import math
import os

import torch
from torch.profiler import ProfilerActivity, profile, record_function

device = "cuda" if torch.cuda.is_available() else "cpu"
# No GPU: run Triton kernels in Triton's interpreter (numpy on the CPU) instead of
# compiling them. It must be set before triton is imported, so it comes first.
if device == "cpu":
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402  (imported after the interpreter switch on purpose)
import triton.language as tl  # noqa: E402

activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)


@triton.jit
def add_relu_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)  # one read of a
    b = tl.load(b_ptr + offsets, mask=mask)  # one read of b
    out = tl.maximum(a + b, 0.0)  # the sum lives only in registers
    tl.store(out_ptr + offsets, out, mask=mask)  # one write


def add_relu_triton(a, b, block_size=1024):
    out = torch.empty_like(a)
    n = a.numel()
    # Marks one launch in the profile (on the CPU the interpreter launches no real kernel).
    with record_function("triton: add_relu_kernel"):
        add_relu_kernel[(triton.cdiv(n, block_size),)](a, b, out, n, BLOCK_SIZE=block_size)
    return out


def add_relu_eager(a, b):
    return (a + b).relu()


# The interpreter runs each program in Python, so the CPU run uses 10x fewer elements.
n = 1_000_000 if device == "cuda" else 100_000
a = torch.randn(n, device=device)
b = torch.randn(n, device=device)
expected = add_relu_eager(a, b)  # also the eager warm-up
out = add_relu_triton(a, b)  # warm-up: on a GPU the first launch compiles the kernel
error = (out - expected).abs().max().item()

with profile(activities=activities) as prof_eager:  # session 0: eager, add then relu
    add_relu_eager(a, b)
    if device == "cuda":
        torch.cuda.synchronize()
with profile(activities=activities) as prof_triton:  # session 1: the hand-written kernel
    add_relu_triton(a, b)
    if device == "cuda":
        torch.cuda.synchronize()

# NaN in, what comes out? torch.relu keeps NaN; tl.maximum's default does not promise to.
nan_a = torch.tensor([math.nan, -1.0, 2.0, math.nan], device=device)
nan_b = torch.zeros(4, device=device)
nan_torch = add_relu_eager(nan_a, nan_b)
nan_triton = add_relu_triton(nan_a, nan_b)

mode = "interpreted on the CPU" if os.environ.get("TRITON_INTERPRET") == "1" else "compiled for the GPU"
print(f"device: {device} (Triton kernel {mode})")
print(f"elements: {n}   max |triton - torch|: {error}")
print("relu(a + b) with NaN inputs:")
print("  torch :", nan_torch.tolist())
print("  triton:", nan_triton.tolist())

results = {
    "device": device,
    "interpreted": os.environ.get("TRITON_INTERPRET") == "1",
    "elements": n,
    "max_abs_error": error,
    "nan_inputs": int(nan_a.isnan().sum()),
    "nan_out_torch": int(nan_torch.isnan().sum()),
    "nan_out_triton": int(nan_triton.isnan().sum()),
}
