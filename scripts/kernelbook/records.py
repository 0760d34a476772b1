"""The capture file ``kernelbook.capture/1``: frozen records, and their JSON form (validated on load). Pure.

The one thing both halves share: ``capture`` writes these files, ``site`` reads them.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from .files import MiB, InputError, finite_number, parse_json, read_bounded

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
# A snippet's id, and the names of its trace sidecars: the names `snippets.discover` accepts.
SNIPPET_ID = re.compile(r"[a-z0-9_]+/[a-z0-9_]+")
TRACE_NAME = re.compile(r"[a-z0-9_]+\.(cuda|cpu)\.trace\d+\.json\.gz")
CAPTURED_AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
SOURCE_HASH = re.compile(r"[0-9a-f]{64}")
EVENT_KINDS = ("kernel", "launch", "op", "region", "graph", "eager")  # capture/kernels.py says which is which
MAX_CAPTURE_BYTES = 64 * MiB  # stdout and stderr are capped at capture; this is far above any real capture


class _Invalid(ValueError):
    """One field that breaks the format: its path in the JSON and what is wrong with it."""


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
    except _Invalid as exc:
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
        snippet=_text(raw, "snippet", "", pattern=SNIPPET_ID),
        device=_choice(raw, "device", "", ("cuda", "cpu")),
        freshness=_freshness(_object(raw, "freshness", "", Freshness), "freshness"),
        environment=_environment(_object(raw, "environment", "", Environment), "environment"),
        wall_time_s=_number(raw, "wall_time_s", ""),
        stdout=_output(raw, "stdout"),
        stderr=_output(raw, "stderr"),
        sessions=tuple(_session(s, f"sessions[{i}]") for i, s in enumerate(_list(raw, "sessions", ""))),
        data=raw.get("data"),
        trace_files=tuple(_each_text(raw.get("trace_files", []), "trace_files", TRACE_NAME)),
        stderr_dropped=_integer(raw, "stderr_dropped", "", default=0),
    )


def _freshness(raw: dict, at: str) -> Freshness:
    return Freshness(_text(raw, "source_hash", at, pattern=SOURCE_HASH), _integer(raw, "format", at, minimum=1),
                     _text(raw, "torch", at))


def _environment(raw: dict, at: str) -> Environment:
    optional = {name: _text(raw, name, at, optional=True)
                for name in ("compute_capability", "driver", "cuda", "triton", "git_commit")}
    settings = raw.get("settings", {})
    if not isinstance(settings, dict):
        raise _Invalid(f"{at}.settings is {_show(settings)}, expected an object")
    return Environment(
        device_kind=_choice(raw, "device_kind", at, ("cuda", "cpu")),
        device_name=_text(raw, "device_name", at, empty=False),
        torch=_text(raw, "torch", at),
        python=_text(raw, "python", at),
        platform=_text(raw, "platform", at),
        captured_at=_text(raw, "captured_at", at, pattern=CAPTURED_AT),
        settings=settings,
        **optional,
    )


def _session(raw: Any, at: str) -> Session:
    raw = _fields(raw, at, Session)
    return Session(
        index=_integer(raw, "index", at),
        device_kind=_choice(raw, "device_kind", at, ("cuda", "cpu")),
        kernels=tuple(_kernel(k, f"{at}.kernels[{i}]") for i, k in enumerate(_list(raw, "kernels", at))),
        launches=_integer(raw, "launches", at),
        events=tuple(_event(e, f"{at}.events[{i}]") for i, e in enumerate(_list(raw, "events", at, default=[]))),
    )


def _kernel(raw: Any, at: str) -> Kernel:
    raw = _fields(raw, at, Kernel)
    return Kernel(_text(raw, "name", at, empty=False), _integer(raw, "count", at, minimum=1), _number(raw, "time_us", at))


def _event(raw: Any, at: str) -> Event:
    raw = _fields(raw, at, Event)
    return Event(_choice(raw, "kind", at, EVENT_KINDS), _text(raw, "name", at),
                 _number(raw, "ts_us", at, minimum=None), _number(raw, "dur_us", at))


# ------------------------------------------------ one value each: the schema's rules, with the path in the message


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _get(raw: dict, key: str, at: str, default: Any = ...) -> Any:
    if key not in raw:
        if default is not ...:
            return default
        raise _Invalid(f"{_path(at, key)} is missing")
    return raw[key]


def _path(at: str, key: str) -> str:
    return f"{at}.{key}" if at else key


def _fields(raw: Any, at: str, record: type) -> dict:
    if not isinstance(raw, dict):
        raise _Invalid(f"{at} is {_show(raw)}, expected an object")
    unknown = sorted(set(raw) - {f.name for f in fields(record)})
    if unknown:
        raise _Invalid(f"{at} has unknown field(s) {', '.join(map(repr, unknown))}")
    return raw


def _object(raw: dict, key: str, at: str, record: type) -> dict:
    return _fields(_get(raw, key, at), _path(at, key), record)


def _list(raw: dict, key: str, at: str, default: Any = ...) -> list:
    value = _get(raw, key, at, default)
    if not isinstance(value, list):
        raise _Invalid(f"{_path(at, key)} is {_show(value)}, expected a list")
    return value


def _text(raw: dict, key: str, at: str, *, pattern: re.Pattern | None = None, empty: bool = True,
          optional: bool = False) -> str | None:
    value = _get(raw, key, at, None if optional else ...)
    if value is None and optional:
        return None
    if not isinstance(value, str) or (not empty and not value) or (pattern is not None and not pattern.fullmatch(value)):
        wanted = f"a string matching {pattern.pattern}" if pattern is not None else "a non-empty string" if not empty else "a string"
        raise _Invalid(f"{_path(at, key)} is {_show(value)}, expected {wanted}{' or null' if optional else ''}")
    return value


def _each_text(value: Any, at: str, pattern: re.Pattern) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and pattern.fullmatch(v) for v in value):
        raise _Invalid(f"{at} is {_show(value)}, expected a list of names matching {pattern.pattern}")
    return value


def _choice(raw: dict, key: str, at: str, allowed: tuple[str, ...]) -> str:
    value = _get(raw, key, at)
    if value not in allowed:
        raise _Invalid(f"{_path(at, key)} is {_show(value)}, expected one of {', '.join(allowed)}")
    return value


def _integer(raw: dict, key: str, at: str, minimum: int = 0, default: Any = ...) -> int:
    value = _get(raw, key, at, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _Invalid(f"{_path(at, key)} is {_show(value)}, expected an integer >= {minimum}")
    return value


def _number(raw: dict, key: str, at: str, minimum: float | None = 0) -> float:
    value = _get(raw, key, at)
    if not finite_number(value) or (minimum is not None and value < minimum):
        wanted = "a finite number" + (f" >= {minimum}" if minimum is not None else "")
        raise _Invalid(f"{_path(at, key)} is {_show(value)}, expected {wanted}")
    return float(value)


def _output(raw: dict, key: str) -> str:
    """stdout/stderr: stored one string per line, read back as text."""
    lines = _get(raw, key, "")
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise _Invalid(f"{key} is {_show(lines)}, expected a list of strings (one per line)")
    return "\n".join(lines) + ("\n" if lines else "")


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
