# Exercise: x.sum() reads a million numbers and writes one. How many kernels,
# eager and compiled?
import os

import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)
if device == "cpu":
    # On the CPU, inductor's cpp_fused_* kernels show up in the profiler only with this.
    torch._inductor.config.cpp.enable_kernel_profile = True


def total(x):
    return x.sum()


compiled = torch.compile(total)

x = torch.randn(1_000_000, device=device)
total(x)  # warm-up
compiled(x)  # warm-up: this first call is where compilation happens

with profile(activities=activities) as eager_prof:  # session 0: eager
    total(x)
with profile(activities=activities) as compiled_prof:  # session 1: compiled
    compiled(x)

# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
sort_by = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
print("eager:")
print(eager_prof.key_averages().table(sort_by=sort_by, row_limit=10))
print("compiled:")
print(compiled_prof.key_averages().table(sort_by=sort_by, row_limit=10))

# A memset fills GPU memory with a value; the profiler lists it apart from the kernels.
memsets = [e.name for e in eager_prof.events() if e.name.startswith("Memset")]
print(f"eager: memsets beside the kernel: {len(memsets)}")
results = {"eager_memsets": len(memsets)}
