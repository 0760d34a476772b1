"""Is a capture still true of its snippet? Decided without importing torch."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .. import CAPTURE_FORMAT
from . import gpus, machine
from ..safety.errors import KernelbookError
from ..safety.files import fingerprint
from .records import Capture, CaptureError, load
from .snippets import Snippet, discover, source_hash


@dataclass(frozen=True)
class State:
    """One snippet × device: fresh, stale (with why), missing, error or unreadable."""

    snippet: Snippet
    device: str
    state: str  # "fresh" | "stale" | "missing" | "error" | "unreadable"
    reason: str = ""
    capture: Capture | None = None
    changed: tuple[str, ...] = ()  # what made it stale: "source", "format", "torch", or an environment field

    @property
    def true_of_source(self) -> bool:
        """Fresh, or stale only because the machine differs: still a true record of this snippet's run."""
        return self.state == "fresh" or (self.state == "stale" and not {"source", "format"} & set(self.changed))


# Another machine's clock may run a little ahead of this one's; a capture dated later than that is no clock, but a forged date.
CLOCK_MARGIN = timedelta(days=1)


def brought_problem(capture: Capture, now: datetime | None = None) -> str | None:
    """Why a capture brought from elsewhere (``merge``, ``pack``) must not go into the tree; None: it may.

    Another capture format is one the build never shows (it is stale however fresh its source);
    a ``captured_at`` after this machine's clock (plus a margin) would make every real, later
    capture look older than it.
    """
    if capture.freshness.format != CAPTURE_FORMAT:
        return (f"it records capture format {capture.freshness.format}, which this kernelbook's build cannot show "
                f"(it shows format {CAPTURE_FORMAT}); capture it again with this tree's kernelbook")
    when = parse_captured_at(capture.environment.captured_at)
    now = now or datetime.now(timezone.utc)
    if when > now + CLOCK_MARGIN:
        return (f"its captured_at {capture.environment.captured_at} is in the future (this machine's clock: "
                f"{now.strftime('%Y-%m-%dT%H:%M:%SZ')}); a capture records when it ran: capture it again")
    return None


def parse_captured_at(text: str) -> datetime:
    """A capture's ``captured_at`` (validated by ``records`` on load) as an aware UTC datetime."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def installed_torch() -> str | None:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def cuda_present() -> bool:
    """An NVIDIA driver is visible to this process (cheap: no torch import)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return False
    return Path("/proc/driver/nvidia/version").exists() or shutil.which("nvidia-smi") is not None


def runnable_devices() -> tuple[str, ...]:
    return ("cuda", "cpu") if cuda_present() else ("cpu",)


def this_gpu_key() -> str | None:
    """The key of the GPU this process would capture on (``gpus.gpu_key``), None without one."""
    if not cuda_present():
        return None
    gpu = machine.nvidia_gpu()
    return gpus.gpu_key(gpu[0], gpu[1]) if gpu else None


def slots(snippet: Snippet, reference: str | None = None) -> list[str]:
    """The capture slots to report for ``snippet``: the reference GPU's (also when missing), every CUDA capture, the CPU's.

    With no reference GPU configured, an unkeyed ``cuda`` slot stands for it, as before keys.
    """
    found = snippet.cuda_slots()
    wanted = gpus.slot(reference)
    if wanted not in found and not _legacy_is(snippet, found, reference):
        found = [wanted, *found]
    return [*found, "cpu"]


def is_reference(snippet: Snippet, slot_name: str, reference: str | None) -> bool:
    """Is ``slot_name`` the capture of the book's reference GPU (any CUDA capture when none is configured)?"""
    if gpus.device_of(slot_name) != "cuda":
        return False
    if reference is None:
        return True
    return slot_name == gpus.slot(reference) or (slot_name == "cuda" and _legacy_is(snippet, ["cuda"], reference))


def _legacy_is(snippet: Snippet, found: list[str], reference: str | None) -> bool:
    """An unkeyed ``cuda`` capture of the reference GPU stands for its keyed one."""
    if "cuda" not in found or reference is None:
        return False
    try:
        env = load(snippet.capture_path("cuda")).environment
    except CaptureError:
        return False
    return gpus.gpu_key(env.device_name, env.compute_capability) == reference


def failure_path(root: Path, snippet: Snippet, device: str) -> Path:
    return root / ".kernelbook" / "failures" / f"{snippet.id.replace('/', '__')}.{device}.txt"


def assess(root: Path, snippet: Snippet, device: str, runnable: tuple[str, ...], torch_now: str | None,
           failures: bool = True) -> State:
    """Compare the capture on disk with what would be captured now.

    ``failures``: report a newer failed run of the same source as ``error`` (for status
    and planning); pages pass False, since a failed re-run never replaced the capture.
    """
    path = snippet.capture_path(device)
    try:
        current = source_hash(snippet.path)
    except KernelbookError as exc:  # the snippet (or a helper) is not UTF-8: nothing can be compared
        return State(snippet, device, "unreadable", str(exc))
    failed = failure_path(root, snippet, device)
    if failures and failed.exists() and failed.read_text(encoding="utf-8").startswith(current):
        if not path.exists() or failed.stat().st_mtime >= path.stat().st_mtime:
            return State(snippet, device, "error", failed.read_text(encoding="utf-8").split("\n", 2)[1])
    if not path.exists():
        return State(snippet, device, "missing", "no capture yet")
    try:
        capture = load(path)
    except CaptureError as exc:
        return State(snippet, device, "unreadable", str(exc))
    kind, key = gpus.device_of(device), gpus.key_of(device)
    if capture.snippet != snippet.id or capture.device != kind:
        return State(snippet, device, "unreadable", f"{path}: records {capture.snippet}/{capture.device}, expected {snippet.id}/{kind}")
    recorded = gpus.gpu_key(capture.environment.device_name, capture.environment.compute_capability) if kind == "cuda" else None
    if key is not None and recorded != key:
        return State(snippet, device, "unreadable", f"{path}: records GPU {capture.environment.device_name} "
                     f"(key {recorded}), but its name says {key}; re-capture it, or rename it to its GPU's key")
    if key is not None and kind in runnable and this_gpu_key() not in (None, recorded):
        runnable = tuple(d for d in runnable if d != "cuda")  # another GPU model's capture: this machine cannot re-run it
    why: dict[str, str] = {}
    if capture.freshness.source_hash != current:
        why["source"] = "source changed"
    if capture.freshness.format != CAPTURE_FORMAT:
        why["format"] = f"capture format {capture.freshness.format} -> {CAPTURE_FORMAT}"
    # The machine counts only where this device kind can run now: a CPU-only machine
    # never calls a GPU runner's capture stale because its own torch (or GPU) differs.
    if kind in runnable and torch_now and capture.freshness.torch != torch_now:
        why["torch"] = f"torch changed ({capture.freshness.torch} -> {torch_now})"
    if kind == "cuda" and kind in runnable:
        why.update(cuda_changes(capture, machine.cuda_environment()))
    elif kind in runnable and torch_now:  # no torch here (the plan job): nothing runs, nothing to compare
        why.update(triton_change(capture, machine.triton_version()))
    if why:
        return State(snippet, device, "stale", ", ".join(why.values()), capture, tuple(why))
    return State(snippet, device, "fresh", "", capture)


# What a CUDA capture records of its machine that changes what it shows (kernel names,
# times, generated code): (field, how status names it, how to compare it).
CUDA_FIELDS = (
    ("device_name", "GPU", str),
    ("compute_capability", "compute capability", str),
    ("cuda", "CUDA runtime", str),
    ("driver", "driver major version", machine.driver_major),
    ("triton", "triton", str),
)


def cuda_changes(capture: Capture, now: machine.CudaEnvironment) -> dict[str, str]:
    """The CUDA environment fields in which this machine differs from the capture's.

    A field this machine cannot tell (no nvidia-smi answer) is not compared; the CUDA
    runtime and triton always can be (None: this torch has no CUDA, no triton installed).
    """
    changes = {}
    for name, words, key in CUDA_FIELDS:
        then, current = getattr(capture.environment, name), getattr(now, name)
        if current is None and name in ("device_name", "compute_capability", "driver"):
            continue
        then, current = (key(v) if v is not None else None for v in (then, current))
        if name == "device_name" and then is not None and machine.same_gpu(then, current):
            continue
        if then != current:
            changes[name] = f"{words} changed ({then or 'none'} -> {current or 'none'})"
    return changes


def triton_change(capture: Capture, now: str | None) -> dict[str, str]:
    """A CPU capture is stale when triton is installed, removed or upgraded since it ran.

    On a CPU triton changes what inductor does before any kernel runs (torch imports it
    when present), and with it what a capture shows: the ``graph_N_`` number of a compiled
    C++ kernel (chapter 3), the interpreter's behaviour in chapter 4's kernels.
    """
    then = capture.environment.triton
    if then == now:
        return {}
    return {"triton": f"triton changed ({then or 'none'} -> {now or 'none'})"}


def check_inputs(root: Path, folder: str = "snippets") -> None:
    """Every snippet readable (named as :data:`snippets.NAME` says, UTF-8) and every capture
    file usable: the first one that is not, as a one-line KernelbookError naming it.

    For the commands that render (build, serve, notebooks): a broken input is named before
    any work starts, instead of failing the build halfway. Files found usable are not read
    again while unchanged (each language build and each ``mkdocs serve`` rebuild checks them).
    """
    key = (str(root), folder, fingerprint(root / folder))
    if key in _CHECKED:
        return
    _check_inputs(root, folder)
    _CHECKED.clear()
    _CHECKED.add(key)


_CHECKED: set[tuple] = set()  # the last snippets folder found usable, by its files


def _check_inputs(root: Path, folder: str) -> None:
    for snippet in discover(root, folder):
        source_hash(snippet.path)
        for device in ("cpu", *snippet.cuda_slots()):
            path = snippet.capture_path(device)
            if not path.exists() and not path.is_symlink():
                continue
            try:
                capture = load(path)
            except CaptureError as exc:
                raise KernelbookError(f"{exc} (re-run `kernelbook capture --device {gpus.device_of(device)} {snippet.id}`, or delete it)") from None
            if capture.snippet != snippet.id or capture.device != gpus.device_of(device):
                raise KernelbookError(f"{path}: records {capture.snippet} ({capture.device}), expected {snippet.id} ({gpus.device_of(device)})")
