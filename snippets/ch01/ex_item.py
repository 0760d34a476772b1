# Exercise: x.sum().item() brings one number back to Python. What does the GPU do?
import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)

x = torch.randn(1_000_000, device=device)
x.sum().item()  # warm-up

with profile(activities=activities) as prof:
    value = x.sum().item()  # .item() waits for the sum, then copies it to the CPU

print(f"value = {value:.3f}")
sort_by = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
print(prof.key_averages().table(sort_by=sort_by, row_limit=10))

# Copies from GPU memory to the CPU's memory are GPU work, but not kernels: count them.
copies = [e.name for e in prof.events() if e.name.startswith("Memcpy DtoH")]
results = {"device_to_host_copies": len(copies)}
