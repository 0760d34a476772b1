# A small model at a small batch is bound by kernel launches, not by the GPU's work:
# eager, torch.compile, and torch.compile(mode="reduce-overhead"), which replays a CUDA graph.
import statistics
import time

import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
layers = 8
shapes = {"small": (16, 256), "large": (2048, 2048)}  # (batch, width)
# CPU-side calls that start work on the GPU: one per kernel, or one per CUDA graph.
KERNEL_LAUNCHES = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx"}


def mlp(width):
    blocks = []
    for _ in range(layers):
        blocks += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*blocks).to(device)


def seconds_per_call(fn, x, calls=50, repeats=7):
    """Median over `repeats` of the time per call, `calls` calls back to back."""
    times = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn(x)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)


def launch_calls(fn, x):
    """One profiled call: how many kernel launches and CUDA-graph launches the CPU made."""
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn(x)
        torch.cuda.synchronize()
    names = [e.name for e in prof.events()]
    return {
        "kernel_launches": sum(name in KERNEL_LAUNCHES for name in names),
        "graph_launches": names.count("cudaGraphLaunch"),
    }


if device == "cpu":
    # Nothing to measure: a CPU has no CUDA graphs, and timing the CPU here would say
    # nothing about them.
    print('mode="reduce-overhead" replays CUDA graphs, which only a GPU has.')
    print("This run is on the CPU, so it measures nothing.")
    results = {"device": device, "measured": False}
else:
    rows = []
    launches = {}
    with torch.no_grad():  # inference: no autograd graph to record
        for size, (batch, width) in shapes.items():
            model = mlp(width)
            x = torch.randn(batch, width, device=device)
            row = {"size": size, "batch": batch, "width": width}
            variants = {
                "eager": lambda: model,
                "compiled": lambda: torch.compile(model),
                "cuda_graph": lambda: torch.compile(model, mode="reduce-overhead"),
            }
            for variant, make in variants.items():
                torch._dynamo.reset()  # each variant compiles on its own
                fn = make()
                for _ in range(3):  # warm-up: compile; for "reduce-overhead", record the CUDA graph
                    fn(x)
                row[f"{variant}_s"] = seconds_per_call(fn, x)
                if size == "small":
                    launches[variant] = launch_calls(fn, x)
            rows.append(row)
            print(
                f"{size:>5} (batch {batch}, width {width}): per call "
                f"eager {row['eager_s'] * 1e6:8.1f} us, compiled {row['compiled_s'] * 1e6:8.1f} us, "
                f"CUDA graph {row['cuda_graph_s'] * 1e6:8.1f} us"
            )
    for variant, counts in launches.items():
        print(f"small, {variant}: {counts['kernel_launches']} kernel launches, {counts['graph_launches']} graph launches")
    results = {"device": device, "measured": True, "layers": layers, "rows": rows, "launches": launches}
