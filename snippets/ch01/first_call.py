# Why the first call of a compiled function is slow: it is where compilation happens.
import os
import time

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
# torch.compile keeps compiled code in an on-disk cache, so a second run of this
# script would mostly load it. Turn the cache off to see what compiling costs.
torch._inductor.config.force_disable_caches = True


def add_relu(a, b):
    return (a + b).relu()


def timed(fn, *args):
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    fn(*args)
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


a = torch.randn(1_000_000, device=device)
b = torch.randn(1_000_000, device=device)
compiled = torch.compile(add_relu)

calls = [timed(compiled, a, b) for _ in range(4)]
# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
for i, seconds in enumerate(calls, start=1):
    print(f"call {i}: {seconds * 1e3:10.3f} ms")
print(f"first call / later calls: {calls[0] / min(calls[1:]):.0f}x")

results = {"first_call_s": calls[0], "later_call_s": min(calls[1:])}
