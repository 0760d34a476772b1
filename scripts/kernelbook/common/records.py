"""The capture file ``kernelbook.capture/1``: frozen records, and their JSON form (validated on load). Pure.

The one thing both halves share: ``capture`` writes these files, ``site`` reads them.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any

from ..safety import validation as v
from .summaries import Summary, summary_from_json
from ..safety.files import MiB, InputError, parse_json, read_bounded

# The file layout's version. CAPTURE_FORMAT (in freshness) is what the harness records:
# it can change while files keep this layout (old files then read, and are stale).
LAYOUT = 1
SCHEMA = f"kernelbook.capture/{LAYOUT}"
# The published JSON Schema of that format, shipped with the package: for other tools, and
# for the tests, which check every committed capture against it. Reading a capture here
# needs no jsonschema (the capture side is standard library only): from_json checks the
# same rules, and some a schema cannot state.
SCHEMA_FILE = Path(__file__).parents[1] / "capture.schema.json"  # package data, at the package's top


class CaptureError(ValueError):
    """A capture file that cannot be used; the message names the file and the reason."""


@dataclass(frozen=True)
class Kernel:
    """One kernel name with how often it was launched and its total device time."""

    name: str
    count: int
    time_us: float


@dataclass(frozen=True)
class Event:
    """A timed event kept for pictures: a kernel, a launch call, a top-level op, or one of
    torch.compile's ranges (capture/kernels.py says exactly which)."""

    kind: str  # "kernel" | "launch" | "op" | "region" | "graph" | "eager"
    name: str
    ts_us: float  # relative to the start of its profiling session
    dur_us: float


@dataclass(frozen=True)
class Session:
    """One ``torch.profiler`` session the snippet opened."""

    index: int
    device_kind: str  # which rule found the kernels: "cuda" or "cpu"
    kernels: tuple[Kernel, ...]
    launches: int
    events: tuple[Event, ...] = ()

    @property
    def kernel_time_us(self) -> float:
        return sum(k.time_us for k in self.kernels)


@dataclass(frozen=True)
class Environment:
    """Where and when the capture ran: its provenance."""

    device_kind: str  # "cuda" | "cpu"
    device_name: str
    torch: str
    python: str
    platform: str
    captured_at: str  # UTC, ISO 8601
    compute_capability: str | None = None
    driver: str | None = None
    cuda: str | None = None
    triton: str | None = None
    git_commit: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Freshness:
    """Exactly what makes a capture stale when it changes."""

    source_hash: str
    format: int
    torch: str


@dataclass(frozen=True)
class Capture:
    """Everything one run of one snippet on one device kind produced."""

    snippet: str  # "ch01/eager_profile"
    device: str  # "cuda" | "cpu"
    freshness: Freshness
    environment: Environment
    wall_time_s: float
    stdout: str
    stderr: str
    sessions: tuple[Session, ...]
    data: Any = None  # the snippet's top-level ``results``, when JSON-serialisable
    trace_files: tuple[str, ...] = ()  # gzipped Chrome traces beside the capture, one per session
    stderr_dropped: int = 0  # the profiler's own USDT lines left out of stderr (capture/stderr.py)
    previous: Summary | None = None  # the capture this one replaced, in brief (summaries.py); None: it replaced none

    @property
    def last_session(self) -> Session | None:
        return self.sessions[-1] if self.sessions else None


# ---------------------------------------------------------------- to and from JSON


def to_json(capture: Capture) -> dict[str, Any]:
    raw = asdict(capture)
    raw["stdout"] = capture.stdout.splitlines()
    raw["stderr"] = capture.stderr.splitlines()
    if capture.previous is None:  # a first capture: no `previous` at all, as before the field existed
        del raw["previous"]
    return {"schema": SCHEMA, **raw}


def dumps(capture: Capture) -> str:
    return _compact(to_json(capture)) + "\n"


def _compact(value: Any, indent: int = 0) -> str:
    """JSON with one line per scalar-only object or list: short lines, readable diffs."""
    pad = " " * (indent + 1)
    if isinstance(value, dict) and value and not _flat(value):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_compact(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list) and value and not _flat(value):
        items = [pad + _compact(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return json.dumps(value, ensure_ascii=False)


def _flat(value: dict | list) -> bool:
    values = value.values() if isinstance(value, dict) else value
    if isinstance(value, list) and all(isinstance(v, str) for v in values) and len(value) > 1:
        return False  # lines of output: one per line
    return all(not isinstance(v, (dict, list)) or not v for v in values)


_FIELDS = {"schema"} | {f.name for f in fields(Capture)}
# A snippet's id, and the names of its trace sidecars: the names `snippets.discover` accepts.
SNIPPET_ID = re.compile(r"[a-z0-9_]+/[a-z0-9_]+")
TRACE_NAME = re.compile(r"[a-z0-9_]+\.(cuda(-[a-z0-9_]+)?|cpu)\.trace\d+\.json\.gz")
CAPTURED_AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
SOURCE_HASH = re.compile(r"[0-9a-f]{64}")
EVENT_KINDS = ("kernel", "launch", "op", "region", "graph", "eager")  # capture/kernels.py says which is which
OUTPUT_CAP = 256 * 1024  # bytes of stdout, and of stderr, a capture keeps (capture/child.py cuts the rest)
MAX_OUTPUT_CHARS = OUTPUT_CAP + 256  # decoded, plus the line saying how much was cut
MAX_CAPTURE_BYTES = 64 * MiB  # stdout and stderr are capped at capture; this is far above any real capture


def from_json(raw: Any, where: str) -> Capture:
    """Validate and build a Capture; ``where`` names the file in errors.

    Every value is checked as the published schema states it (types, ranges, patterns,
    finite numbers), and what a schema cannot state: labels and counts that agree.
    """
    if not isinstance(raw, dict):
        raise CaptureError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    schema = raw.get("schema")
    if schema != SCHEMA:
        raise CaptureError(f"{where}: schema is {schema!r}, this kernelbook reads {SCHEMA!r}; re-run `kernelbook capture`")
    unknown = sorted(set(raw) - _FIELDS)
    if unknown:  # written by another layout of the same format: never read it as this one
        raise CaptureError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; re-run `kernelbook capture --force`")
    try:
        capture = _capture(raw)
    except v.Invalid as exc:
        raise CaptureError(f"{where}: malformed capture: {exc}; re-run `kernelbook capture --force`") from None
    # Labels and numbers must agree, so a CPU run can never be shown as a GPU one.
    kinds = {capture.environment.device_kind, *(s.device_kind for s in capture.sessions)}
    if kinds != {capture.device}:
        raise CaptureError(f"{where}: says device {capture.device!r} but its environment/sessions say {sorted(kinds)}; re-run `kernelbook capture --force`")
    for s in capture.sessions:
        if s.launches != sum(k.count for k in s.kernels):
            raise CaptureError(f"{where}: session {s.index} counts {s.launches} launches but its kernels add up to {sum(k.count for k in s.kernels)}")
    return capture


def _capture(raw: dict) -> Capture:
    return Capture(
        snippet=v.text(raw, "snippet", "", pattern=SNIPPET_ID),
        device=v.choice(raw, "device", "", ("cuda", "cpu")),
        freshness=_freshness(v.record_at(raw, "freshness", "", Freshness), "freshness"),
        environment=_environment(v.record_at(raw, "environment", "", Environment), "environment"),
        wall_time_s=v.number(raw, "wall_time_s", ""),
        stdout=_output(raw, "stdout"),
        stderr=_output(raw, "stderr"),
        sessions=tuple(_session(s, f"sessions[{i}]") for i, s in enumerate(v.listed(raw, "sessions", ""))),
        data=v.json_value(raw.get("data"), "data"),
        trace_files=tuple(v.texts(raw.get("trace_files", []), "trace_files", TRACE_NAME)),
        stderr_dropped=v.integer(raw, "stderr_dropped", "", default=0),
        previous=None if raw.get("previous") is None else summary_from_json(raw["previous"], "previous"),
    )


def _freshness(raw: dict, at: str) -> Freshness:
    return Freshness(v.text(raw, "source_hash", at, pattern=SOURCE_HASH), v.integer(raw, "format", at, minimum=1),
                     v.text(raw, "torch", at))


def _environment(raw: dict, at: str) -> Environment:
    optional = {name: v.text(raw, name, at, optional=True)
                for name in ("compute_capability", "driver", "cuda", "triton", "git_commit")}
    settings = raw.get("settings", {})
    if not isinstance(settings, dict):
        raise v.Invalid(f"{at}.settings is {v.show(settings)}, expected an object")
    v.json_value(settings, f"{at}.settings")
    return Environment(
        device_kind=v.choice(raw, "device_kind", at, ("cuda", "cpu")),
        device_name=v.text(raw, "device_name", at, empty=False),
        torch=v.text(raw, "torch", at),
        python=v.text(raw, "python", at),
        platform=v.text(raw, "platform", at),
        captured_at=captured_at(v.text(raw, "captured_at", at, pattern=CAPTURED_AT), f"{at}.captured_at"),
        settings=settings,
        **optional,
    )


def captured_at(text: str, at: str) -> str:
    """``text`` when it is a real UTC time (the pattern lets 2026-02-30 through); else ``validation.Invalid``."""
    try:
        datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        raise v.Invalid(f"{at} is {v.show(text)}, not a date and time (UTC, e.g. 2026-01-02T03:04:05Z)") from None
    return text


def _session(raw: Any, at: str) -> Session:
    raw = v.record(raw, at, Session)
    return Session(
        index=v.integer(raw, "index", at),
        device_kind=v.choice(raw, "device_kind", at, ("cuda", "cpu")),
        kernels=tuple(_kernel(k, f"{at}.kernels[{i}]") for i, k in enumerate(v.listed(raw, "kernels", at))),
        launches=v.integer(raw, "launches", at),
        events=tuple(_event(e, f"{at}.events[{i}]") for i, e in enumerate(v.listed(raw, "events", at, default=[]))),
    )


def _kernel(raw: Any, at: str) -> Kernel:
    raw = v.record(raw, at, Kernel)
    return Kernel(v.text(raw, "name", at, empty=False), v.integer(raw, "count", at, minimum=1), v.number(raw, "time_us", at))


def _event(raw: Any, at: str) -> Event:
    raw = v.record(raw, at, Event)
    return Event(v.choice(raw, "kind", at, EVENT_KINDS), v.text(raw, "name", at),
                 v.number(raw, "ts_us", at, minimum=None), v.number(raw, "dur_us", at))


def _output(raw: dict, key: str) -> str:
    """stdout/stderr: stored one string per line, read back as text."""
    lines = v.get(raw, key, "")
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise v.Invalid(f"{key} is {v.show(lines)}, expected a list of strings (one per line)")
    text = "\n".join(lines) + ("\n" if lines else "")
    if len(text) > MAX_OUTPUT_CHARS:  # capture keeps at most OUTPUT_CAP bytes, each at most one character
        raise v.Invalid(f"{key} holds {len(text)} characters, over the {OUTPUT_CAP // 1024} KB of output a capture keeps")
    return text


def load(path: Path) -> Capture:
    """Read and validate a capture file; CaptureError (one line naming the file) on anything unusable."""
    try:
        raw = parse_json(read_bounded(path, MAX_CAPTURE_BYTES, gzipped=False), str(path))
    except InputError as exc:
        raise CaptureError(str(exc)) from None
    return from_json(raw, str(path))


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, so readers never see half a file."""
    temp = temp_beside(path, data)
    try:
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def temp_beside(path: Path, data: bytes) -> Path:
    """``data`` written in full to a new hidden file beside ``path``, ready to be renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; captures are shared, committed files
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)
