# The copy roof: bytes per second of a plain device-to-device copy, from tiny to huge.
import os
from pathlib import Path

import torch
import torch.utils.benchmark as benchmark

device = "cuda" if torch.cuda.is_available() else "cpu"
if device == "cpu":
    # One thread: on a small shared machine a second thread that must wait for a busy
    # core turns microseconds into milliseconds, and the timings would measure the wait.
    torch.set_num_threads(1)
# 2^10 ... 2^28 float32 elements on a GPU (the largest arrays are 1 GiB each);
# the CPU rehearsal stops at 2^24 (64 MiB) to keep its run short.
sizes = [2**p for p in range(10, 29 if device == "cuda" else 25)]


def loop_seconds(fn):
    """Median seconds per call when Python calls fn back to back (torch.utils.benchmark).

    The timer synchronises the GPU at the start and end of each block of calls, so
    this is what a Python loop gets: never faster than Python can issue the calls.
    num_threads: the timer's own default is 1; pass on whatever torch uses here.
    """
    timer = benchmark.Timer("fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    return timer.blocked_autorange(min_run_time=0.1).median


def gpu_seconds(fn):
    """Median seconds per call on the GPU alone: triton replays the calls from a CUDA
    graph (chapter 3), so Python's cost per call drops out, and nothing evicts the
    arrays from the cache between one copy and the next."""
    from triton.testing import do_bench_cudagraph

    return do_bench_cudagraph(fn, return_mode="median") / 1e3


def caches():
    """[(name, bytes)] of the caches a copy can run from, smallest first: the GPU's L2, or
    every data cache Linux lists for CPU 0 (L1d, L2, L3); [] where none can be read."""
    if device == "cuda":
        size = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", None)
        return [("L2", size)] if size else []
    found = []
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            kind = (index / "type").read_text().strip()
            level = int((index / "level").read_text())
            size = (index / "size").read_text().strip()  # e.g. "32768K"
        except (OSError, ValueError):
            continue
        unit = {"K": 2**10, "M": 2**20, "G": 2**30}.get(size[-1], 1)
        if kind != "Instruction":
            found.append((f"L{level}" + ("d" if kind == "Data" else ""), int(size.rstrip("KMG")) * unit))
    return sorted(found, key=lambda cache: cache[1])


def cache_edge(rows, listed):
    """(name, bytes) for the figure's dashed line. On a GPU: its L2 and the size it reports.
    On a CPU, where caches come in levels and Linux in a virtual machine may report the
    whole host's: where this run's copies fell out of cache, measured. That is the bytes
    moved by the last copy before the steepest fall in bandwidth after the best, named
    after the smallest level that is reported to hold them."""
    if device == "cuda" or not listed:
        return listed[-1] if listed else (None, None)
    best = max(range(len(rows)), key=lambda i: rows[i]["bytes_per_s"])
    falls = range(best, len(rows) - 1)
    if not falls:
        return (None, None)
    last = min(falls, key=lambda i: rows[i + 1]["bytes_per_s"] / rows[i]["bytes_per_s"])
    edge = rows[last]["moved_bytes"]
    held = [name for name, size in listed if size >= edge]
    return (held[0] if held else None, edge)


def spec_bandwidth():
    """The GPU's own peak: memory clock (kHz) x bus width (bits) x 2 transfers per clock."""
    props = torch.cuda.get_device_properties(0)
    clock_khz = getattr(props, "memory_clock_rate", 0)
    bus_bits = getattr(props, "memory_bus_width", 0)
    if not (clock_khz and bus_bits):
        # CUDA 13 dropped the memory clock from cudaDeviceProp, so torch may report none;
        # the driver still gives both (cuDeviceGetAttribute), and triton reads them.
        from triton.runtime import driver

        info = driver.active.utils.get_device_properties(torch.cuda.current_device())
        clock_khz, bus_bits = info["mem_clock_rate"], info["mem_bus_width"]
    return 2 * clock_khz * 1e3 * bus_bits / 8 if clock_khz and bus_bits else None


listed = caches()
rows = []
# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
print(f"{'elements':>12} {'bytes moved':>14} {'loop GB/s':>10} {'GPU GB/s':>10}")
for n in sizes:
    src = torch.randn(n, device=device)
    dst = torch.empty_like(src)
    moved = 2 * n * src.element_size()  # every element is read once and written once
    loop_s = loop_seconds(lambda: dst.copy_(src))
    gpu_s = gpu_seconds(lambda: dst.copy_(src)) if device == "cuda" else None
    rows.append({
        "elements": n,
        "moved_bytes": moved,
        "loop_s": loop_s,
        "loop_bytes_per_s": moved / loop_s,
        "gpu_s": gpu_s,
        "gpu_bytes_per_s": moved / gpu_s if gpu_s else None,
        # the curve to read: the GPU alone on a GPU; the CPU has only the loop
        "bytes_per_s": moved / (gpu_s or loop_s),
    })
    gpu_column = f"{moved / gpu_s / 1e9:>10.1f}" if gpu_s else f"{'-':>10}"
    print(f"{n:>12,} {moved:>14,} {moved / loop_s / 1e9:>10.1f} {gpu_column}")
    del src, dst

best = max(rows, key=lambda row: row["bytes_per_s"])
cache_name, cache_bytes = cache_edge(rows, listed)
in_cache = [row["bytes_per_s"] for row in rows if cache_bytes and row["moved_bytes"] <= cache_bytes]
results = {
    "device": device,
    "dtype": "float32",
    "bytes_per_element": 4,
    "caches": [{"name": name, "bytes": size} for name, size in listed],
    "cache_name": cache_name,
    "cache_bytes": cache_bytes,
    "spec_bytes_per_s": spec_bandwidth() if device == "cuda" else None,
    "rows": rows,
    "best_bytes_per_s": best["bytes_per_s"],
    "best_elements": best["elements"],
    "cache_best_bytes_per_s": max(in_cache, default=None),
    "largest_bytes_per_s": rows[-1]["bytes_per_s"],
}
print("caches: " + (", ".join(f"{name} {size:,} bytes" for name, size in listed) or "none reported"))
print(f"marked: {cache_name or 'none'} at {cache_bytes or 0:,} bytes moved; best {best['bytes_per_s'] / 1e9:.1f} GB/s at {best['elements']:,} elements;"
      f" largest {rows[-1]['bytes_per_s'] / 1e9:.1f} GB/s")
