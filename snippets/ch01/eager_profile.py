# Step 1: profile (a + b).relu() in eager mode.
import os

import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)


def add_relu(a, b):
    return (a + b).relu()


a = torch.randn(1_000_000, device=device)
b = torch.randn(1_000_000, device=device)
add_relu(a, b)  # warm-up, so the profile shows the steady state

with profile(activities=activities) as prof:
    add_relu(a, b)
    if device == "cuda":
        torch.cuda.synchronize()

# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
sort_by = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
print(prof.key_averages().table(sort_by=sort_by, row_limit=10))
