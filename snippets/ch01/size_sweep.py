# Eager versus compiled (a + b).relu() over a range of tensor lengths.
import statistics
import time

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
# The CPU rehearsal stops at 10 million elements to keep its run short.
sizes = [10**k for k in range(2, 9 if device == "cuda" else 8)]
repeats = 20


def add_relu(a, b):
    return (a + b).relu()


# dynamic=True compiles one kernel that serves every length; without it each
# new length would trigger a recompile.
compiled = torch.compile(add_relu, dynamic=True)


def median_seconds(fn, *args):
    fn(*args)  # warm-up (and, for the compiled version, compilation)
    times = []
    for _ in range(repeats):
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn(*args)
        if device == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def copy_bandwidth(n):
    """Bytes per second of a plain device-to-device copy: the memory roof."""
    src = torch.empty(n, device=device)
    dst = torch.empty_like(src)
    seconds = median_seconds(dst.copy_, src)
    return 2 * src.numel() * src.element_size() / seconds


rows = []
print(f"{'elements':>12} {'eager us':>12} {'compiled us':>12} {'speedup':>8}")
for n in sizes:
    a = torch.randn(n, device=device)
    b = torch.randn(n, device=device)
    eager = median_seconds(add_relu, a, b)
    fused = median_seconds(compiled, a, b)
    rows.append({"elements": n, "eager_s": eager, "compiled_s": fused})
    print(f"{n:>12,} {eager * 1e6:>12.1f} {fused * 1e6:>12.1f} {eager / fused:>7.2f}x")
    del a, b

roof = copy_bandwidth(sizes[-1])
print(f"device-to-device copy bandwidth: {roof / 1e9:.1f} GB/s")

results = {
    "device": device,
    "bytes_per_element": 4,
    "copy_bandwidth_bytes_per_s": roof,
    "rows": rows,
}
