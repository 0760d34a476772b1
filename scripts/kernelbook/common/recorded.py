"""Kernels of a profiler trace recorded elsewhere, as a data file the site shows: a record. Pure.

Not this book's captures: a trace someone else recorded on their GPU (the A100 traces of the
HolisticTraceAnalysis project), committed with its licence and a hand-written ``source.json``
(who recorded it, on what, under which licence). ``kernelbook kernels TRACE --record OUT`` reads
the trace with the same code as ``kernelbook kernels`` (``capture/kernels.py``) and writes OUT:
the launches and kernels, and the trace's sha256. The site reads the record, never the trace's
events (it does not import the capture half); it checks the sha256 so that a trace swapped
without re-reading it fails the build instead of showing another trace's kernels.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..safety.files import MiB, InputError, parse_json, read_bounded
from .records import Kernel, write_atomic

SCHEMA = "kernelbook/recorded-kernels/1"
SOURCE = "source.json"  # beside the traces: who recorded them, where, under which licence
_LIMIT = 64 * MiB
_SOURCE_FIELDS = ("project", "url", "gpu", "licence", "licence_file", "copyright")


class RecordError(ValueError):
    """A record, its trace or its source that cannot be shown: what, where, what to do."""


def sha256(path: Path) -> str:
    try:
        return hashlib.sha256(read_bounded(path, _LIMIT, gzipped=False)).hexdigest()
    except InputError as exc:
        raise RecordError(str(exc)) from None


def record_json(trace: Path, out: Path, kind: str, launches: int, kernels: tuple[Kernel, ...]) -> bytes:
    """The record of ``trace`` as written to ``out`` (the trace named relative to out's folder)."""
    if trace.resolve().parent != out.resolve().parent:
        raise InputError(f"{out}: write the record beside its trace ({trace.parent}), which it names by file name")
    data = {"schema": SCHEMA, "trace": trace.name, "sha256": sha256(trace), "device_kind": kind, "launches": launches,
            "kernels": [{"name": k.name, "count": k.count, "time_us": k.time_us} for k in kernels]}
    return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode()


def write(trace: Path, out: Path, kind: str, launches: int, kernels: tuple[Kernel, ...]) -> str:
    """``kernelbook kernels TRACE --record OUT``: the record written; what to print."""
    write_atomic(out, record_json(trace, out, kind, launches, kernels))
    return f"wrote {out}: {launches} launch(es) of {len(kernels)} kernel(s) read from {trace}"


@dataclass(frozen=True)
class Source:
    project: str  # "HolisticTraceAnalysis"
    url: str  # the project's repository
    gpu: str  # "NVIDIA A100 (A100-PG509-200)"
    licence: str  # "MIT"
    licence_file: str  # beside the traces
    copyright: str  # the licence's copyright line, which the attribution repeats


@dataclass(frozen=True)
class Record:
    path: Path  # the record file
    trace: str  # the trace's file name, beside it
    device_kind: str
    launches: int
    kernels: tuple[Kernel, ...]
    source: Source


def _json(path: Path) -> Any:
    try:
        return parse_json(read_bounded(path, _LIMIT), str(path))
    except InputError as exc:
        raise RecordError(str(exc)) from None


def load(path: Path) -> Record:
    """The record at ``path``, its trace's sha256 checked and its ``source.json`` read; RecordError otherwise."""
    redo = f"run `kernelbook kernels {path.parent}/TRACE --record {path}`"
    if not path.is_file():
        raise RecordError(f"{path}: no such record; {redo}")
    raw = _json(path)
    if not isinstance(raw, dict) or raw.get("schema") != SCHEMA:
        raise RecordError(f"{path}: not a record of kernels ({SCHEMA}); {redo}")
    try:
        trace = str(raw["trace"])
        kernels = tuple(Kernel(str(k["name"]), int(k["count"]), float(k["time_us"])) for k in raw["kernels"])
        launches, kind, digest = int(raw["launches"]), str(raw["device_kind"]), str(raw["sha256"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"{path}: malformed ({type(exc).__name__}: {exc}); {redo}") from None
    if "/" in trace or "\\" in trace or trace.startswith("."):
        raise RecordError(f"{path}: names the trace {trace!r}, not a file beside it")
    trace_path = path.parent / trace
    if sha256(trace_path) != digest:
        raise RecordError(f"{path}: {trace_path} is not the trace this record was read from (its sha256 differs): "
                          f"run `kernelbook kernels {trace_path} --record {path}`")
    source = _json(path.parent / SOURCE) if (path.parent / SOURCE).is_file() else None
    if not isinstance(source, dict) or not all(isinstance(source.get(f), str) and source.get(f) for f in _SOURCE_FIELDS):
        raise RecordError(f"{path.parent / SOURCE}: a trace recorded elsewhere needs its source: a JSON object with "
                          + ", ".join(_SOURCE_FIELDS))
    if not (path.parent / source["licence_file"]).is_file():
        raise RecordError(f"{path.parent / SOURCE}: licence_file {source['licence_file']!r} is not beside the traces")
    return Record(path, trace, kind, launches, kernels, Source(*(source[f] for f in _SOURCE_FIELDS)))
