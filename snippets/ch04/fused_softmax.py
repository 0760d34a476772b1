# A reduction: softmax over each row, fused into one kernel that reads x once and writes once.
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
else:
    # Shows inductor's C++ kernel (cpp_fused_*) in the CPU profile, as in chapter 1.
    torch._inductor.config.cpp.enable_kernel_profile = True


@triton.jit
def softmax_kernel(out_ptr, x_ptr, x_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)  # one program per row
    cols = tl.arange(0, BLOCK_SIZE)  # the whole row fits in one block
    mask = cols < n_cols
    # Lanes past the end of the row read -inf: they cannot win the max, and exp(-inf) = 0.
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)  # subtract the row maximum so exp cannot overflow
    numerator = tl.exp(shifted)
    denominator = tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, numerator / denominator, mask=mask)


def softmax_triton(x):
    n_rows, n_cols = x.shape
    assert x.stride(1) == 1, "rows must be contiguous"
    block = triton.next_power_of_2(n_cols)  # tl.arange needs a power of two
    # Long rows get more warps, so each thread holds fewer of the row's values.
    num_warps = 4 if block < 2048 else 8 if block < 4096 else 16
    out = torch.empty_like(x)
    # Marks one launch in the profile (on the CPU the interpreter launches no real kernel).
    with record_function("triton: softmax_kernel"):
        softmax_kernel[(n_rows,)](out, x, x.stride(0), out.stride(0), n_cols, BLOCK_SIZE=block, num_warps=num_warps)
    return out


def softmax_naive(x):
    """Softmax as five separate PyTorch operations: each one a trip through memory."""
    row_max = x.amax(dim=1, keepdim=True)
    shifted = x - row_max
    numerator = torch.exp(shifted)
    denominator = numerator.sum(dim=1, keepdim=True)
    return numerator / denominator


def softmax_torch(x):
    return torch.softmax(x, dim=1)


# dynamic=False: one kernel specialised for each shape, the compiler's best case.
softmax_compiled = torch.compile(softmax_naive, dynamic=False)
versions = {"naive": softmax_naive, "torch": softmax_torch, "compiled": softmax_compiled, "triton": softmax_triton}

# Correctness and kernel counts on a ragged shape: 781 columns is not a power of two,
# so the mask matters. The CPU run has fewer rows because the interpreter is slow.
# Seeded: a rerun on the same machine prints the same tiny differences.
torch.manual_seed(0)
x = torch.randn(1823 if device == "cuda" else 128, 781, device=device)
expected = softmax_torch(x)
errors = {}
for name, fn in versions.items():
    errors[name] = (fn(x) - expected).abs().max().item()  # also the warm-up (and compile)

sessions = {}
for name, fn in versions.items():  # sessions 0..3: naive, torch, compiled, triton
    with profile(activities=activities) as sessions[name]:
        fn(x)
        if device == "cuda":
            torch.cuda.synchronize()


def seconds(fn, *args):
    """Median time of one call on the GPU (warm-up included, L2 flushed between calls)."""
    return triton.testing.do_bench(lambda: fn(*args), return_mode="median") / 1e3


# Bandwidth on a GPU: 4096 rows of 256 to 16,384 columns. Nothing is timed on the CPU.
rows = []
if device == "cuda":
    for n_cols in [256, 1024, 4096, 16384]:
        xb = torch.randn(4096, n_cols, device=device)
        bytes_moved = 2 * xb.numel() * xb.element_size()  # read x once, write the result once
        reference = softmax_torch(xb)
        row = {"n_rows": 4096, "n_cols": n_cols}
        for name, fn in versions.items():
            row[f"{name}_max_abs_error"] = (fn(xb) - reference).abs().max().item()  # also compiles
            row[f"{name}_s"] = seconds(fn, xb)
            row[f"{name}_bytes_per_s"] = bytes_moved / row[f"{name}_s"]
        row["copy_s"] = seconds(torch.clone, xb)
        row["copy_bytes_per_s"] = bytes_moved / row["copy_s"]
        rows.append(row)
        del xb, reference

print(f"device: {device}   shape: {tuple(x.shape)}")
for name in ("naive", "compiled", "triton"):
    print(f"max |{name} - torch.softmax|: {errors[name]:.3g}")
if rows:
    print(f"{'cols':>6} {'naive':>8} {'torch':>8} {'compiled':>8} {'triton':>8} {'copy':>8}   (GB/s)")
    for row in rows:
        cells = " ".join(f"{row[f'{k}_bytes_per_s'] / 1e9:8.1f}" for k in [*versions, "copy"])
        print(f"{row['n_cols']:>6} {cells}")
else:
    print("not timed: on the CPU the Triton kernel is interpreted, so its time says nothing")

results = {
    "device": device,
    "interpreted": os.environ.get("TRITON_INTERPRET") == "1",
    "timed": device == "cuda",
    "shape": list(x.shape),
    "block_size": triton.next_power_of_2(x.shape[1]),
    "max_abs_error": errors["triton"],
    "max_abs_error_compiled": errors["compiled"],
    "max_abs_error_naive": errors["naive"],
    "rows": rows,
}
