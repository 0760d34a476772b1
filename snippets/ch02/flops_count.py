# Counting FLOPs with torch.utils.flop_counter.FlopCounterMode: a matmul and an add.
import torch
from torch.utils.flop_counter import FlopCounterMode

device = "cuda" if torch.cuda.is_available() else "cpu"
n = 1024  # the same on every device: a FLOP count does not depend on the hardware

a = torch.randn(n, n, device=device)
b = torch.randn(n, n, device=device)


def count(fn):
    """Total FLOPs FlopCounterMode records for one call of fn, and its per-op table."""
    with FlopCounterMode(display=False) as counter:
        fn()
    per_op = {str(op): flops for op, flops in counter.get_flop_counts().get("Global", {}).items()}
    return counter.get_total_flops(), per_op


bytes_moved = 3 * n * n * a.element_size()  # both: read two n x n arrays, write one
mm_flops, mm_ops = count(lambda: a @ b)
add_flops, add_ops = count(lambda: a + b)

print(f"a @ b  ({n} x {n} matmul): {mm_flops:,} FLOPs {mm_ops}")
print(f"  2 * n**3 = {2 * n**3:,}")
print(f"a + b  ({n * n:,} elements):   {add_flops:,} FLOPs {add_ops}")
print(f"  by hand: one addition per element = {n * n:,}")
print(f"bytes moved by each: {bytes_moved:,}")
print(f"arithmetic intensity, matmul: {mm_flops / bytes_moved:.1f} FLOP/byte")
print(f"arithmetic intensity, add:    {n * n / bytes_moved:.4f} FLOP/byte")

results = {
    "n": n,
    "dtype": "float32",
    "bytes_per_element": a.element_size(),
    "mm": {
        "counted_flops": mm_flops,
        "formula_flops": 2 * n**3,
        "ops": mm_ops,
        "moved_bytes": bytes_moved,
        "intensity": mm_flops / bytes_moved,
    },
    "add": {
        "counted_flops": add_flops,
        "hand_flops": n * n,
        "ops": add_ops,
        "moved_bytes": bytes_moved,
        "intensity": n * n / bytes_moved,
    },
}
