# The chapter's CUDA C++ kernels compiled for Hopper (sm_90: H100, H200) by nvcc, and read back.
# Nothing here runs on a GPU, and none is needed: nvcc compiles for the architecture it is
# told (-arch=sm_90), and cuobjdump reads the machine code (SASS) back out of the cubin.
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _add_relu_cuda import KERNELS, LAUNCHERS

ARCH = "sm_90"  # compute capability 9.0 (Hopper)
THREADS = 256  # threads per block, as the chapter's launchers choose

# Per-SM limits of compute capability 9.0, from the CUDA C++ Programming Guide's table (as chapter 4)
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#features-and-technical-specifications-technical-specifications-per-compute-capability
SM90 = {"registers": 65536, "threads": 2048, "blocks": 32, "registers_per_thread": 255}
REGISTER_UNIT = 256  # registers are given to each warp in units of 256 (CUDA occupancy calculator)

# The same kernels with every pointer declared __restrict__: a promise that a, b and c never overlap.
RESTRICT = KERNELS.replace("const float* a, const float* b, float* c",
                           "const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c")


def find_nvcc():
    """nvcc's path: on PATH, under CUDA_HOME, from the pip wheels of the project's `cuda` extra, or in /usr/local/cuda."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    candidates = [shutil.which("nvcc"), home and str(Path(home) / "bin" / "nvcc")]
    try:
        import nvidia.cu13  # the nvidia-cuda-nvcc wheel (and its nvvm, crt, runtime) install here

        candidates += [str(Path(folder) / "bin" / "nvcc") for folder in nvidia.cu13.__path__]
    except ImportError:
        pass
    candidates.append("/usr/local/cuda/bin/nvcc")
    for path in candidates:
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return path
    return None


def find_cuobjdump(nvcc):
    """cuobjdump: beside nvcc if the toolkit has it, else the copy Triton's wheel ships."""
    beside = Path(nvcc).parent / "cuobjdump"
    if beside.is_file():
        return str(beside)
    try:
        from triton import knobs

        return knobs.nvidia.cuobjdump.path
    except (ImportError, AttributeError):
        return shutil.which("cuobjdump")


def compile_cubin(nvcc, source, tmp, name):
    """nvcc -cubin for sm_90: the machine code and ptxas's own report (-Xptxas -v) of each kernel."""
    cu, cubin = Path(tmp) / f"{name}.cu", Path(tmp) / f"{name}.cubin"
    cu.write_text(source)
    done = subprocess.run([nvcc, f"-arch={ARCH}", "-O3", "-cubin", "-Xptxas", "-v", "-o", str(cubin), str(cu)],
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"cuda_sm90: nvcc failed to compile the kernels (exit {done.returncode}):\n{done.stderr}")
    return cubin, done.stderr


def sass(cuobjdump, cubin):
    """{kernel: [instruction, ...]} from the cubin, padding (NOP) and the final self-branch left out."""
    listing = subprocess.run([cuobjdump, "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout
    kernels, current = {}, None
    for line in listing.splitlines():
        name = re.match(r"\s*Function : (\w+)", line)
        if name:
            current = kernels.setdefault(name.group(1), [])
        code = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(.*?)\s*;", line)
        if code and current is not None and code.group(1) != "NOP":
            current.append(" ".join(code.group(1).split()))
    for instructions in kernels.values():
        while instructions and re.fullmatch(r"BRA 0x[0-9a-f]+", instructions[-1]):
            instructions.pop()  # the endless branch to itself after EXIT: padding, never reached
    return kernels


def resources(cuobjdump, cubin):
    """{kernel: {"REG": n, "STACK": n, "LOCAL": n, "SHARED": n}} from cuobjdump --dump-resource-usage."""
    usage = subprocess.run([cuobjdump, "--dump-resource-usage", str(cubin)], capture_output=True, text=True, check=True).stdout
    found = {}
    for name, fields in re.findall(r"Function (\w+):\s*\n\s*(.*)", usage):
        found[name] = {key: int(value) for key, value in re.findall(r"\b(REG|STACK|SHARED|LOCAL):(\d+)", fields)}
    return found


def occupancy(registers, threads):
    """Blocks of `threads` one SM holds at once, the limit that decides it, and the share of its threads used."""
    warps = threads // 32
    per_warp = -(-registers * 32 // REGISTER_UNIT) * REGISTER_UNIT  # rounded up to the allocation unit
    fits = {"blocks": SM90["blocks"], "threads": SM90["threads"] // threads,
            "registers": SM90["registers"] // (per_warp * warps)}
    blocks = min(fits.values())
    limit = " = ".join(name for name, fit in fits.items() if fit == blocks)
    return blocks, limit, blocks * threads / SM90["threads"]


def opcode(instruction):
    """The operation of one instruction, its predicate (@P0, @!P1) left out."""
    words = instruction.split()
    return words[1] if words[0].startswith("@") else words[0]


def loads_ahead(ops):
    """The most loads the code issues one after another before a store: how many it can have in flight.

    Without __restrict__ the compiler must assume that c may overlap a or b, so a store may change
    what a later load reads: each element's loads then wait behind the previous element's store.
    """
    run = most = 0
    for op in ops:
        if op.startswith("LDG"):
            run += 1
            most = max(most, run)
        elif op.startswith("STG"):
            run = 0
    return most


def facts(instructions, usage):
    """What one kernel asks of the GPU and which memory instructions it does it with."""
    ops = [opcode(i) for i in instructions]
    blocks, limit, share = occupancy(usage["REG"], THREADS)
    return {
        "registers": usage["REG"],
        "stack_bytes": usage["STACK"] + usage["LOCAL"],  # local memory: where ptxas puts what does not fit
        "shared_bytes": usage["SHARED"],
        "instructions": len(ops),
        "loads": sum(op.startswith("LDG") for op in ops),
        # LDG.E: 4 bytes (one float) per thread; LDG.E.128: 16 bytes (four floats); a .CONSTANT
        # suffix: through the read-only (non-coherent) data path, which __restrict__ allows
        "loads_32": sum(op.removesuffix(".CONSTANT") == "LDG.E" for op in ops),
        "loads_128": sum(op.removesuffix(".CONSTANT") == "LDG.E.128" for op in ops),
        "loads_readonly": sum(op.startswith("LDG") and op.endswith(".CONSTANT") for op in ops),
        "stores": sum(op.startswith("STG") for op in ops),
        "stores_32": ops.count("STG.E"),
        "stores_128": ops.count("STG.E.128"),
        "loads_ahead": loads_ahead(ops),
        "threads_per_block": THREADS,
        "blocks_per_sm": blocks,
        "limited_by": limit,
        "occupancy_share": share,
    }


WORK = r"\b(S2R|S2UR|IMAD|ISETP|LDG|STG|FADD|FMNMX|EXIT|BRA)\b"  # index, bounds check, memory, arithmetic, exit
MEMORY = r"\b(LDG|STG|FADD|FMNMX|EXIT|BRA)\b"  # memory, arithmetic, branches


def listing(instructions, keep=WORK):
    """The instructions that do the work (by default: index, bounds check, loads, arithmetic, stores, exit)."""
    return "\n".join(i for i in instructions if re.search(keep, i))


def main(nvcc):
    cuobjdump = find_cuobjdump(nvcc)
    if cuobjdump is None:
        sys.exit("cuda_sm90: no cuobjdump found (beside nvcc, in Triton's wheel or on PATH): "
                 "install the project's triton extra, pip install -e '.[triton]'")
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=True).stdout
    release = re.search(r"release ([\d.]+), V([\d.]+)", version)
    with tempfile.TemporaryDirectory() as tmp:
        cubin, ptxas_report = compile_cubin(nvcc, KERNELS, tmp, "add_relu")
        code, usage = sass(cuobjdump, cubin), resources(cuobjdump, cubin)
        restrict_cubin, _ = compile_cubin(nvcc, RESTRICT, tmp, "add_relu_restrict")
        restrict_code, restrict_usage = sass(cuobjdump, restrict_cubin), resources(cuobjdump, restrict_cubin)

    kernels = {name: facts(code[name], usage[name]) for name in sorted(code)}
    restrict = {name: facts(restrict_code[name], restrict_usage[name]) for name in sorted(restrict_code)}
    # ptxas's own words for each kernel: its register count is the one cuobjdump reads from the cubin
    report = "\n".join(line.strip() for line in ptxas_report.splitlines()
                       if "Compiling entry function" in line or "Used" in line or "spill" in line)

    print(f"compiled for {ARCH} with nvcc {release.group(2)} (-O3 -cubin); not run")
    print(f"sm_90 limits per SM: {SM90['registers']:,} registers, {SM90['threads']:,} threads, {SM90['blocks']} blocks; "
          f"{THREADS} threads per block")
    print()
    print(f"{'kernel':<44} {'regs':>4} {'spill':>5} {'LDG':>3} {'.128':>4} {'.nc':>3} {'ahead':>5} {'STG':>3} {'.128':>4} "
          f"{'blocks/SM':>9} {'occupancy':>9}")
    for label, table in (("", kernels), (" (__restrict__)", restrict)):
        for name, r in table.items():
            print(f"{name + label:<44} {r['registers']:>4} {r['stack_bytes']:>5} {r['loads']:>3} {r['loads_128']:>4} "
                  f"{r['loads_readonly']:>3} {r['loads_ahead']:>5} {r['stores']:>3} {r['stores_128']:>4} {r['blocks_per_sm']:>9} {r['occupancy_share']:>8.0%}"
                  f"  ({r['limited_by']})")
    print()
    print("ptxas -v:")
    print(report)
    for name in ("add_relu_kernel", "add_relu_vec4_kernel"):
        print()
        print(f"{name}: the instructions that do the work")
        print(listing(code[name]))
    print()
    print("add_relu_grid_stride_kernel, without and with __restrict__: its memory instructions and branches")
    for label, instructions in (("", code), (" (__restrict__)", restrict_code)):
        print(f"--{label or ' as written'}")
        print(listing(instructions["add_relu_grid_stride_kernel"], MEMORY))

    return {
        "target": "cuda:90",
        "compiler": "nvcc",
        "nvcc": release.group(2),
        "limits": SM90,
        "threads_per_block": THREADS,
        "kernels": kernels,
        "restrict": restrict,
        "ptxas_report": report,
        "sass_naive": listing(code["add_relu_kernel"]),
        "sass_vec4": listing(code["add_relu_vec4_kernel"]),
        "sass_grid_stride": listing(code["add_relu_grid_stride_kernel"], MEMORY),
        "sass_grid_stride_restrict": listing(restrict_code["add_relu_grid_stride_kernel"], MEMORY),
        "source": KERNELS.strip(),
        "launchers": LAUNCHERS.strip(),  # the host side, built only on a GPU machine (load_inline)
    }


NVCC = find_nvcc()
if NVCC is None:
    sys.exit("cuda_sm90: nvcc (the CUDA compiler) was not found on PATH, under CUDA_HOME or in the nvidia-cuda-nvcc "
             "wheel: install a CUDA 13 toolkit, or pip install -e '.[cuda]'")
results = main(NVCC)
