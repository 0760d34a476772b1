# A Python `if` on a tensor's value splits a compiled function in two (a graph break);
# torch.where keeps the same choice inside one graph.
import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU]
if device == "cuda":
    activities.append(ProfilerActivity.CUDA)
# On the CPU, inductor's generated C++ loops show up in the profiler only with this on.
torch._inductor.config.cpp.enable_kernel_profile = True


def clip_relu(x):
    s = x.abs().max()
    if s > 1:  # Python needs the value of the tensor `s > 1` here
        x = x / s
    return x.relu()


def clip_relu_fixed(x):
    s = x.abs().max()
    x = torch.where(s > 1, x / s, x)  # the choice is made inside the graph
    return x.relu()


def compiled_regions(prof):
    """Names of the compiled regions the profiler saw, in order (CPU-side ranges only)."""
    return [
        e.name
        for e in sorted(prof.events(), key=lambda e: e.time_range.start)
        if e.device_type == torch.autograd.DeviceType.CPU and e.name.startswith("Torch-Compiled Region")
    ]


x = torch.randn(100_000, device=device)
results = {"device": device}
for label, fn in (("broken", clip_relu), ("fixed", clip_relu_fixed)):
    # explain() traces the function without generating code and reports every graph break.
    explanation = torch._dynamo.explain(fn)(x)
    compiled = torch.compile(fn)
    compiled(x)  # warm-up: compilation happens here
    with profile(activities=activities) as prof:
        compiled(x)
        if device == "cuda":
            torch.cuda.synchronize()
    regions = compiled_regions(prof)
    reasons = [r.reason for r in explanation.break_reasons]
    # The source line of each break, without its comment.
    where = [r.user_stack[-1].line.split("#")[0].strip() for r in explanation.break_reasons]
    print(f"--- {fn.__name__}")
    print(f"graphs: {explanation.graph_count}, graph breaks: {explanation.graph_break_count}")
    for reason, line in zip(reasons, where):
        print(f"break at `{line}`: {reason}")
    print(f"compiled regions in the profile: {len(regions)}: {', '.join(regions)}")
    results[label] = {
        "function": fn.__name__,
        "graph_count": explanation.graph_count,
        "graph_break_count": explanation.graph_break_count,
        "break_reasons": reasons,
        "break_lines": where,
        "compiled_regions": len(regions),
        "region_names": regions,
    }
