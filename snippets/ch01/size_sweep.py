# Eager versus compiled (a + b).relu() over a range of tensor lengths, with a plain
# copy measured the same way at each length as the yardstick.
import os
import statistics
import time

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
# The CPU rehearsal stops at 1 million elements. On the CPU, larger freed arrays go back
# to the operating system (on a GPU, PyTorch's caching allocator keeps them for reuse),
# so each call would also time fresh memory being mapped in.
sizes = [10**k for k in range(2, 9 if device == "cuda" else 7)]
repeats = 20
if device == "cpu":
    # One thread: with several, each parallel loop waits for its slowest thread, and on a
    # busy machine the timings would measure the operating system's scheduler.
    torch.set_num_threads(1)
bytes_per_element = 4  # float32


def add_relu(a, b):
    return (a + b).relu()


# dynamic=True compiles one kernel that serves every length instead of recompiling
# for each new one. That kernel is tuned for the first length it sees, so its first
# call (below) uses the largest length: the one where the kernel's speed matters.
compiled = torch.compile(add_relu, dynamic=True)


def median_seconds(fn, *args):
    fn(*args)  # warm-up
    times = []
    for _ in range(repeats):
        # The GPU runs queued kernels asynchronously: wait for earlier work before
        # starting the clock, and for this call's kernels before stopping it.
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn(*args)
        if device == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


a = torch.randn(sizes[-1], device=device)
b = torch.randn(sizes[-1], device=device)
compiled(a, b)  # compile, and tune, at the largest length

rows = []
# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
print(f"{'elements':>12} {'eager us':>12} {'compiled us':>12} {'copy us':>10} {'speedup':>8}")
for n in sizes:
    a = torch.randn(n, device=device)
    b = torch.randn(n, device=device)
    eager = median_seconds(add_relu, a, b)
    fused = median_seconds(compiled, a, b)
    # A plain copy, which like add_relu writes its result to a new tensor: reading one
    # array and writing one is the least any such operation can move.
    copy = median_seconds(torch.clone, a)
    rows.append({"elements": n, "eager_s": eager, "compiled_s": fused, "copy_s": copy})
    print(f"{n:>12,} {eager * 1e6:>12.1f} {fused * 1e6:>12.1f} {copy * 1e6:>10.1f} {eager / fused:>7.2f}x")
    del a, b

# Bandwidth at the largest length: bytes each version must move, per second.
# The copy reads 1 array and writes 1; compiled reads a and b and writes c (3 arrays).
last = rows[-1]
copy_bandwidth = 2 * last["elements"] * bytes_per_element / last["copy_s"]
compiled_bandwidth = 3 * last["elements"] * bytes_per_element / last["compiled_s"]
print(f"copy bandwidth at {last['elements']:,} elements: {copy_bandwidth / 1e9:.1f} GB/s")
print(f"compiled add_relu at {last['elements']:,} elements: {compiled_bandwidth / 1e9:.1f} GB/s")

results = {
    "device": device,
    "bytes_per_element": bytes_per_element,
    "copy_bandwidth_bytes_per_s": copy_bandwidth,
    "compiled_bandwidth_bytes_per_s": compiled_bandwidth,
    "rows": rows,
}
