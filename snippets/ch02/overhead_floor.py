# Overhead: how much of one call's wall time is the kernel itself, for a tiny add
# and for a large one.
import statistics
import time

import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)
else:
    # One thread: on a small shared machine a second thread that must wait for a busy
    # core turns microseconds into milliseconds, and the timings would measure the wait.
    torch.set_num_threads(1)
# 100 elements, then 10^8 (10^7 in the CPU rehearsal, to keep its run short).
sizes = [100, 10**8 if device == "cuda" else 10**7]
calls = 20


def sync():
    if device == "cuda":
        torch.cuda.synchronize()


def kernel_seconds(prof, op="aten::add"):
    """Time per call of the kernel behind `op`, as the profiler recorded it: on a GPU
    the time its kernels ran on the device, on the CPU the time inside the op."""
    (event,) = [e for e in prof.key_averages() if e.key == op]
    total_us = event.device_time_total if device == "cuda" else event.cpu_time_total
    return total_us / event.count / 1e6


rows = []
# One profiling session per size, in this order: session 0 is 100 elements, session 1
# the large add. Inside it, each call is also timed from Python, from the moment it is
# issued until its result is ready, so both times come from the same calls.
for n in sizes:
    a = torch.randn(n, device=device)
    b = torch.randn(n, device=device)
    a + b  # warm-up
    walls = []
    with profile(activities=activities) as prof:
        for _ in range(calls):
            sync()
            start = time.perf_counter()
            a + b
            sync()
            walls.append(time.perf_counter() - start)
    kernel_s = kernel_seconds(prof)
    wall_s = statistics.mean(walls)
    rows.append({"elements": n, "calls": calls, "kernel_s": kernel_s, "wall_s": wall_s,
                 "kernel_share": kernel_s / wall_s})
    print(f"{n:>11,} elements: one call {wall_s * 1e6:10.1f} us, of which kernel {kernel_s * 1e6:10.1f} us"
          f" ({kernel_s / wall_s:.0%})")
    del a, b

results = {"device": device, "rows": rows}
