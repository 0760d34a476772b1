# Chapter 1's (a + b).relu() measured as bandwidth: bytes moved / time, eager and
# compiled, beside a plain copy of the same arrays measured in the same run.
import os

import torch
import torch.utils.benchmark as benchmark

device = "cuda" if torch.cuda.is_available() else "cpu"
if device == "cpu":
    # One thread: on a small shared machine a second thread that must wait for a busy
    # core turns microseconds into milliseconds, and the timings would measure the wait.
    torch.set_num_threads(1)
    # Compile in this process: the graph here is one kernel, so a pool of compiler
    # processes cannot speed it up, and on a small machine starting one slows it down.
    torch._inductor.config.compile_threads = 1
# 2^26 float32 elements (256 MiB per array) on a GPU, far larger than its L2 cache;
# 2^22 (16 MiB per array) in the CPU rehearsal.
elements = 2**26 if device == "cuda" else 2**22


def seconds_per_call(fn):
    """Median seconds per call. CUDA: triton's do_bench (CUDA events around each call,
    the L2 cache flushed in between). CPU: torch.utils.benchmark."""
    if device == "cuda":
        from triton.testing import do_bench

        return do_bench(fn, return_mode="median") / 1e3
    timer = benchmark.Timer("fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    return timer.blocked_autorange(min_run_time=0.2).median


def add_relu(a, b):
    return (a + b).relu()


compiled = torch.compile(add_relu)

a = torch.randn(elements, device=device)
b = torch.randn(elements, device=device)
out = torch.empty_like(a)
add_relu(a, b)  # warm-up
compiled(a, b)  # warm-up: the first call is where compilation happens

array = elements * a.element_size()  # bytes in one array
versions = {
    # add reads a and b and writes tmp; relu reads tmp and writes c: 5 arrays
    "eager": (5 * array, lambda: add_relu(a, b)),
    # one fused kernel reads a and b and writes c: 3 arrays
    "compiled": (3 * array, lambda: compiled(a, b)),
    # the roof: read one array, write one
    "copy": (2 * array, lambda: out.copy_(a)),
}
rows = {}
# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
for name, (moved, fn) in versions.items():
    seconds = seconds_per_call(fn)
    rows[name] = {"moved_bytes": moved, "time_s": seconds, "bytes_per_s": moved / seconds}
    print(f"{name:>9}: {moved / array:.0f} arrays, {moved:>13,} bytes in {seconds * 1e3:8.3f} ms"
          f" = {moved / seconds / 1e9:7.1f} GB/s")

results = {
    "device": device,
    "elements": elements,
    "bytes_per_element": a.element_size(),
    "array_bytes": array,
    **rows,
}
