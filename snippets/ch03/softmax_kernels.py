# A softmax written by hand: how many kernels it runs eagerly, how many PyTorch's own
# softmax runs, and how many the hand-written one runs after torch.compile.
import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)
# On the CPU, inductor's generated C++ loops show up in the profiler only with this on.
torch._inductor.config.cpp.enable_kernel_profile = True


def softmax(x):
    m = x.amax(dim=-1, keepdim=True)  # the row maximum, so that exp cannot overflow
    e = (x - m).exp()
    return e / e.sum(dim=-1, keepdim=True)


def library_softmax(x):
    return torch.softmax(x, dim=-1)


torch.manual_seed(0)  # the same input on every run: the difference printed below repeats
x = torch.randn(1024, 512, device=device)  # 1024 rows of 512 values
compiled = torch.compile(softmax)
# Warm-up (the compiled version compiles here), and a check that all three agree.
difference = max((fn(x) - library_softmax(x)).abs().max().item() for fn in (softmax, compiled))
print(f"largest difference from torch.softmax: {difference:.1e}")

sort_by = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
for label, fn in (("eager", softmax), ("torch.softmax", library_softmax), ("compiled", compiled)):
    with profile(activities=activities) as prof:
        fn(x)
        if device == "cuda":
            torch.cuda.synchronize()
    print(f"--- {label}")
    print(prof.key_averages().table(sort_by=sort_by, row_limit=8))

results = {"device": device, "rows": x.shape[0], "row_length": x.shape[1], "largest_difference": difference}
