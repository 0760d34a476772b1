# Exercise: x.t() is a view; .contiguous() may copy. How many kernels in all?
import os

import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)

x = torch.randn(1024, 1024, device=device)
x.t().contiguous()  # warm-up

with profile(activities=activities) as prof:
    y = x.t()  # the same numbers, read with rows and columns swapped
    z = y.contiguous()  # lays them out row after row in new memory
    w = z.contiguous()  # z is laid out that way already

print("y is a view of x:", y.data_ptr() == x.data_ptr())
print("w is z:", w.data_ptr() == z.data_ptr())
# Times depend on the thread count and on how busy the machine is: print both.
print(f"device: {device}; CPU threads: {torch.get_num_threads()} of {os.cpu_count()};"
      f" load average: {os.getloadavg()[0]:.1f}")
sort_by = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
print(prof.key_averages().table(sort_by=sort_by, row_limit=10))
