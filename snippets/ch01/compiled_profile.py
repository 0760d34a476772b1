# Step 3: the same function wrapped in torch.compile.
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


def add_relu(a, b):
    return (a + b).relu()


compiled = torch.compile(add_relu)

a = torch.randn(1_000_000, device=device)
b = torch.randn(1_000_000, device=device)
compiled(a, b)  # warm-up: this first call is where compilation happens
if device == "cuda":
    torch.cuda.synchronize()

with profile(activities=activities) as prof:
    compiled(a, b)
    if device == "cuda":
        torch.cuda.synchronize()

# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
sort_by = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
print(prof.key_averages().table(sort_by=sort_by, row_limit=10))
