# Compute against memory: FLOP/s of n x n matmuls, of an add that moves the same
# bytes as the largest matmul, and the bandwidth of a copy of the same arrays.
import os

import torch
import torch.utils.benchmark as benchmark
from torch.utils.flop_counter import FlopCounterMode

device = "cuda" if torch.cuda.is_available() else "cpu"
if device == "cpu":
    # One thread: on a small shared machine a second thread that must wait for a busy
    # core turns microseconds into milliseconds, and the timings would measure the wait.
    torch.set_num_threads(1)
# float32 matmuls in full float32 precision. "highest" is torch's default; it is set
# here so that a GPU cannot switch to TF32 tensor cores, a different and higher roof.
torch.set_float32_matmul_precision("highest")
sizes = [256, 512, 1024, 2048, 4096, 8192] if device == "cuda" else [128, 256, 512, 1024, 2048]


def seconds_per_call(fn):
    """Median seconds per call. CUDA: triton's do_bench (CUDA events around each call,
    the L2 cache flushed in between). CPU: torch.utils.benchmark."""
    if device == "cuda":
        from triton.testing import do_bench

        return do_bench(fn, return_mode="median") / 1e3
    timer = benchmark.Timer("fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    return timer.blocked_autorange(min_run_time=0.2).median


def counted_flops(fn):
    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


matmuls = []
# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
print(f"{'n':>6} {'FLOPs':>18} {'FLOP/byte':>10} {'ms':>9} {'GFLOP/s':>9}")
for n in sizes:
    a = torch.randn(n, n, device=device)
    b = torch.randn(n, n, device=device)
    flops = counted_flops(lambda: a @ b)  # 2 n^3, counted by FlopCounterMode
    moved = 3 * n * n * a.element_size()  # read a and b once, write the result once
    seconds = seconds_per_call(lambda: a @ b)
    matmuls.append({"n": n, "flops": flops, "moved_bytes": moved, "intensity": flops / moved,
                    "time_s": seconds, "flop_per_s": flops / seconds})
    print(f"{n:>6} {flops:>18,} {flops / moved:>10.1f} {seconds * 1e3:>9.3f} {flops / seconds / 1e9:>9.1f}")
    del a, b

# An add over n*n elements reads two arrays and writes one: the same bytes as the
# largest matmul. FlopCounterMode counts only matmul-like ops, so its FLOPs are
# counted by hand: one addition per element.
elements = sizes[-1] ** 2
x = torch.randn(elements, device=device)
y = torch.randn(elements, device=device)
out = torch.empty_like(x)
add_bytes = 3 * elements * x.element_size()
add_s = seconds_per_call(lambda: torch.add(x, y, out=out))
copy_bytes = 2 * elements * x.element_size()  # the memory roof: a copy of the same arrays
copy_s = seconds_per_call(lambda: out.copy_(x))

add = {"elements": elements, "flops": elements, "moved_bytes": add_bytes, "intensity": elements / add_bytes,
       "time_s": add_s, "flop_per_s": elements / add_s, "bytes_per_s": add_bytes / add_s}
copy_bandwidth = copy_bytes / copy_s
peak = max(m["flop_per_s"] for m in matmuls)
print(f"add of {elements:,} elements: {add_s * 1e3:.3f} ms, {add['flop_per_s'] / 1e9:.2f} GFLOP/s,"
      f" {add['bytes_per_s'] / 1e9:.1f} GB/s")
print(f"copy of the same arrays: {copy_bandwidth / 1e9:.1f} GB/s")
print(f"largest matmul / add, FLOP/s: {matmuls[-1]['flop_per_s'] / add['flop_per_s']:.0f}x")
print(f"ridge point: {peak / copy_bandwidth:.1f} FLOP/byte")
# How many parts of the chip can work at once: a GPU's streaming multiprocessors (SMs).
multiprocessors = torch.cuda.get_device_properties(0).multi_processor_count if device == "cuda" else None
if multiprocessors:
    print(f"streaming multiprocessors: {multiprocessors}")

results = {
    "device": device,
    "dtype": "float32",
    "matmul_precision": torch.get_float32_matmul_precision(),
    "matmuls": matmuls,
    "add": add,
    "copy_bytes_per_s": copy_bandwidth,
    "peak_flop_per_s": peak,
    "ridge_intensity": peak / copy_bandwidth,
    "multiprocessors": multiprocessors,
}
