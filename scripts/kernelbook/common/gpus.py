"""Which GPU a CUDA capture was made on, as a short stable key, and where its file lies. Pure.

A snippet has one CUDA capture per GPU model, beside its CPU capture:
``<name>.cuda-<key>.json`` (traces ``<name>.cuda-<key>.trace<i>.json.gz``). The key comes
from the name the driver gives the GPU (see :func:`gpu_key`): ``NVIDIA H200`` -> ``h200``,
``NVIDIA A100-SXM4-80GB`` -> ``a100_80gb``, ``Tesla T4`` -> ``t4``. A file written before
keys existed, ``<name>.cuda.json``, is still read: its key is the one its recorded GPU gives.

The capture side (status, merge, the GPU runner) reads the book's reference GPU from
``mkdocs.yml`` as text (:func:`reference_gpu`): it never imports yaml.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..safety.errors import KernelbookError

if TYPE_CHECKING:
    from .records import Capture

# What gpu_key gives: lower-case words of letters and digits joined by single underscores.
KEY = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")
# A slot names one capture file of a snippet: "cpu", "cuda" (unkeyed, from before keys) or "cuda-<key>".
SLOT = re.compile(rf"cpu|cuda(?:-{KEY.pattern})?")
_VENDOR = {"nvidia", "tesla", "geforce", "quadro"}
# Words that tell a board's form factor or memory kind, not its chip and memory size: an
# A100 80GB is one GPU model for the book whether it sits in a PCIe or an SXM4 slot.
_FORM = re.compile(r"sxm\d*|pcie|hbm\d*e?|nvl|smx\d*|mig")


def gpu_key(device_name: str | None, compute_capability: str | None = None) -> str | None:
    """The key of a GPU: its name lower-cased, vendor and form-factor words dropped, words joined by ``_``.

    A MIG slice ("NVIDIA A100-SXM4-40GB MIG 1g.5gb") has its GPU's key. A name that leaves
    no word falls back to the architecture (``sm90``); None when neither is known.
    """
    name = (device_name or "").split(" MIG ", 1)[0].lower()
    words = [w for w in re.split(r"[^a-z0-9]+", name) if w and w not in _VENDOR and not _FORM.fullmatch(w)]
    if words:
        return "_".join(words)
    return arch(compute_capability)


def arch(compute_capability: str | None) -> str | None:
    """``9.0`` -> ``sm90``: the architecture a claim can be scoped to (``@sm90``)."""
    if not compute_capability or not re.fullmatch(r"\d+\.\d+", compute_capability.strip()):
        return None
    return "sm" + compute_capability.strip().replace(".", "")


def slot(key: str | None) -> str:
    """The capture slot of a CUDA capture on the GPU ``key`` (unkeyed when the GPU is unknown)."""
    return f"cuda-{key}" if key else "cuda"


def slot_of(capture: "Capture") -> str:
    """The slot a capture is written to: ``cpu``, or ``cuda-<key>`` of the GPU it records."""
    env = capture.environment
    return slot(gpu_key(env.device_name, env.compute_capability)) if capture.device == "cuda" else capture.device


def device_of(slot_name: str) -> str:
    """``cuda-h200`` -> ``cuda``: the device kind a slot's capture records."""
    return slot_name.split("-", 1)[0]


def key_of(slot_name: str) -> str | None:
    """``cuda-h200`` -> ``h200``; None for ``cuda`` and ``cpu``."""
    return slot_name.split("-", 1)[1] if "-" in slot_name else None


def cuda_slots(captures: Path, stem: str) -> list[str]:
    """The CUDA slots ``<stem>.cuda*.json`` in a captures folder: ``cuda`` first, then by key."""
    if not captures.is_dir():
        return []
    found = []
    for path in captures.glob(f"{stem}.cuda*.json"):
        name = path.name[len(stem) + 1:-len(".json")]
        if SLOT.fullmatch(name) and name != "cpu":
            found.append(name)
    return sorted(found, key=lambda s: (s != "cuda", s))


def _plugin_options(text: str) -> list[str]:
    """The lines of the kernelbook plugin's options in mkdocs.yml's top-level ``plugins:`` (a list item
    ``- kernelbook:`` or a key ``kernelbook:``), at their own indentation; [] when the plugin has none."""
    lines = text.splitlines()
    top = [i for i, line in enumerate(lines) if re.match(r"plugins:\s*(#.*)?$", line)]
    if not top:
        return []
    block = []
    for line in lines[top[0] + 1:]:
        if line.strip() and not line[0].isspace() and not line.lstrip().startswith("#"):
            break  # the next top-level key
        block.append(line)
    for i, line in enumerate(block):
        found = re.match(r"(\s*)(?:-\s+)?kernelbook:\s*(#.*)?$", line)
        if not found:
            continue
        outer = len(found.group(1))
        options = []
        for inner in block[i + 1:]:
            if not inner.strip() or inner.lstrip().startswith("#"):
                continue
            if len(inner) - len(inner.lstrip()) <= outer:
                break  # the next plugin
            options.append(inner)
        depth = min((len(o) - len(o.lstrip()) for o in options), default=0)
        return [o[depth:] for o in options if len(o) - len(o.lstrip()) == depth]
    return []


def book_option(root: Path, name: str) -> str | None:
    """A kernelbook plugin option in ``root/mkdocs.yml``, read as text (``name: value`` among the plugin's own options,
    one line, a YAML comment and quotes taken off), or None. The same key elsewhere (``extra:``) is not the plugin's."""
    try:
        text = (root / "mkdocs.yml").read_text(encoding="utf-8")
    except OSError:
        return None
    except UnicodeDecodeError as exc:
        raise KernelbookError(f"{root / 'mkdocs.yml'}: not UTF-8 (byte {exc.start}): save it as UTF-8") from None
    found = next((m for line in _plugin_options(text) if (m := re.match(rf"{re.escape(name)}:(.*)$", line))), None)
    if not found:
        return None
    value = re.sub(r"(?:^|\s)#.*$", "", found.group(1)).strip()  # a YAML comment: from a # after a space
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value or None


def reference_gpu(root: Path) -> str | None:
    """The kernelbook plugin's ``reference_gpu`` in ``root/mkdocs.yml`` (read as text), or None.

    A value that is not a GPU key is a KernelbookError (:func:`check_reference`).
    """
    return check_reference(book_option(root, "reference_gpu") or "") or None


def check_reference(value: str) -> str:
    """``value`` (mkdocs.yml's reference_gpu) when it is empty or a GPU key; else a one-line KernelbookError."""
    if not value or KEY.fullmatch(value):
        return value
    meant = gpu_key(value)
    hint = f"; did you mean {meant}?" if meant and meant != value else ""
    raise KernelbookError(f"mkdocs.yml's reference_gpu {value!r} is not a GPU key (lower-case letters and digits joined by _, "
                          f"as `kernelbook status` names them, e.g. h200 or a100_80gb: guide/gpu.md#gpu-keys){hint}")


def in_scope(scope: str | None, capture: "Capture", reference: str | None = None) -> bool:
    """Does a claim scoped ``scope`` (``@cuda``, ``@cpu``, ``@reference``, ``@sm90``) speak for ``capture``?"""
    if scope is None or scope == capture.device:
        return True
    if capture.device != "cuda" or scope == "cpu":
        return False
    env = capture.environment
    if scope == "reference":
        return reference is not None and gpu_key(env.device_name, env.compute_capability) == reference
    return arch(env.compute_capability) == scope
