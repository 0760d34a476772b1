"""What a capture made on this machine would record about its CUDA environment, found cheaply.

Deciding whether a CUDA capture is stale must not import torch (an up-to-date tree returns
at once): the GPU's name, compute capability and driver come from one ``nvidia-smi`` query
(made only when a driver is present, once per process), the CUDA runtime torch was built
with from torch's ``version.py`` read as text, triton's version from the package metadata.
The capture side records the same values (``capture/harness.py``), so the two compare.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CudaEnvironment:
    """The CUDA side of this machine, as a capture would record it; None where unknown."""

    device_name: str | None
    compute_capability: str | None
    driver: str | None
    cuda: str | None  # the CUDA runtime torch was built with (torch.version.cuda)
    triton: str | None


def triton_version() -> str | None:
    """triton, or the pytorch-triton wheel some torch builds use (as the harness records it)."""
    for dist in ("triton", "pytorch-triton"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


@functools.cache
def cuda_runtime() -> str | None:
    """``torch.version.cuda`` without importing torch: read from torch/version.py as text."""
    try:
        spec = importlib.util.find_spec("torch")  # finds the package; does not import it
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        try:
            text = (Path(folder) / "version.py").read_text(encoding="utf-8")
        except OSError:
            continue
        found = re.search(r"^cuda\b[^=\n]*=\s*(?:['\"]([^'\"]*)['\"]|None)", text, re.MULTILINE)
        return found.group(1) if found and found.group(1) else None
    return None


@functools.cache
def nvidia_gpu() -> tuple[str, str | None, str] | None:
    """(name, compute capability, driver version) of the first GPU this process sees, or None.

    Drivers older than the ``compute_cap`` field answer without it (capability None).
    """
    visible = (os.environ.get("CUDA_VISIBLE_DEVICES") or "").split(",")[0].strip()
    for fields in ("name,compute_cap,driver_version", "name,driver_version"):
        command = ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader"]
        if visible:  # torch's device 0 is the first visible one
            command.insert(1, f"--id={visible}")
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode != 0:
            continue
        for line in done.stdout.splitlines():
            parts = [p.strip() for p in line.split(",")]
            if len(parts) == fields.count(",") + 1 and all(parts):
                return (parts[0], parts[1], parts[2]) if len(parts) == 3 else (parts[0], None, parts[1])
    return None


def cuda_environment() -> CudaEnvironment:
    gpu = nvidia_gpu()
    name, capability, driver = gpu if gpu else (None, None, None)
    return CudaEnvironment(name, capability, driver, cuda_runtime(), triton_version())


def driver_major(version: str | None) -> str | None:
    return version.split(".", 1)[0] if version else None


def same_gpu(recorded: str, seen: str) -> bool:
    """torch names a MIG slice after its GPU ("NVIDIA A100-SXM4-40GB MIG 1g.5gb"), nvidia-smi the GPU alone."""
    recorded, seen = recorded.strip(), seen.strip()
    return recorded == seen or recorded.startswith(seen + " ") or seen.startswith(recorded + " ")
