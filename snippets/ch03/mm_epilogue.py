# A matrix multiply followed by a bias add and a relu: what torch.compile generates itself,
# and what it leaves to the matrix-multiply library.
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


def linear_relu(x, w, bias):
    return (x @ w + bias).relu()


x = torch.randn(256, 512, device=device)
w = torch.randn(512, 512, device=device)
bias = torch.randn(512, device=device)
compiled = torch.compile(linear_relu)

# Compiles and runs once (the warm-up), returning the module inductor wrote.
_, (module,) = run_and_get_code(compiled, x, w, bias)
linear_relu(x, w, bias)  # warm-up for the eager version too

# The wrapper's `call` runs on every call: library calls appear in it as extern_kernels.*,
# kernels inductor wrote itself are defined in the module with async_compile.
call = textwrap.dedent(re.search(r"^( *)def call\(.*?^\1    return .*?$", module, re.MULTILINE | re.DOTALL).group(0))
library_calls = re.findall(r"extern_kernels\.(\w+)\(", call)
generated = re.findall(r"^(\w+) = async_compile\.", module, re.MULTILINE)
print(f"library calls: {', '.join(library_calls)}")
print(f"generated kernels: {', '.join(generated)}")

sort_by = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
for label, fn in (("eager", linear_relu), ("compiled", compiled)):
    with profile(activities=activities) as prof:
        fn(x, w, bias)
        if device == "cuda":
            torch.cuda.synchronize()
    print(f"--- {label}")
    print(prof.key_averages().table(sort_by=sort_by, row_limit=8))

results = {"device": device, "call": call, "library_calls": library_calls, "generated_kernels": generated}
