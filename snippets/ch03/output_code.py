# The code torch.compile wrote for chapter 1's add_relu, and the one kernel it runs.
import re
import textwrap

import torch
from torch._inductor.utils import run_and_get_code
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)
# On the CPU, inductor's generated C++ loops show up in the profiler only with this on.
torch._inductor.config.cpp.enable_kernel_profile = True


def add_relu(a, b):
    return (a + b).relu()


a = torch.randn(1_000_000, device=device)
b = torch.randn(1_000_000, device=device)
compiled = torch.compile(add_relu)

# run_and_get_code runs the compiled function once (compiling it) and returns the Python
# module inductor wrote for it (the same module when it comes from inductor's on-disk cache).
_, (module,) = run_and_get_code(compiled, a, b)

# Each kernel is defined in the module as `name = async_compile.<kind>(..., '''source''')`:
# Triton source on a GPU, C++ source on a CPU.
definitions = re.findall(r"^(\w+) = async_compile\.\w+\(.*?'''\n?(.*?)'''", module, re.MULTILINE | re.DOTALL)
names = [name for name, _ in definitions]
source = definitions[0][1]
# The kernel function itself: from `@triton.jit` (GPU) or `extern "C"` (CPU) to the end.
kernel = source[re.search(r'^(@triton\.jit|extern "C")', source, re.MULTILINE).start():].strip()
loads = len(re.findall(r"\btl\.load\(|::loadu\(", kernel))
stores = len(re.findall(r"\.store\(", kernel))
# The wrapper's `call`: what runs on every call of the compiled function.
call = textwrap.dedent(re.search(r"^( *)def call\(.*?^\1    return .*?$", module, re.MULTILINE | re.DOTALL).group(0))

print(f"generated module: {len(module.splitlines())} lines")
print(f"kernels defined: {len(names)}: {', '.join(names)}")
print(f"in the kernel: {loads} loads, {stores} store")

with profile(activities=activities) as prof:
    compiled(a, b)
    if device == "cuda":
        torch.cuda.synchronize()

sort_by = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
print(prof.key_averages().table(sort_by=sort_by, row_limit=8))

results = {
    "device": device,
    "kernel_names": names,
    "kernel_count": len(names),
    "kernel": kernel,
    "call": call,
    "loads": loads,
    "stores": stores,
    "module": module,
}
