"""Can this machine capture on CUDA at all? Checked in seconds, before any snippet runs.

``python -m kernelbook.capture.preflight`` (the GPU workflow's first step after the venv):

1. the driver: it must support the CUDA major version this torch was built with (CUDA
   minor-version compatibility covers the rest), read without importing torch;
2. the toolchain: a C compiler and ``Python.h``, found as Triton looks for them (Triton
   builds its CUDA launcher with them on first use);
3. the GPU: torch sees it, and this torch has kernels for its compute capability;
4. compiling: one ``torch.compile`` of ``x + 1`` and one hand-written Triton kernel run on it.

Each failure is one line naming what is wrong and what to do (exit 1); a run that passes
prints what it found, and warns when the committed CUDA captures record another GPU model
than this one, and when the snippets that build CUDA C++ with ``torch.utils.cpp_extension``
could not be built here (no CUDA toolkit, or no ``libcudart.so`` to link against): only
those fail then, so it is a warning, not a failure. It changes nothing: it only reads the
machine, the snippets and the captures.
"""

from __future__ import annotations

import ctypes
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from ..safety.errors import KernelbookError
from ..common.gpus import gpu_key, reference_gpu
from ..common.machine import cuda_runtime, nvidia_gpu, same_gpu
from ..common.records import CaptureError, load
from ..common.snippets import discover

# The driver branch that first supports each CUDA major version (NVIDIA's "CUDA
# Toolkit and Corresponding Driver Versions"; through minor-version compatibility a
# driver of that branch runs every later minor release of the same major).
FIRST_DRIVER = {11: 450, 12: 525, 13: 580}
OLDER_BUILDS = "https://download.pytorch.org/whl/cu126"  # a CUDA 12 build: drivers R525 and later


class NotReady(Exception):
    """The machine cannot capture on CUDA: the message says why and what to do."""


def driver_cuda() -> tuple[int, int] | None:
    """The newest CUDA version the installed driver supports, from libcuda (no torch import)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        version = ctypes.c_int()
        if lib.cuDriverGetVersion(ctypes.byref(version)) == 0 and version.value > 0:
            return version.value // 1000, version.value % 1000 // 10
    except (OSError, AttributeError):
        pass
    try:  # nvidia-smi's banner says the same: "CUDA Version: 13.0"
        done = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", done.stdout)
    return (int(found.group(1)), int(found.group(2))) if found else None


def driver_problem(supports: tuple[int, int] | None, driver: str | None, torch_cuda: str | None) -> str | None:
    """Why the driver cannot run this torch build, or None. Pure: the facts come as arguments."""
    if torch_cuda is None:
        return ("this torch has no CUDA (a CPU build): install a CUDA build, e.g. the workflow's torch_spec "
                "from PyPI (CUDA 13) or with torch_index set to a CUDA 12 index such as " + OLDER_BUILDS)
    if supports is None:
        return "no NVIDIA driver answers (libcuda.so.1 and nvidia-smi): install the driver, or run on a machine with a GPU"
    major = int(torch_cuda.split(".")[0])
    if supports[0] >= major:
        return None
    needed = FIRST_DRIVER.get(major)
    branch = f" (driver branch R{needed} or later)" if needed else ""
    named = f"the NVIDIA driver {driver}" if driver else "the NVIDIA driver"
    return (f"{named} supports CUDA {supports[0]}.{supports[1]}, but this torch is built for "
            f"CUDA {torch_cuda}{branch}: upgrade the driver, or install a torch built for CUDA {supports[0]} "
            f"(the workflow's torch_index input, e.g. {OLDER_BUILDS})")


def compiler_problem(cc: str | None, which, include_dir: str) -> str | None:
    """Why Triton could not build its launcher here, or None (``which`` as shutil.which)."""
    compiler = cc or which("gcc") or which("clang")
    if compiler is None:
        return "no C compiler (gcc or clang, or $CC): Triton and torch.compile build their CUDA launcher with one; install build-essential"
    if cc and which(cc) is None and not Path(cc).is_file():
        return f"$CC is {cc!r}, which is not a program on PATH: unset it or install that compiler"
    if not (Path(include_dir) / "Python.h").is_file():
        return (f"no Python.h in {include_dir}: Triton and torch.compile include it; install this Python's "
                "headers (python3-dev, or python3.X-dev for the Python the venv uses)")
    return None


def python_include_dir() -> str:
    """Where Triton looks for Python.h (triton/runtime/build.py)."""
    scheme = sysconfig.get_default_scheme()
    return sysconfig.get_paths(scheme="posix_prefix" if scheme == "posix_local" else scheme)["include"]


def capability_problem(capability: tuple[int, int], arch_list: list[str], name: str) -> str | None:
    """Why this torch has no kernels for the GPU, or None (arch_list as torch.cuda.get_arch_list())."""
    built = sorted(int(m.group(1)) for m in (re.fullmatch(r"sm_(\d+)[af]?", a) for a in arch_list) if m)
    if not built:
        return None  # a build that lists no architectures: let the compile step decide
    have = capability[0] * 10 + capability[1]
    if have >= built[0]:
        return None
    return (f"{name} has compute capability {capability[0]}.{capability[1]}, and this torch has kernels for "
            f"{built[0] // 10}.{built[0] % 10} and later only: use a torch built for an older CUDA "
            f"(CUDA 13 builds start at 7.5; the workflow's torch_index input, e.g. {OLDER_BUILDS})")


def check_driver() -> str:
    torch_cuda = cuda_runtime()
    gpu = nvidia_gpu()
    problem = driver_problem(driver_cuda(), gpu[2] if gpu else None, torch_cuda)
    if problem:
        raise NotReady(problem)
    return f"driver {gpu[2] if gpu else '?'} runs this torch's CUDA {torch_cuda}"


def check_toolchain() -> str:
    problem = compiler_problem(os.environ.get("CC"), shutil.which, python_include_dir())
    if problem:
        raise NotReady(problem)
    return f"C compiler and Python.h ({python_include_dir()}) found"


def check_gpu() -> str:
    import torch

    if not torch.cuda.is_available():
        raise NotReady(f"torch {torch.__version__} sees no GPU (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')!s})")
    name = torch.cuda.get_device_name()
    problem = capability_problem(torch.cuda.get_device_capability(), torch.cuda.get_arch_list(), name)
    if problem:
        raise NotReady(problem)
    return f"torch {torch.__version__} on {name}"


def check_compile(device: str = "cuda") -> str:
    """``device``: "cuda" here; tests run the same code on "cpu" with TRITON_INTERPRET=1."""
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add_one(x_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1, mask=mask)

    try:
        x = torch.zeros(8, device=device)
        compiled = torch.compile(lambda t: t + 1)(x)
        add_one[(1,)](x, x.numel(), BLOCK=8)
        if device == "cuda":
            torch.cuda.synchronize()
    except Exception as exc:  # the first line says what failed (a compiler error, a missing header)
        first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise NotReady(f"compiling a tiny CUDA kernel failed ({type(exc).__name__}: {first.strip()[:300]}); "
                       "check the C compiler and Python.h (build-essential, python3-dev)") from None
    if not (torch.equal(compiled.cpu(), torch.ones(8)) and torch.equal(x.cpu(), torch.ones(8))):
        raise NotReady("a tiny compiled CUDA kernel gave a wrong result: the GPU or its driver is not fit to capture on")
    return f"torch.compile and a Triton kernel ran on {'the GPU' if device == 'cuda' else device}"


def model_note(gpu: str, recorded: list[str]) -> str | None:
    """A word when the committed CUDA captures record another GPU model than this one, or None.

    Not a failure (a new GPU is a reason to refresh), but two models behind one runner label
    would re-capture each other's snippets on every run.
    """
    differ = [name for name in recorded if not same_gpu(name, gpu)]
    if not differ:
        return None
    others = sorted(set(differ))
    return (f"{len(differ)} of the {len(recorded)} committed CUDA captures "
            f"record another GPU ({', '.join(others)}) than this runner's {gpu}: they are all re-captured here; if runners "
            "with different GPU models share one label, give each model its own label")


def recorded_gpus(root: Path) -> list[str]:
    """The GPU each committed CUDA capture under ``root`` records: every slot, the GPU-keyed files
    (``.cuda-h200.json``) and an old unkeyed ``.cuda.json`` (an unreadable one is status's to report)."""
    names = []
    for snippet in discover(root):
        for slot in snippet.cuda_slots():
            try:
                names.append(load(snippet.capture_path(slot)).environment.device_name)
            except CaptureError:
                continue
    return names


def reference_problem(name: str, capability: str | None, reference: str | None) -> str | None:
    """The book's runner captures its reference GPU: another model's captures would never make `status --strict` pass."""
    key = gpu_key(name, capability)
    if reference is None or key == reference:
        return None
    return (f"this runner's GPU is {name} (key {key}), the book's reference GPU is {reference} (mkdocs.yml's reference_gpu): "
            "run the workflow on a runner with that GPU, or change reference_gpu (a contribution from another GPU: guide/gpu.md)")


def check_reference() -> str:
    gpu = nvidia_gpu()
    if gpu is None:
        return "nvidia-smi names no GPU: the reference GPU is not checked"
    try:
        reference = reference_gpu(Path.cwd())
    except KernelbookError as exc:  # mkdocs.yml names no GPU key: one line, like the other checks
        raise NotReady(str(exc)) from None
    problem = reference_problem(gpu[0], gpu[1], reference)
    if problem:
        raise NotReady(problem)
    return f"{gpu[0]} is the book's reference GPU"


def extension_problem(cuda_home: str | None, cudart: str | None, builders: list[str], nvcc_folder: str | None = None,
                      *, cuda_home_set: str | None = None, runtime: str = "libcudart.so.13") -> str | None:
    """Why the snippets in ``builders`` (files that use torch.utils.cpp_extension) could not build
    their CUDA C++ here, or None. Pure: ``cuda_home`` as torch finds the toolkit (None: no nvcc there),
    ``cudart`` the libcudart.so the link would take (None: none found), ``nvcc_folder`` the folder
    of nvcc's own libraries when it holds a libcudart.so; ``cuda_home_set`` the CUDA_HOME variable
    when it is set, ``runtime`` the versioned library of this torch's CUDA."""
    if not builders:
        return None
    who = f"{', '.join(builders)} (and the snippets that import {'them' if len(builders) > 1 else 'it'})"
    if cuda_home is None:
        where = f"no nvcc in CUDA_HOME={cuda_home_set}/bin" if cuda_home_set else "no CUDA toolkit (nvcc) found"
        return (f"{where}, so {who} cannot build their CUDA C++ here and will fail (the other snippets are not affected): "
                "install the CUDA toolkit of this torch's CUDA version, or set CUDA_HOME to it")
    if cudart is None:
        fix = (f"LIBRARY_PATH={nvcc_folder} (nvcc's own library folder; scripts/gpu_session.sh and the site-gpu workflow set it "
               "themselves)" if nvcc_folder else
               f"LIBRARY_PATH to a folder holding libcudart.so (a link of that name to the nvidia-cuda-runtime wheel's {runtime} will do)")
        return (f"no libcudart.so in {cuda_home}/lib64 or lib or on the linker's path, so {who} compile their CUDA C++ "
                f"but cannot link it and will fail: set {fix}")
    return None


def nvcc_library_dirs(dryrun: str) -> list[str]:
    """The folders nvcc links its own programs against, from ``nvcc --dryrun``'s ``LIBRARIES=`` line (stubs left out)."""
    found = re.search(r"^#\$ LIBRARIES=(.*)$", dryrun, re.MULTILINE)
    try:
        words = shlex.split(found.group(1)) if found else []
    except ValueError:  # unbalanced quotes: nothing to read
        return []
    folders = [word[2:] for word in words if word.startswith("-L") and len(word) > 2]
    return [folder for folder in folders if Path(folder).name != "stubs"]


def nvcc_cudart_folder(nvcc: str) -> str | None:
    """The folder of nvcc's own libraries, when it holds the libcudart.so that ``-lcudart`` needs."""
    try:
        said = subprocess.run([nvcc, "--dryrun", "kernelbook-preflight.cu"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    for folder in nvcc_library_dirs(said.stdout + said.stderr):
        if (Path(folder) / "libcudart.so").exists():
            return str(Path(folder).resolve())
    return None


def find_cudart(cuda_home: str, cxx: list[str] | None) -> str | None:
    """The libcudart.so that ``-lcudart`` would take: in the folder torch.utils.cpp_extension passes with
    ``-L`` (the toolkit's lib64, else lib), else wherever the C++ compiler's linker looks (LIBRARY_PATH
    too). ``cxx``: the compiler's command, as words (``ccache g++`` is two)."""
    folder = Path(cuda_home) / "lib64"
    if not folder.exists() and (Path(cuda_home) / "lib").exists():
        folder = Path(cuda_home) / "lib"
    if (folder / "libcudart.so").exists():
        return str(folder / "libcudart.so")
    if not cxx:
        return None
    try:
        said = subprocess.run([*cxx, "-print-file-name=libcudart.so"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return said if os.path.isabs(said) and Path(said).exists() else None


def cxx_command() -> list[str] | None:
    """The C++ compiler load_inline's build uses, as torch.utils.cpp_extension picks it: $CXX (split into words), else c++."""
    try:
        return shlex.split(os.environ.get("CXX") or "c++") or None
    except ValueError:  # unbalanced quotes: no compiler to ask
        return None


def extension_builders(root: Path) -> list[str]:
    """The snippet files (helper modules included) that build CUDA C++ with torch.utils.cpp_extension."""
    return sorted(str(path.relative_to(root)) for path in (root / "snippets").glob("*/*.py")
                  if "cpp_extension" in path.read_text(encoding="utf-8", errors="replace"))


def extension_link() -> tuple[str | None, str | None, str | None]:
    """As load_inline would build here: the toolkit (CUDA_HOME, None without its nvcc), the libcudart.so
    ``-lcudart`` would take, and nvcc's own library folder when it holds one."""
    from torch.utils.cpp_extension import CUDA_HOME  # as load_inline finds the toolkit

    nvcc = Path(CUDA_HOME or "/nonexistent") / "bin" / "nvcc"
    if not nvcc.exists():
        return None, None, None
    cudart = find_cudart(str(CUDA_HOME), cxx_command())
    return str(CUDA_HOME), cudart, None if cudart else nvcc_cudart_folder(str(nvcc))


def extension_note(root: Path) -> str | None:
    builders = extension_builders(root)
    if not builders:
        return None
    cuda_home, cudart, folder = extension_link()
    major = (cuda_runtime() or "13").split(".")[0]
    return extension_problem(cuda_home, cudart, builders, folder, cuda_home_set=os.environ.get("CUDA_HOME"), runtime=f"libcudart.so.{major}")


def library_path_for_extensions() -> str | None:
    """The folder to put on LIBRARY_PATH so that load_inline links (``--library-path``, which
    scripts/gpu_session.sh and the site-gpu workflow read): nvcc's own library folder, when
    libcudart.so is not where torch links it from; None when it is (or none is found)."""
    return extension_link()[2]


CHECKS = (check_driver, check_toolchain, check_gpu, check_reference, check_compile)


def notes(root: Path) -> list[str]:
    """The warnings of a machine that passed: another GPU model than the captures', CUDA C++ that cannot build."""
    gpu = nvidia_gpu()
    found = [model_note(gpu[0], recorded_gpus(root)) if gpu else None]
    try:
        found.append(extension_note(root))
    except Exception as exc:  # noqa: BLE001 - a warning's own failure must not fail a machine that passed
        found.append(f"the CUDA C++ build (torch.utils.cpp_extension) could not be checked: {type(exc).__name__}: {exc}")
    return [note for note in found if note]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--library-path"]:  # one line: the folder, or nothing
        try:
            folder = library_path_for_extensions()
        except Exception:  # noqa: BLE001 - no folder to offer (no CUDA torch, say): the caller adds nothing
            folder = None
        print(folder or "")
        return 0
    if args:
        print("usage: python -m kernelbook.capture.preflight [--library-path]", file=sys.stderr)
        return 2
    for check in CHECKS:
        try:
            print(f"preflight: {check()}", flush=True)
        except NotReady as exc:
            print(f"kernelbook: preflight: {exc}", file=sys.stderr)
            return 1
    for note in notes(Path.cwd()):  # an annotation on the run's page when in GitHub Actions
        print(("::warning::" if os.environ.get("GITHUB_ACTIONS") == "true" else "preflight: warning: ") + note, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
