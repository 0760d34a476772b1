# Exercise: x.sum().item() brings one number back to Python. What does the GPU do?
import os

import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)

torch.manual_seed(0)  # the same numbers, and the same printed value, on every run
x = torch.randn(1_000_000, device=device)
x.sum().item()  # warm-up

with profile(activities=activities) as prof:
    value = x.sum().item()  # .item() waits for the sum, then copies it to the CPU

# Copies from GPU memory to the CPU's memory are GPU work, but not kernels: count them.
copies = [e.name for e in prof.events() if e.name.startswith("Memcpy DtoH")]
print(f"value = {value:.3f}")
print(f"device-to-host copies: {len(copies)}")
# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
sort_by = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
print(prof.key_averages().table(sort_by=sort_by, row_limit=10))

results = {"device_to_host_copies": len(copies)}
