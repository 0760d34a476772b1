# Guards and recompiles: one compiled function called with three sizes, in four settings,
# and what happens once a function has been recompiled too often.
import textwrap

import torch
from torch._dynamo.utils import counters, guard_failures
from torch._inductor.utils import run_and_get_code
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)
# On the CPU, inductor's generated C++ loops show up in the profiler only with this on.
torch._inductor.config.cpp.enable_kernel_profile = True

sizes = [1000, 2000, 3000]


def scale_relu(x):
    return (x * 2 + 1).relu()


def call_with_sizes(compiled, sizes, mark_dynamic=False):
    for n in sizes:
        x = torch.randn(n, device=device)
        if mark_dynamic:
            torch._dynamo.mark_dynamic(x, 0)  # promise Dynamo that dim 0 will vary
        compiled(x)


def compilations(compiled, mark_dynamic=False):
    """How many times Dynamo compiled `scale_relu` while it was called with `sizes`."""
    torch._dynamo.reset()  # forget what earlier settings compiled
    counters.clear()
    call_with_sizes(compiled, sizes, mark_dynamic)
    return counters["frames"]["ok"]


# The default setting, watched twice: Dynamo's counters, and the code inductor wrote each time.
counters.clear()
_, modules = run_and_get_code(call_with_sizes, torch.compile(scale_relu), sizes)
count = {"default": counters["frames"]["ok"]}
reasons = list(guard_failures[scale_relu.__code__])
# What the generated code assumes about the size of x, compilation by compilation.
size_checks = "\n".join(line.strip() for m in modules for line in m.splitlines() if "assert_size_stride(" in line)

count["dynamic_true"] = compilations(torch.compile(scale_relu, dynamic=True))
count["mark_dynamic"] = compilations(torch.compile(scale_relu), mark_dynamic=True)
count["dynamic_false"] = compilations(torch.compile(scale_relu, dynamic=False))

print(f"sizes: {sizes}")
for setting, n in count.items():
    print(f"{setting:>14}: {n} compilation(s)")
print("default: why the second compilation happened:")
for reason in reasons:
    print(f"  {reason}")
print("default: the size each compiled version checks:")
print(textwrap.indent(size_checks, "  "))

# Past the recompile limit Dynamo stops compiling the function and runs it eagerly.
limit = torch._dynamo.config.recompile_limit
torch._dynamo.reset()
counters.clear()
with torch._dynamo.config.patch(recompile_limit=2):  # 2 instead of the default, to keep this short
    static = torch.compile(scale_relu, dynamic=False)  # every new size needs its own compilation
    call_with_sizes(static, [1000, 2000, 3000, 4000])
    limited = counters["frames"]["ok"]
    for n in (1000, 4000):  # a size compiled before the limit, and one after it
        x = torch.randn(n, device=device)
        with profile(activities=activities) as prof:
            static(x)
            if device == "cuda":
                torch.cuda.synchronize()
        ran = [e.name for e in prof.events() if e.name.startswith("Torch-Compiled Region")]
        print(f"size {n}: {'compiled code' if ran else 'eager PyTorch'}")
print(f"recompile limit {limit} by default; with the limit at 2, four sizes: {limited} compilation(s)")

results = {
    "device": device,
    "sizes": sizes,
    "compilations": count,
    "recompile_reasons": reasons,
    "size_checks": size_checks,
    "default_recompile_limit": limit,
    "limited_compilations": limited,
}
