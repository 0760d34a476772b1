# The first Triton kernel: c = a + b, one block of elements per program.
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
def add_kernel(a_ptr, b_ptr, c_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)  # which program am I: 0, 1, 2, ...
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)  # my block of indices
    mask = offsets < n_elements  # the bounds check: lanes past the end do nothing
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


BLOCK_SIZE = 1024


def add(a, b):
    c = torch.empty_like(a)
    n = a.numel()
    grid = (triton.cdiv(n, BLOCK_SIZE),)  # enough programs to cover every element
    # A named range around the launch: on the CPU the interpreter launches no real
    # kernel, and this range is what marks one launch in the profile.
    with record_function("triton: add_kernel"):
        add_kernel[grid](a, b, c, n, BLOCK_SIZE=BLOCK_SIZE)
    return c


# 98,432 is not a multiple of 1024, so the last program is only partly used.
n = 98_432
a = torch.randn(n, device=device)
b = torch.randn(n, device=device)
c = add(a, b)  # warm-up: on a GPU the first launch compiles the kernel

with profile(activities=activities) as prof:
    c = add(a, b)
    if device == "cuda":
        torch.cuda.synchronize()

programs = triton.cdiv(n, BLOCK_SIZE)
last_active = n - (programs - 1) * BLOCK_SIZE
error = (c - (a + b)).abs().max().item()
mode = "interpreted on the CPU" if os.environ.get("TRITON_INTERPRET") == "1" else "compiled for the GPU"
print(f"device: {device} (Triton kernel {mode})")
print(f"elements: {n}   BLOCK_SIZE: {BLOCK_SIZE}   programs: {programs}")
print(f"last program: {last_active} of its {BLOCK_SIZE} lanes pass the mask")
print(f"max |triton - torch|: {error}")

results = {
    "device": device,
    "interpreted": os.environ.get("TRITON_INTERPRET") == "1",
    "elements": n,
    "block_size": BLOCK_SIZE,
    "programs": programs,
    "last_program_active": last_active,
    "max_abs_error": error,
}
