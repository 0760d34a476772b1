# Fusion seen as bytes: x.cos() applied k times, eager against torch.compile.
import os

import torch
import torch.utils.benchmark as benchmark
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)
else:
    # One thread: on a small shared machine a second thread that must wait for a busy
    # core turns microseconds into milliseconds, and the timings would measure the wait.
    torch.set_num_threads(1)
    # Let the profiler see inductor's compiled C++ kernels (cpp_fused_*) on the CPU.
    torch._inductor.config.cpp.enable_kernel_profile = True
    # Compile in this process: every graph here is one kernel, so a pool of compiler
    # processes cannot speed it up, and on a small machine starting one slows it down.
    torch._inductor.config.compile_threads = 1

# k = 1, 2, 4, 8: each k is its own compiled function, and on the CPU each costs a
# C++ compilation of a few seconds, so the chain doubles instead of counting up.
ks = [1, 2, 4, 8]
# 2^26 float32 elements (256 MiB per array) on a GPU, far larger than its L2 cache;
# 2^20 in the CPU rehearsal, to keep its run short.
elements = 2**26 if device == "cuda" else 2**20


def seconds_per_call(fn):
    """Median seconds per call. CUDA: triton's do_bench (CUDA events around each call,
    the L2 cache flushed in between). CPU: torch.utils.benchmark."""
    if device == "cuda":
        from triton.testing import do_bench

        return do_bench(fn, return_mode="median") / 1e3
    timer = benchmark.Timer("fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    return timer.blocked_autorange(min_run_time=0.2).median


def cos_chain(k):
    def chain(x):
        for _ in range(k):
            x = x.cos()
        return x

    return chain


x = torch.randn(elements, device=device)
eager = {k: cos_chain(k) for k in ks}
compiled = {k: torch.compile(cos_chain(k)) for k in ks}
for k in ks:  # warm-up: the first compiled call is where compilation happens
    eager[k](x)
    compiled[k](x)

# One profiling session per (mode, k), always in this order:
# sessions 0-3 are eager k = 1, 2, 4, 8; sessions 4-7 are compiled k = 1, 2, 4, 8.
sessions = []
for mode, functions in (("eager", eager), ("compiled", compiled)):
    for k in ks:
        with profile(activities=activities):
            functions[k](x)
            if device == "cuda":
                torch.cuda.synchronize()
        sessions.append({"mode": mode, "k": k})

rows = []
# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
print(f"{'k':>3} {'eager ms':>10} {'compiled ms':>12} {'eager/compiled':>15}")
for k in ks:
    eager_s = seconds_per_call(lambda: eager[k](x))
    compiled_s = seconds_per_call(lambda: compiled[k](x))
    rows.append({
        "k": k,
        "eager_s": eager_s,
        "compiled_s": compiled_s,
        # eager: every cos reads one array and writes one; compiled: read x, write the result
        "eager_moved_bytes": 2 * k * x.numel() * x.element_size(),
        "compiled_moved_bytes": 2 * x.numel() * x.element_size(),
    })
    print(f"{k:>3} {eager_s * 1e3:>10.3f} {compiled_s * 1e3:>12.3f} {eager_s / compiled_s:>14.2f}x")

# The same bytes with no arithmetic: a copy that, like one eager cos, reads x and writes
# a new array. Eager k = 1 against it says how much of one cos is its bytes.
copy_s = seconds_per_call(lambda: torch.clone(x))
print(f"copy of the same array: {copy_s * 1e3:.3f} ms")

results = {
    "device": device,
    "elements": elements,
    "bytes_per_element": x.element_size(),
    "ks": ks,
    "sessions": sessions,
    "rows": rows,
    "copy_s": copy_s,
}
