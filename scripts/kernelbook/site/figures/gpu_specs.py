"""Reference GPUs from their vendor's specifications (``docs/gpu_specs.yml``), checked on load.

``load`` reads a file; ``book_specs`` reads the book being built (``use_book``), once per version of its file.

The file's fields are documented at its top. Nothing in it was measured: pages show its
figures (``[[kb:spec ...]]``) and chapter 2's roofline draws its roofs as what they are,
vendor specifications, and the ridge points are computed here, never typed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...common.gpus import KEY

FILE = "gpu_specs.yml"  # in docs/
NUMBERS = ("memory_tb_per_s", "l2_mb", "sms", "fp32_tflops", "tf32_tflops", "bf16_tflops")
KEYS = {"name", "vendor_url", "checked_against", "notes", *NUMBERS}
_URL = re.compile(r"https://[^\s]+")
_ID = KEY  # an entry's id is a GPU key, as captures name their GPU (gpus.py)


class SpecError(ValueError):
    """A problem with the spec file, naming the file and the field: ``docs/gpu_specs.yml: gpus.h200.sms: ...``."""


@dataclass(frozen=True)
class Gpu:
    id: str  # "h200"
    name: str  # "NVIDIA H200 SXM"
    vendor_url: str
    checked_against: tuple[str, ...]
    memory_tb_per_s: float | None
    l2_mb: float | None
    sms: float | None
    fp32_tflops: float | None
    tf32_tflops: float | None
    bf16_tflops: float | None
    notes: tuple[tuple[str, str], ...]

    @property
    def memory_bytes_per_s(self) -> float | None:
        return None if self.memory_tb_per_s is None else self.memory_tb_per_s * 1e12

    def flop_per_s(self, precision: str) -> float | None:
        """Peak FLOP/s of ``precision`` (fp32, tf32, bf16); None where the file has none."""
        tflops = getattr(self, f"{precision}_tflops")
        return None if tflops is None else tflops * 1e12

    def ridge(self, precision: str) -> float | None:
        """The ridge point in FLOP/byte: where peak FLOP/s = intensity × memory bandwidth."""
        peak, bandwidth = self.flop_per_s(precision), self.memory_bytes_per_s
        return None if peak is None or bandwidth is None else peak / bandwidth


@dataclass(frozen=True)
class Specs:
    source: str  # the file, as messages name it
    gpus: tuple[Gpu, ...]

    def get(self, gpu_id: str) -> Gpu:
        for gpu in self.gpus:
            if gpu.id == gpu_id:
                return gpu
        raise SpecError(f"{self.source}: no GPU {gpu_id!r}; it has {', '.join(g.id for g in self.gpus)}")


_book_docs: Path | None = None  # the docs folder of the book being built (use_book); None: this repository's


def use_book(docs_dir: Path) -> None:
    """Read the spec file of the book whose docs folder is ``docs_dir`` (the plugin and the plain tree call this
    with mkdocs.yml's docs_dir), so a book built elsewhere, or a kernelbook installed without -e, reads its own."""
    global _book_docs
    _book_docs = Path(docs_dir)


def default_path() -> Path:
    """The book's spec file: docs_dir/gpu_specs.yml of the book being built, else this repository's docs/."""
    return (_book_docs or Path(__file__).resolve().parents[4] / "docs") / FILE


def book_specs() -> Specs:
    """The book's spec file, read once per version of it (SpecError when it is wrong)."""
    path = default_path()
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        raise SpecError(f"docs/{FILE}: missing: the vendor specifications chapter 2 draws and cites") from None
    return _read(path, stamp)


@lru_cache(maxsize=4)
def _read(path: Path, stamp: int) -> Specs:
    return load(path, f"docs/{FILE}")


def load(path: Path, source: str | None = None) -> Specs:
    import yaml

    name = source or path.name
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SpecError(f"{name}: unreadable: {' '.join(str(exc).split())}") from None
    return parse(raw, name)


def parse(raw: object, source: str) -> Specs:
    """The checked specs; SpecError naming ``source`` and the first bad field otherwise."""
    if not isinstance(raw, dict) or set(raw) != {"gpus"} or not isinstance(raw["gpus"], dict) or not raw["gpus"]:
        raise SpecError(f"{source}: expected one key, `gpus:`, mapping each GPU's id to its entry (see the file's header)")
    return Specs(source, tuple(_gpu(str(key), entry, f"{source}: gpus.{key}") for key, entry in raw["gpus"].items()))


def _gpu(key: str, entry: object, where: str) -> Gpu:
    if not _ID.fullmatch(key):
        raise SpecError(f"{where}: an id is lower-case letters and digits, words joined by one _ (a GPU key, gpus.py)")
    if not isinstance(entry, dict):
        raise SpecError(f"{where}: expected the GPU's fields ({', '.join(sorted(KEYS))})")
    unknown, missing = set(entry) - KEYS, KEYS - {"notes"} - set(entry)
    if unknown or missing:
        field = sorted(unknown or missing)[0]
        raise SpecError(f"{where}.{field}: {'unknown field' if unknown else 'missing'}; the fields are {', '.join(sorted(KEYS))}")
    if not isinstance(entry["name"], str) or not entry["name"].strip():
        raise SpecError(f"{where}.name: expected the product's name")
    if not isinstance(entry["vendor_url"], str) or not _URL.fullmatch(entry["vendor_url"]):
        raise SpecError(f"{where}.vendor_url: expected one https:// URL, got {entry['vendor_url']!r}")
    checked = entry["checked_against"]
    if not isinstance(checked, list) or not checked or not all(isinstance(u, str) and _URL.fullmatch(u) for u in checked):
        raise SpecError(f"{where}.checked_against: expected a list of the https:// pages each figure was read on")
    notes = entry.get("notes") or {}
    if not isinstance(notes, dict) or not all(isinstance(v, str) and v.strip() for v in notes.values()):
        raise SpecError(f"{where}.notes: expected one sentence per field, keyed by the field's name")
    for field in sorted(set(notes) - set(NUMBERS)):
        raise SpecError(f"{where}.notes.{field}: not a figure of the entry ({', '.join(NUMBERS)})")
    numbers = {field: _number(entry[field], f"{where}.{field}") for field in NUMBERS}
    for field, value in numbers.items():
        if value is None and field not in notes:
            raise SpecError(f"{where}.{field}: null without a reason: say why under notes.{field}")
    return Gpu(key, entry["name"].strip(), entry["vendor_url"], tuple(checked), **numbers,
               notes=tuple(sorted((k, v.strip()) for k, v in notes.items())))


def _number(value: object, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise SpecError(f"{where}: expected a positive number or null, got {value!r}")
    return float(value)
