"""The capture file ``kernelbook.capture/1``: frozen records, and their JSON form (validated on load). Pure.

The one thing both halves share: ``capture`` writes these files, ``site`` reads them.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

# The file layout's version. CAPTURE_FORMAT (in freshness) is what the harness records:
# it can change while files keep this layout (old files then read, and are stale).
LAYOUT = 1
SCHEMA = f"kernelbook.capture/{LAYOUT}"
# The published JSON Schema of that format, shipped with the package: for other tools, and
# for the tests, which check every committed capture against it. Reading a capture here
# needs no jsonschema (the capture side is standard library only): from_json checks the
# same rules, and some a schema cannot state.
SCHEMA_FILE = Path(__file__).with_name("capture.schema.json")


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

    @property
    def last_session(self) -> Session | None:
        return self.sessions[-1] if self.sessions else None


# ---------------------------------------------------------------- to and from JSON


def to_json(capture: Capture) -> dict[str, Any]:
    raw = asdict(capture)
    raw["stdout"] = capture.stdout.splitlines()
    raw["stderr"] = capture.stderr.splitlines()
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


def from_json(raw: Any, where: str) -> Capture:
    """Validate and build a Capture; ``where`` names the file in errors."""
    if not isinstance(raw, dict):
        raise CaptureError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    schema = raw.get("schema")
    if schema != SCHEMA:
        raise CaptureError(f"{where}: schema is {schema!r}, this kernelbook reads {SCHEMA!r}; re-run `kernelbook capture`")
    unknown = sorted(set(raw) - _FIELDS)
    if unknown:  # written by another layout of the same format: never read it as this one
        raise CaptureError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; re-run `kernelbook capture --force`")
    try:
        sessions = tuple(
            Session(
                index=int(s["index"]),
                device_kind=str(s["device_kind"]),
                kernels=tuple(Kernel(str(k["name"]), int(k["count"]), float(k["time_us"])) for k in s["kernels"]),
                launches=int(s["launches"]),
                events=tuple(Event(str(e["kind"]), str(e["name"]), float(e["ts_us"]), float(e["dur_us"])) for e in s.get("events", [])),
            )
            for s in raw["sessions"]
        )
        capture = Capture(
            snippet=str(raw["snippet"]),
            device=str(raw["device"]),
            freshness=Freshness(**raw["freshness"]),
            environment=Environment(**raw["environment"]),
            wall_time_s=float(raw["wall_time_s"]),
            stdout="\n".join(raw["stdout"]) + ("\n" if raw["stdout"] else ""),
            stderr="\n".join(raw["stderr"]) + ("\n" if raw["stderr"] else ""),
            sessions=sessions,
            data=raw.get("data"),
            trace_files=tuple(str(t) for t in raw.get("trace_files", [])),
            stderr_dropped=int(raw.get("stderr_dropped", 0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CaptureError(f"{where}: malformed capture ({type(exc).__name__}: {exc}); re-run `kernelbook capture --force`") from None
    if capture.device not in ("cuda", "cpu"):
        raise CaptureError(f"{where}: unknown device {capture.device!r}")
    # Labels and numbers must agree, so a CPU run can never be shown as a GPU one.
    kinds = {capture.environment.device_kind, *(s.device_kind for s in capture.sessions)}
    if kinds != {capture.device}:
        raise CaptureError(f"{where}: says device {capture.device!r} but its environment/sessions say {sorted(kinds)}; re-run `kernelbook capture --force`")
    for s in capture.sessions:
        if s.launches != sum(k.count for k in s.kernels):
            raise CaptureError(f"{where}: session {s.index} counts {s.launches} launches but its kernels add up to {sum(k.count for k in s.kernels)}")
    return capture


def load(path: Path) -> Capture:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CaptureError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaptureError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    return from_json(raw, str(path))


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; captures are shared, committed files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
