# Eager versus compiled (a + b).relu() over a range of tensor lengths, with a plain
# copy measured the same way at each length as the yardstick.
import os
import statistics
import time

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
# The CPU rehearsal stops at 100,000 elements. From a few hundred thousand up, the CPU
# allocator hands the freed arrays back to the operating system, so each eager call
# would also time fresh pages being mapped in (about 1,900 page faults a call at a
# million elements, none at 100,000). On a GPU, PyTorch's caching allocator keeps freed
# memory for reuse.
sizes = [10**k for k in range(2, 9 if device == "cuda" else 6)]
repeats = 20
if device == "cpu":
    # One thread: with several, each parallel loop waits for its slowest thread, and on a
    # busy machine the timings would measure the operating system's scheduler.
    torch.set_num_threads(1)
bytes_per_element = 4  # float32


def add_relu(a, b):
    return (a + b).relu()


# dynamic=False compiles a kernel for each length (its warm-up call below compiles it),
# with the length written into the kernel as a constant. A symbolic length
# (dynamic=True) would serve every length with one kernel, but the compiler could not
# know that it is a multiple of 16, and the kernel would load one float at a time
# instead of four (chapter 4's table shows both versions). Seven lengths stay within
# torch._dynamo.config.recompile_limit (8), past which it would fall back to eager.
compiled = torch.compile(add_relu, dynamic=False)


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
