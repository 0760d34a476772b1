# What the GPU will execute: this chapter's kernels compiled for Hopper (sm_90: H100, H200).
# Nothing here runs on a GPU, and none is needed: Triton compiles for the target it is given,
# and its wheel ships NVIDIA's ptxas (PTX to machine code), cuobjdump and nvdisasm (to read it).
import linecache
import re
import subprocess
import tempfile
from pathlib import Path

import triton
import triton.language as tl
from triton import knobs
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

TARGET = GPUTarget("cuda", 90, 32)  # compute capability 9.0 (Hopper), 32 threads per warp

# Per-SM limits of compute capability 9.0, from the CUDA C++ Programming Guide's table
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#features-and-technical-specifications-technical-specifications-per-compute-capability
SM90 = {"registers": 65536, "threads": 2048, "blocks": 32, "shared_bytes": 228 * 1024, "registers_per_thread": 255}
REGISTER_UNIT = 256  # registers are given to each warp in units of 256 (CUDA occupancy calculator)
SHARED_RESERVED = 1024  # shared memory the system keeps per block (CUDA C++ Programming Guide)


# The chapter's two kernels, exactly as in add_relu_triton.py and fused_softmax.py.
@triton.jit
def add_relu_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)  # one read of a
    b = tl.load(b_ptr + offsets, mask=mask)  # one read of b
    out = tl.maximum(a + b, 0.0)  # the sum lives only in registers
    tl.store(out_ptr + offsets, out, mask=mask)  # one write


@triton.jit
def softmax_kernel(out_ptr, x_ptr, x_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)  # one program per row
    cols = tl.arange(0, BLOCK_SIZE)  # the whole row fits in one block
    mask = cols < n_cols
    # Lanes past the end of the row read -inf: they cannot win the max, and exp(-inf) = 0.
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)  # subtract the row maximum so exp cannot overflow
    numerator = tl.exp(shifted)
    denominator = tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, numerator / denominator, mask=mask)


# Chapter 2's cos chain as inductor fuses it: one load, K cosines in registers, one store.
@triton.jit
def cos_chain_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, K: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    for _ in tl.static_range(K):
        x = tl.cos(x)  # inductor writes x.cos() as this: libdevice's __nv_cosf
    tl.store(out_ptr + offsets, x, mask=mask)


def compile_for_sm90(kernel, signature, block_size, num_warps, divisible, constants=None):
    """The kernel as Triton would build it for an H100 at launch, without launching it.

    At launch Triton looks at each pointer and integer argument: a pointer whose address is a
    multiple of 16 bytes, or an integer that is a multiple of 16, is marked tt.divisibility=16,
    and the kernel is compiled (and cached) for that case. ``divisible`` names those arguments;
    ``constants``: the kernel's other compile-time constants (tl.constexpr), by name.
    """
    attrs = {(signature.index(name),): [["tt.divisibility", 16]] for name in divisible}
    types = {name: ("*fp32" if name.endswith("_ptr") else "i32") for name in signature}
    constexprs = {"BLOCK_SIZE": block_size, **(constants or {})}
    src = ASTSource(fn=kernel, signature={**types, **dict.fromkeys(constexprs, "constexpr")},
                    constexprs=constexprs, attrs=attrs)
    return triton.compile(src, target=TARGET, options={"num_warps": num_warps})


def tool(name, *args, cubin):
    """Run one of the NVIDIA tools Triton ships on a compiled kernel's cubin; its text output."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        done = subprocess.run([getattr(knobs.nvidia, name).path, *args, str(path)], capture_output=True, text=True, check=True)
    return done.stdout


def sass_lines(compiled):
    """The machine code, one (instruction, Python source line) per instruction, padding left out."""
    listing = tool("nvdisasm", "--print-line-info", "-c", cubin=compiled.asm["cubin"])
    found, source = [], ""
    for line in listing.splitlines():
        where = re.search(r'//## File "(.*)", line (\d+)', line)
        if where:  # nvdisasm names the Python line each following instruction came from
            source = linecache.getline(where.group(1), int(where.group(2))).split("  #")[0].strip()
        code = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(.*?)\s*;", line)
        if code and code.group(1) != "NOP" and not code.group(1).startswith("BRA"):
            found.append((" ".join(code.group(1).split()), source))
    return found


def instructions_without_slow_path(compiled):
    """Instructions in the machine code (padding and branches left out), and how many of them are
    outside libdevice's slow path for huge arguments.

    A cosine first checks |x| >= 105615; only then does it branch into a long, exact argument
    reduction (a loop). The chain's inputs never reach it, so its instructions are counted apart:
    they are everything from that branch to the label it jumps to.
    """
    listing = tool("nvdisasm", "-c", cubin=compiled.asm["cubin"])
    total = fast = 0
    predicate, skip_to = None, None
    for line in listing.splitlines():
        label = re.match(r"\s*(\.L_x_\d+):", line)
        if label and label.group(1) == skip_to:
            skip_to = None
        code = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(.*?)\s*;", line)
        if not code or code.group(1) == "NOP":
            continue
        op = code.group(1)
        huge = re.match(r"FSETP\.GE\.AND (P\d), PT, R\d+, 105615,", op)
        if huge:
            predicate = huge.group(1)
        branch = re.match(rf"@!{predicate} BRA `\((\.L_x_\d+)\)", op) if predicate and not skip_to else None
        if branch:  # not huge: jump past the slow path
            skip_to, predicate = branch.group(1), None
        if "BRA" in op.split()[:2]:
            continue
        total += 1
        fast += skip_to is None
    return total, fast


def occupancy(registers, shared_bytes, num_warps):
    """Blocks of this kernel one SM holds at once, which limits decide, and the share of its threads used."""
    threads = 32 * num_warps
    per_warp = -(-registers * 32 // REGISTER_UNIT) * REGISTER_UNIT  # rounded up to the allocation unit
    fits = {
        "blocks": SM90["blocks"],
        "threads": SM90["threads"] // threads,
        "registers": SM90["registers"] // (per_warp * num_warps),
        "shared memory": SM90["shared_bytes"] // (shared_bytes + SHARED_RESERVED),
    }
    blocks = min(fits.values())
    # Every limit that allows no more than that binds; a tie names them all ("threads = registers").
    limit = " = ".join(name for name, fit in fits.items() if fit == blocks)
    return blocks, limit, blocks * threads / SM90["threads"]


def facts(kernel, signature, block_size, num_warps, divisible):
    """Registers, spills, shared memory, memory instructions and occupancy of one compiled kernel."""
    compiled = compile_for_sm90(kernel, signature, block_size, num_warps, divisible)
    usage = tool("cuobjdump", "--dump-resource-usage", cubin=compiled.asm["cubin"])
    number = {key: int(value) for key, value in re.findall(r"\b(REG|STACK|SHARED|LOCAL):(\d+)", usage)}
    ops = [instruction.split()[1] if instruction.startswith("@") else instruction.split()[0]
           for instruction, _ in sass_lines(compiled)]
    # Triton's kernels take all their shared memory at launch (cuobjdump's SHARED shows only the
    # system's reserve, counted in occupancy below)
    shared = compiled.metadata.shared
    blocks, limit, share = occupancy(number["REG"], shared, num_warps)
    return compiled, {
        "block_size": block_size,
        "num_warps": num_warps,
        "divisible": DIVISIBLE[len(divisible) == len(signature), bool(divisible)],
        "values_per_thread": block_size // (32 * num_warps),
        "registers": number["REG"],
        # ptxas fits one block on an SM: at most 65,536 / threads registers each (and 255)
        "register_cap": min(SM90["registers_per_thread"], SM90["registers"] // (32 * num_warps) // 8 * 8),
        "stack_bytes": number["STACK"] + number["LOCAL"],  # local memory: where ptxas puts what does not fit
        "spill_stores": ops.count("STL"),  # stores to that local memory
        "shared_bytes": shared,
        "loads": sum(op.startswith("LDG") for op in ops),
        "loads_64": ops.count("LDG.E.64"),  # 8 bytes (two floats) per thread per instruction
        "loads_128": ops.count("LDG.E.128"),  # 16 bytes (four floats) per thread per instruction
        "stores": sum(op.startswith("STG") for op in ops),
        "stores_128": ops.count("STG.E.128"),
        "blocks_per_sm": blocks,
        "limited_by": limit,
        "occupancy_share": share,
    }


DIVISIBLE = {(True, True): "all", (False, True): "pointers", (False, False): "none"}  # (all, any)
ADD_RELU = ["a_ptr", "b_ptr", "out_ptr", "n_elements"]
SOFTMAX = ["out_ptr", "x_ptr", "x_row_stride", "out_row_stride", "n_cols"]


def aligned(lines):
    """Instructions in a column, each followed by its Python line."""
    width = max(len(instruction) for instruction, _ in lines)
    return "\n".join(f"{instruction:<{width}}  # {source}" for instruction, source in lines)


def main():
    """Compile both kernels, print what the compiler made of them, and return it."""
    # add+relu: every block size and warp count with 16-divisible arguments (what a launch on fresh
    # float32 tensors of 100 million elements gets), then BLOCK_SIZE 1024 with fewer of them.
    add_relu = []
    for block_size in (256, 1024, 4096):
        for num_warps in (4, 8):
            compiled, row = facts(add_relu_kernel, ADD_RELU, block_size, num_warps, ADD_RELU)
            add_relu.append(row)
            if (block_size, num_warps) == (1024, 4):  # the chapter's kernel, for the listing below
                chapter_kernel = compiled
    for divisible in (ADD_RELU[:3], []):  # pointers only (n not a multiple of 16), then nothing
        add_relu.append(facts(add_relu_kernel, ADD_RELU, 1024, 4, divisible)[1])

    # softmax: one program per row, BLOCK_SIZE = the row length, warps as fused_softmax.py chooses them.
    softmax = []
    for n_cols in (1024, 2048, 4096, 8192, 16384, 32768, 65536):
        num_warps = 4 if n_cols < 2048 else 8 if n_cols < 4096 else 16
        row = facts(softmax_kernel, SOFTMAX, n_cols, num_warps, SOFTMAX)[1]
        softmax.append({"n_cols": n_cols, **row})
    first_spill = next((row["n_cols"] for row in softmax if row["spill_stores"] or row["stack_bytes"]), None)

    # Chapter 2's cos chain, K = 1 and 2 cosines: the difference is what one more cosine costs
    # each element (every thread handles BLOCK_SIZE / 128 of them, each with its own copy).
    cos_rows = []
    for k in (1, 2):
        compiled = compile_for_sm90(cos_chain_kernel, ["x_ptr", "out_ptr", "n_elements"], 1024, 4,
                                    ["x_ptr", "out_ptr", "n_elements"], {"K": k})
        total, fast = instructions_without_slow_path(compiled)
        cos_rows.append({"k": k, "instructions": total, "instructions_taken": fast})
    per_thread = 1024 // (32 * 4)
    per_cos = (cos_rows[1]["instructions_taken"] - cos_rows[0]["instructions_taken"]) / per_thread
    per_cos_all = (cos_rows[1]["instructions"] - cos_rows[0]["instructions"]) / per_thread

    # The instructions that do the work in the chapter's kernel, each with the line it came from.
    work = [(i, s) for i, s in sass_lines(chapter_kernel) if re.search(r"\b(LDG|STG|FADD|FMNMX|ISETP|EXIT)", i)]
    listing = aligned(work)
    memory = aligned([(i, s) for i, s in work if re.search(r"\b(LDG|STG)", i)])

    print(f"compiled for {chapter_kernel.metadata.target.backend}:{chapter_kernel.metadata.target.arch} "
          f"with triton {triton.__version__} (ptxas {knobs.nvidia.ptxas.version}); not run")
    print(f"sm_90 limits per SM: {SM90['registers']:,} registers, {SM90['threads']:,} threads, {SM90['blocks']} blocks, "
          f"{SM90['shared_bytes'] // 1024} KiB shared memory; at most {SM90['registers_per_thread']} registers per thread")
    print()
    print("add+relu  (divisible: which arguments are marked tt.divisibility=16; spill: bytes per thread)")
    print(f"{'BLOCK':>5} {'warps':>5} {'divisible':>9} {'regs':>4} {'spill':>5} {'smem':>4} "
          f"{'LDG':>3} {'.64':>3} {'.128':>4} {'STG':>3} {'.128':>4} {'blocks/SM':>9} {'occupancy':>9}")
    for r in add_relu:
        print(f"{r['block_size']:>5} {r['num_warps']:>5} {r['divisible']:>9} {r['registers']:>4} {r['stack_bytes']:>5} "
              f"{r['shared_bytes']:>4} {r['loads']:>3} {r['loads_64']:>3} {r['loads_128']:>4} {r['stores']:>3} "
              f"{r['stores_128']:>4} {r['blocks_per_sm']:>9} {r['occupancy_share']:>8.0%}  ({r['limited_by']})")
    print()
    print("softmax  (one row per program, BLOCK = columns)")
    print(f"{'cols':>6} {'warps':>5} {'values/thread':>13} {'regs':>4} {'cap':>4} {'spill':>5} {'STL':>4} {'smem':>5} "
          f"{'blocks/SM':>9} {'occupancy':>9}")
    for r in softmax:
        print(f"{r['n_cols']:>6} {r['num_warps']:>5} {r['values_per_thread']:>13} {r['registers']:>4} {r['register_cap']:>4} {r['stack_bytes']:>5} "
              f"{r['spill_stores']:>4} {r['shared_bytes']:>5} {r['blocks_per_sm']:>9} {r['occupancy_share']:>8.0%}  ({r['limited_by']})")
    print(f"first row length that spills registers: {first_spill}")
    print()
    print("add+relu, BLOCK_SIZE 1024, 4 warps: the instructions that do the work")
    print(listing)
    print()
    print(f"cos chain (chapter 2), BLOCK_SIZE 1024, 4 warps: {per_thread} elements per thread")
    print(f"{'K':>2} {'instructions':>12} {'without the path for |x| >= 105615':>36}")
    for r in cos_rows:
        print(f"{r['k']:>2} {r['instructions']:>12} {r['instructions_taken']:>36}")
    print(f"one more cosine, per element: {per_cos:g} instructions ({per_cos_all:g} counting the path for huge |x|)")

    return {
        "target": f"{chapter_kernel.metadata.target.backend}:{chapter_kernel.metadata.target.arch}",
        "triton": triton.__version__,
        "ptxas": knobs.nvidia.ptxas.version,
        "limits": SM90,
        "add_relu": add_relu,
        "softmax": softmax,
        "softmax_first_spill_cols": first_spill,
        "sass_add_relu": listing,
        "sass_add_relu_memory": memory,  # only the loads and stores
        "cos_chain": {"block_size": 1024, "num_warps": 4, "values_per_thread": per_thread, "rows": cos_rows,
                      "instructions_per_cos": per_cos, "instructions_per_cos_with_slow_path": per_cos_all},
    }


if knobs.runtime.interpret:
    # Something earlier in this process (in a notebook: this chapter's other examples) switched
    # Triton's interpreter on, and it cannot be switched off again: Triton would not compile.
    print("Triton's interpreter is on in this process (TRITON_INTERPRET=1), so nothing can be compiled for sm_90 here. "
          "Run this example in a fresh Python process (in a notebook: restart the kernel, then run this cell first).")
    results = None
else:
    results = main()
