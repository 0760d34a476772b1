# Achieved bandwidth of the three CUDA C++ kernels against inductor's kernel, eager PyTorch and a
# plain copy (chapter 2's roof), from sizes where launching costs more than the bytes to sizes
# where the bytes decide.
import torch

from _add_relu_cuda import build, why_not_built

device = "cuda" if torch.cuda.is_available() else "cpu"


def add_relu_eager(a, b):
    return (a + b).relu()


# dynamic=False: one kernel specialised for each length, the compiler's best case (as chapter 4).
add_relu_compiled = torch.compile(add_relu_eager, dynamic=False)


def copy(a, b):
    return a.clone()  # read one array, write one array: the copy roof


def seconds(fn, *args):
    """Median time of one call on the GPU (warm-up included, L2 flushed between calls)."""
    from triton.testing import do_bench

    return do_bench(lambda: fn(*args), return_mode="median") / 1e3


# 2^16 floats (256 KiB an array: launching dominates) to 2^28 (1 GiB an array: the bytes do).
sizes = [2**p for p in (16, 18, 20, 22, 24, 26, 28)]
# Bytes each version must move at least: add+relu reads a and b and writes c; copy reads and writes one.
arrays_moved = {"eager": 3, "compiled": 3, "naive": 3, "vec4": 3, "grid_stride": 3, "copy": 2}

reason = why_not_built(torch)
rows = []
if reason:
    print(reason)
    print("not timed: the kernels need a CUDA GPU")
else:
    ext = build()
    versions = {"eager": add_relu_eager, "compiled": add_relu_compiled, "naive": ext.add_relu,
                "vec4": ext.add_relu_vec4, "grid_stride": ext.add_relu_grid_stride, "copy": copy}
    for n in sizes:
        a = torch.randn(n, device=device)
        b = torch.randn(n, device=device)
        expected = add_relu_eager(a, b)
        row = {"elements": n}
        for name, fn in versions.items():
            if name != "copy":
                row[f"{name}_max_abs_error"] = (fn(a, b) - expected).abs().max().item()
            t = seconds(fn, a, b)
            row[f"{name}_s"] = t
            row[f"{name}_bytes_per_s"] = arrays_moved[name] * n * a.element_size() / t
        rows.append(row)
        del a, b, expected

    print(f"device: {torch.cuda.get_device_name()}")
    print(f"{'elements':>10} " + " ".join(f"{name:>11}" for name in versions) + "   (GB/s)")
    for row in rows:
        print(f"{row['elements']:>10} " + " ".join(f"{row[f'{name}_bytes_per_s'] / 1e9:11.1f}" for name in versions))
    print(f"{'':>10} " + " ".join(f"{name:>11}" for name in versions) + "   (µs)")
    for row in rows:
        print(f"{row['elements']:>10} " + " ".join(f"{row[f'{name}_s'] * 1e6:11.2f}" for name in versions))
    worst = max(v for row in rows for k, v in row.items() if k.endswith("_max_abs_error"))
    print(f"largest difference from eager, any version, any size: {worst}")

results = {
    "device": device,
    "timed": not reason,
    "not_run_reason": reason,
    "bytes_per_element": 4,
    "sizes": sizes,
    "rows": rows or None,
}
