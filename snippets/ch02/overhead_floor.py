# Overhead: how long one call of a + b takes, for a tiny add and for a large one, and,
# on a GPU, how much of that call is the kernel itself.
import os
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


def kernel_seconds(prof):
    """Time per call that the GPU spent running the add's kernel, as the profiler recorded it.
    None on a CPU: there the add runs inside the call, and the profiler's time for it
    includes the profiler's own bookkeeping, which at 100 elements is longer than the work."""
    if device != "cuda":
        return None
    (event,) = [e for e in prof.key_averages() if e.key == "aten::add"]
    return event.device_time_total / event.count / 1e6


rows = []
# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
# For each size: first the calls timed one at a time from Python, without the profiler (a
# profiler adds its own work to every call, and would be timed too), each from the moment
# it is issued until its result is ready; then the same calls under the profiler, for the
# time the kernel itself took. One profiling session per size, in this order: session 0
# is 100 elements, session 1 the large add.
for n in sizes:
    a = torch.randn(n, device=device)
    b = torch.randn(n, device=device)
    a + b  # warm-up
    walls = []
    for _ in range(calls):
        sync()
        start = time.perf_counter()
        a + b
        sync()
        walls.append(time.perf_counter() - start)
    with profile(activities=activities) as prof:
        for _ in range(calls):
            a + b
        sync()
    kernel_s = kernel_seconds(prof)
    wall_s = statistics.median(walls)
    rows.append({"elements": n, "calls": calls, "wall_s": wall_s, "wall_per_element_s": wall_s / n,
                 "kernel_s": kernel_s, "kernel_share": kernel_s / wall_s if kernel_s else None})
    line = f"{n:>11,} elements: one call {wall_s * 1e6:10.1f} us ({wall_s / n * 1e9:8.3f} ns per element)"
    if kernel_s:
        line += f", of which kernel {kernel_s * 1e6:.1f} us ({kernel_s / wall_s:.0%})"
    print(line)
    del a, b

results = {"device": device, "rows": rows}
