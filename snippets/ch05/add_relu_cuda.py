# add+relu as a hand-written CUDA C++ kernel, built with load_inline and profiled beside eager
# PyTorch's two kernels and inductor's one fused kernel.
import torch
from torch.profiler import ProfilerActivity, profile

from _add_relu_cuda import build, why_not_built

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
if device == "cpu":
    # Without this, inductor's C++ loop (cpp_fused_add_relu_0) does not appear in the CPU profile.
    import torch._inductor.config

    torch._inductor.config.cpp.enable_kernel_profile = True


def add_relu_eager(a, b):
    return (a + b).relu()


add_relu_compiled = torch.compile(add_relu_eager)

n = 1_000_003  # not a multiple of 4: the float4 kernel has a tail of 3 elements
a = torch.randn(n, device=device)
b = torch.randn(n, device=device)
expected = add_relu_eager(a, b)
add_relu_compiled(a, b)  # compile before profiling

with profile(activities=activities) as eager_prof:  # session 0: eager
    add_relu_eager(a, b)
with profile(activities=activities) as compiled_prof:  # session 1: inductor's fused kernel
    add_relu_compiled(a, b)

reason = why_not_built(torch)
errors = {}
if reason:
    print(reason)
else:
    ext = build()  # nvcc compiles the kernels and launchers; a few tens of seconds the first time
    kernels = {"naive": ext.add_relu, "vec4": ext.add_relu_vec4, "grid_stride": ext.add_relu_grid_stride}
    for fn in kernels.values():
        fn(a, b)  # warm up
    torch.cuda.synchronize()
    with profile(activities=activities) as cuda_prof:  # session 2: the three CUDA C++ kernels, once each
        outputs = {name: fn(a, b) for name, fn in kernels.items()}
        torch.cuda.synchronize()
    errors = {name: (out - expected).abs().max().item() for name, out in outputs.items()}
    # A view that starts one float into its tensor is not 16-byte aligned: the float4 launcher
    # falls back to the one-float-per-thread kernel, and the result is still right.
    errors["vec4_misaligned"] = (ext.add_relu_vec4(a[1:], b[1:]) - expected[1:]).abs().max().item()

print(f"device: {device}, {n:,} elements")
print(eager_prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=6))
print(compiled_prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=6))
if errors:
    print(cuda_prof.key_averages().table(sort_by="cuda_time_total", row_limit=6))
    for name, error in errors.items():
        print(f"max |{name} - eager|: {error}")

results = {
    "device": device,
    "elements": n,
    "ran_cuda_kernels": not reason,
    "not_run_reason": reason,
    "threads_per_block": 256,
    "blocks_naive": -(-n // 256),  # one thread per element
    "blocks_vec4": -(-max(n // 4, n % 4) // 256),  # one thread per four elements
    "vec4_tail": n % 4,
    "max_abs_error": errors or None,
}
