"""Which kernels a profiled run launched, from Chrome/Kineto trace events. Pure.

CUDA rule: a kernel is an event with ``cat == "kernel"``. Memcpy, memset, syncs and
``gpu_user_annotation`` ranges also run on the GPU but are not kernels; the
``## Call CompiledFxGraph … ##`` annotation spans compiled kernels, so counting it
would count them twice.

CPU rule: the innermost ``aten::`` ops that do work (not allocations, views or other
metadata-only ops such as ``resolve_conj``, which ``mm`` calls on its inputs), plus
inductor's ``cpp_fused_*`` kernels (visible when the snippet sets
``cpp.enable_kernel_profile``). Eager ``(a + b).relu()`` is then 2 kernels (add,
clamp_min) and compiled is 1. What an op does to its own arguments or output inside
itself (``x + 1`` wraps and casts the 1 with ``aten::to``; ``sum`` zero-fills its output)
is part of that op, not a kernel. A ``record_function("triton: NAME")`` range (a
``user_annotation``) is one launch of kernel ``NAME``: Triton's interpreter runs a launch
on the CPU as a few ``aten::`` copies, which belong to that launch and are not counted.

Besides kernels, a session keeps timed events for pictures (``Event.kind``): ``kernel``,
``launch`` (CUDA launch calls), ``op`` (CPU ops not inside another op), and on both
devices the compiled regions of ``torch.compile``: ``region`` (each CPU-side
``Torch-Compiled Region: F/C`` range, one per piece Dynamo compiled; the piece after a
graph break runs inside the one before it), ``graph`` (each ``## Call CompiledFxGraph …
##`` range, one call of inductor's code) and ``eager`` (the outermost ``aten::`` ops a
region ran outside its graph calls: the Python between graphs, e.g. the ``.item()`` a
graph break needs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..safety.files import MiB, InputError, finite_number, parse_json, read_bounded
from ..common.kernel_names import TRITON_RANGE  # a user_annotation range "triton: NAME" is one launch of NAME
from ..common.records import Event, Kernel

GPU_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "cuda_sync", "gpu_user_annotation"}
LAUNCH_CATEGORIES = {"cuda_runtime", "cuda_driver"}

# Leaf CPU ops that allocate, reshape or look at metadata: no pass over the data.
NO_WORK_OPS = frozenset(
    "aten::" + name
    for name in (
        "empty empty_strided empty_like new_empty new_empty_strided view as_strided reshape "
        "_reshape_alias _unsafe_view resize_ detach detach_ alias t transpose permute expand "
        "unsqueeze squeeze select slice lift_fresh set_ result_type size stride is_nonzero "
        "_local_scalar_dense item contiguous to _to_copy_meta numpy_T "
        # metadata-only: a flag on the tensor or another view of it, never a pass over the data
        "resolve_conj resolve_neg conj _conj _neg_view view_as expand_as narrow unfold diagonal "
        "movedim swapaxes split split_with_sizes chunk unbind unflatten"
    ).split()
)

# The ranges torch.compile's code runs in: Dynamo's compiled regions and inductor's graph calls.
REGION_RANGE = "Torch-Compiled Region"
GRAPH_RANGE = "## Call CompiledFxGraph"
CPU_RANGE_CATEGORIES = {"cpu_op", "user_annotation"}  # CPU-side; never their gpu_user_annotation mirrors


# Ops that, called directly inside a working op, are that op preparing its own
# arguments or output: the enclosing op stays the kernel (``x + 1`` is aten::add).
NESTED_HELPER_OPS = frozenset("aten::" + name for name in "to _to_copy copy_ fill_ zero_ scalar_tensor".split())


class TraceError(ValueError):
    """A trace file that cannot be read; the message names the file and the problem."""


@dataclass(frozen=True)
class Extraction:
    """The kernels one profiling session launched, and its timed events for pictures."""

    device_kind: str  # "cuda" | "cpu"
    kernels: tuple[Kernel, ...]
    launches: int
    events: tuple[Event, ...]


def is_cuda_trace(trace: Mapping[str, Any]) -> bool:
    if trace.get("deviceProperties"):
        return True
    return any(e.get("cat") in GPU_CATEGORIES for e in _complete(trace["traceEvents"]))


def extract(trace: Mapping[str, Any], device_kind: str | None = None) -> Extraction:
    """Kernels and timed events of one Chrome trace (``{"traceEvents": [...]}``)."""
    events = list(_complete(trace["traceEvents"]))
    kind = device_kind or ("cuda" if is_cuda_trace(trace) else "cpu")
    cpu_ops = [e for e in events if e.get("cat") == "cpu_op"]
    if kind == "cuda":
        kernel_events = [e for e in events if e.get("cat") == "kernel"]
        launch_events = [e for e in events if e.get("cat") in LAUNCH_CATEGORIES and "Launch" in e["name"]]
    else:
        cpu_ops += [e for e in events if _triton_range(e)]  # an interpreted Triton launch: one op, one kernel
        kernel_events = _cpu_kernels(cpu_ops)
        launch_events = []
    timed = (
        [("kernel", e) for e in kernel_events]
        + [("launch", e) for e in launch_events]
        + [("op", e) for e in _roots(cpu_ops)]
        + compiled_regions(events)
    )
    origin = min((float(e["ts"]) for _, e in timed), default=0.0)
    kept = tuple(
        sorted(
            (Event(kind_, e["name"], round(float(e["ts"]) - origin, 3), round(float(e.get("dur", 0)), 3)) for kind_, e in timed),
            key=lambda ev: (ev.ts_us, ev.kind),
        )
    )
    return Extraction(kind, summarise(kernel_events), len(kernel_events), kept)


def is_cpu_kernel(name: str) -> bool:
    return "cpp_fused_" in name or (name.startswith("aten::") and name not in NO_WORK_OPS)


def _triton_range(e: Mapping[str, Any]) -> bool:
    return e.get("cat") == "user_annotation" and str(e["name"]).startswith(TRITON_RANGE) and len(e["name"]) > len(TRITON_RANGE)


def summarise(kernel_events: Iterable[Mapping[str, Any]]) -> tuple[Kernel, ...]:
    """Group by name, in order of first launch: name, launches, total time (µs)."""
    counts: dict[str, list[float]] = {}
    for e in sorted(kernel_events, key=lambda e: float(e["ts"])):
        entry = counts.setdefault(e["name"], [0, 0.0])
        entry[0] += 1
        entry[1] += float(e.get("dur", 0))
    return tuple(Kernel(name, int(n), round(t, 3)) for name, (n, t) in counts.items())


def _complete(raw: Any) -> Iterable[dict]:
    """Complete ('X') events with a name and a start time."""
    return (e for e in raw if isinstance(e, dict) and e.get("ph") == "X" and "name" in e and "ts" in e)


def _by_thread(ops: list[dict]) -> dict[Any, list[dict]]:
    threads: dict[Any, list[dict]] = {}
    for e in ops:
        threads.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    for evs in threads.values():
        evs.sort(key=lambda e: (float(e["ts"]), -float(e.get("dur", 0))))
    return threads


def _cpu_kernels(ops: list[dict]) -> list[dict]:
    """Working ops with no other working op inside them on the same thread.

    A helper op (``NESTED_HELPER_OPS``) directly inside a working op, and everything
    inside that helper, belongs to the enclosing op and is not looked at on its own.
    A ``triton: NAME`` range is one launch of kernel ``NAME`` (reported under that
    name), and everything inside it belongs to that launch.
    """
    found = []
    for evs in _by_thread(ops).values():
        stack: list[list] = []  # [event as reported, end, working, swallows what is inside, has working op inside]

        def close(entry: list) -> None:
            if entry[2] and not entry[4]:
                found.append(entry[0])

        for e in evs:
            start = float(e["ts"])
            while stack and stack[-1][1] <= start:
                close(stack.pop())
            parent = stack[-1] if stack else None
            dropped = parent is not None and (parent[3] or (parent[2] and e["name"] in NESTED_HELPER_OPS))
            launch = not dropped and _triton_range(e)
            working = not dropped and (launch or is_cpu_kernel(e["name"]))
            if working:
                for entry in stack:
                    entry[4] = True
            reported = dict(e, name=e["name"][len(TRITON_RANGE):].strip()) if launch else e
            stack.append([reported, start + float(e.get("dur", 0)), working, dropped or launch, False])
        while stack:
            close(stack.pop())
    return found


def compiled_regions(events: list[dict]) -> list[tuple[str, dict]]:
    """``torch.compile``'s ranges as (kind, event): ``region``, ``graph``, and ``eager`` for the
    outermost ``aten::`` ops run inside a region but outside any graph call, on the same thread."""
    ranges = [e for e in events if e.get("cat") in CPU_RANGE_CATEGORIES]
    found: list[tuple[str, dict]] = []
    for evs in _by_thread(ranges).values():
        stack: list[tuple[float, str]] = []  # (end, role) of the ranges the next event starts inside
        for e in evs:
            start, name = float(e["ts"]), str(e["name"])
            while stack and stack[-1][0] <= start:
                stack.pop()
            roles = {role for _, role in stack}
            role = "region" if name.startswith(REGION_RANGE) else "graph" if name.startswith(GRAPH_RANGE) else "other"
            if role in ("region", "graph"):
                found.append((role, e))
            elif name.startswith("aten::") and "region" in roles and not roles & {"graph", "eager"}:
                role = "eager"
                found.append((role, e))
            stack.append((start + float(e.get("dur", 0)), role))
    return found


def _roots(ops: list[dict]) -> list[dict]:
    """Ops not nested inside another op on the same thread."""
    roots = []
    for evs in _by_thread(ops).values():
        end = float("-inf")
        for e in evs:
            if float(e["ts"]) >= end:
                roots.append(e)
                end = float(e["ts"]) + float(e.get("dur", 0))
    return roots


# ---------------------------------------------------------------- reading trace files

MAX_TRACE_BYTES = 100 * MiB  # a trace (inflated) larger than this is refused, not read into memory


def read_json(path: Path) -> Any:
    """The JSON in ``path`` (``.json``, or gzipped), bounded and strict; TraceError names file and problem."""
    try:
        return parse_json(read_bounded(path, MAX_TRACE_BYTES), str(path))
    except InputError as exc:
        raise TraceError(str(exc).replace("not valid JSON", "not JSON")) from None


def load_trace(path: Path) -> dict[str, Any]:
    """A Chrome trace from ``.json`` or ``.json.gz``; TraceError names file and problem."""
    return validate_trace(read_json(path), str(path))


def validate_trace(trace: Any, where: str) -> dict[str, Any]:
    """A Chrome trace whose complete events all have a name, a finite start and a finite duration >= 0."""
    if not isinstance(trace, dict) or "traceEvents" not in trace:
        raise TraceError(f"{where}: not a Chrome trace (no 'traceEvents' key)")
    if not isinstance(trace["traceEvents"], list):
        raise TraceError(f"{where}: 'traceEvents' is not a list")
    complete = 0
    for i, event in enumerate(trace["traceEvents"]):
        if not isinstance(event, dict) or event.get("ph") != "X":
            continue
        name = event.get("name")
        what = f"{where}: traceEvents[{i}] ({name!r})" if isinstance(name, str) else f"{where}: traceEvents[{i}]"
        if not isinstance(name, str):
            raise TraceError(f"{what}: a complete event without a name")
        for key in ("ts", "dur"):
            if key not in event:
                raise TraceError(f"{what}: a complete event without {key!r}")
            value = event[key]
            if not finite_number(value) or (key == "dur" and value < 0):
                raise TraceError(f"{what}: {key} is {value!r}, expected a finite number" + (" >= 0" if key == "dur" else ""))
        complete += 1
    if not complete:
        raise TraceError(f"{where}: the trace is empty (no complete events); was anything run under the profiler?")
    return trace


def read_kernels(path: Path) -> tuple[tuple[Kernel, ...], int, str]:
    """``kernelbook kernels FILE``: (kernels, launches, device kind) of a capture or a Chrome trace,
    told apart by content; anything unusable is one KernelbookError naming the file."""
    from ..safety.errors import KernelbookError
    from ..common.records import SCHEMA, CaptureError, from_json

    if not path.exists() and not path.is_symlink():
        raise KernelbookError(f"{path}: no such file")
    try:
        raw = read_json(path)  # bounded, strict JSON
        if isinstance(raw, dict) and str(raw.get("schema", "")).startswith(SCHEMA.rsplit("/", 1)[0] + "/"):
            cap = from_json(raw, str(path))
            session = cap.last_session
            return (tuple(session.kernels), session.launches, session.device_kind) if session else ((), 0, cap.device)
        found = extract(validate_trace(raw, str(path)))
        return tuple(found.kernels), found.launches, found.device_kind
    except (TraceError, CaptureError) as exc:
        raise KernelbookError(str(exc)) from None
    except (KeyError, TypeError, ValueError) as exc:  # events of some other wrong shape
        raise KernelbookError(f"{path}: a trace event is malformed ({type(exc).__name__}: {exc})") from None
