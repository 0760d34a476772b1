# One line of PyTorch, one kernel: c = a + b on two length-8 tensors.
import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)

a = torch.arange(8, dtype=torch.float32, device=device)
b = torch.ones(8, device=device)
c = a + b  # warm-up: the first call in a process pays one-off set-up costs

with profile(activities=activities) as prof:
    c = a + b
    if device == "cuda":
        torch.cuda.synchronize()

print("device:", device)
print("c =", c.tolist())
