"""Parent side of ``kernelbook capture``: what is stale, one child per snippet, atomic writes.

A failed or timed-out run never replaces a good capture; failures are collected and
summarised at the end with the snippet's own file and line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

from .. import CAPTURE_FORMAT
from ..errors import KernelbookError
from ..freshness import assess, cuda_present, failure_path, installed_torch, runnable_devices
from ..records import CaptureError, dumps, from_json, write_atomic
from ..snippets import Snippet, source_hash
from .stderr import kept_lines

HEARTBEAT_S = 30.0


@dataclass(frozen=True)
class Outcome:
    snippet: Snippet
    device: str
    ok: bool
    seconds: float
    message: str = ""  # one line: why it failed
    where: str | None = None  # snippet file:line from the traceback


def resolve_device(requested: str) -> str:
    """``auto`` is the best device present; ``cuda`` without CUDA is a user error."""
    if requested == "cpu":
        return "cpu"
    if requested == "cuda" and not cuda_present():
        raise KernelbookError("--device cuda: no NVIDIA driver or GPU is visible on this machine; use --device cpu or run on a GPU machine")
    if requested == "auto" and not cuda_present():
        return "cpu"
    return "cuda"


def check_torch_cuda(python: str) -> None:
    """The driver is there; make sure this torch can use it before running anything."""
    probe = subprocess.run(
        [python, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)"],
        capture_output=True, text=True, timeout=120,
    )
    if probe.returncode != 0:
        raise KernelbookError("--device cuda: a GPU is visible but this torch cannot use it (torch.cuda.is_available() is False); install a CUDA build of torch")


def plan(root: Path, snippets: list[Snippet], device: str, force: bool) -> list[Snippet]:
    """The snippets whose capture on ``device`` is not fresh (all of them with ``force``)."""
    if force:
        return list(snippets)
    runnable, torch_now = runnable_devices(), installed_torch()
    return [s for s in snippets if assess(root, s, device, runnable, torch_now).state != "fresh"]


def git_commit(root: Path) -> str | None:
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "snippets"], cwd=root, capture_output=True, text=True, timeout=10)
        # -dirty: a snippet or helper differs from that commit (captures themselves don't count)
        edited = [line for line in dirty.stdout.splitlines() if "/captures/" not in line]
        return head.stdout.strip() + ("-dirty" if edited else "")
    except (OSError, subprocess.SubprocessError):
        return None


def run_all(
    root: Path,
    todo: list[Snippet],
    device: str,
    jobs: int,
    timeout: float,
    python: str = sys.executable,
    log: TextIO = sys.stderr,
) -> list[Outcome]:
    """Run each snippet in its own child process, ``jobs`` at a time; report progress."""
    commit = git_commit(root)
    started = time.monotonic()
    done: list[Outcome] = []

    def report(outcome: Outcome) -> None:
        done.append(outcome)
        status = "ok" if outcome.ok else "FAILED"
        print(
            f"[{len(done)}/{len(todo)}] {outcome.snippet.id} ({device}) {status} in {outcome.seconds:.1f}s"
            f" — elapsed {time.monotonic() - started:.0f}s",
            file=log, flush=True,
        )

    def one(snippet: Snippet) -> Outcome:
        print(f"      {snippet.id} ({device}) started", file=log, flush=True)
        outcome = run_one(root, snippet, device, timeout, python, commit, log, jobs)
        report(outcome)
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, todo))


def run_one(root: Path, snippet: Snippet, device: str, timeout: float, python: str, commit: str | None, log: TextIO, jobs: int = 1) -> Outcome:
    source = source_hash(snippet.path)  # hash before running: an edit mid-run leaves it stale
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kernelbook-") as tmp:
        work = Path(tmp)
        report_path = work / "report.json"
        cmd = [python, "-m", "kernelbook.capture.harness", str(snippet.path.resolve()), str(report_path),
               "--device", device, "--traces", str(work / "trace")]
        try:
            stdout, stderr, code = _child(cmd, _child_env(device, commit, jobs), work, timeout, snippet, log)
        except subprocess.TimeoutExpired:
            return _failed(root, snippet, device, source, start, f"timed out after {timeout:.0f}s (raise it with --timeout)", None, "")
        seconds = time.monotonic() - start
        if not report_path.exists():
            last = (stderr.strip().splitlines() or [f"exit code {code}"])[-1]
            return _failed(root, snippet, device, source, start, f"the harness died: {last}", None, stderr)
        report = json.loads(report_path.read_text(encoding="utf-8"))
        if not report["ok"]:
            return _failed(root, snippet, device, source, start, report["error"], report.get("where"), report.get("traceback", ""))
        try:
            capture = from_json(_capture_json(snippet, device, source, report, stdout, stderr), snippet.id)
        except CaptureError as exc:
            return _failed(root, snippet, device, source, start, f"unusable result: {exc}", None, "")
        empty = [s.index for s in capture.sessions if s.launches == 0]
        if empty:  # a profile of nothing: the code meant to be profiled did not run under it
            return _failed(root, snippet, device, source, start,
                           f"profiler session(s) {empty} recorded no kernel: is the code to profile inside the `with profile(...)` block?", None, "")
        _install(snippet, device, capture, work, report["trace_files"])
    failure_path(root, snippet, device).unlink(missing_ok=True)
    return Outcome(snippet, device, True, seconds)


def _child_env(device: str, commit: str | None, jobs: int = 1) -> dict[str, str]:
    env = dict(os.environ)
    scripts = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = scripts + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    env["KERNELBOOK_GIT_COMMIT"] = commit or ""
    env["KERNELBOOK_JOBS"] = str(jobs)
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""  # really the CPU, even on a GPU machine
    return env


def _child(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float, snippet: Snippet, log: TextIO) -> tuple[str, str, int]:
    """Run the harness in its own process group; kill the whole group on timeout."""
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, encoding="utf-8", errors="replace",
                            start_new_session=True)
    deadline = time.monotonic() + timeout
    while True:
        wait = min(HEARTBEAT_S, max(0.0, deadline - time.monotonic()))
        try:
            stdout, stderr = proc.communicate(timeout=wait)
            return stdout, stderr, proc.returncode
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                _kill_group(proc)
                raise
            print(f"      {snippet.id} still running ({timeout - (deadline - time.monotonic()):.0f}s)", file=log, flush=True)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()


def _capture_json(snippet: Snippet, device: str, source: str, report: dict, stdout: str, stderr: str) -> dict:
    from ..records import SCHEMA

    kept, dropped = kept_lines(stderr)  # the profiler's own USDT lines: capture/stderr.py
    return {
        "schema": SCHEMA,
        "snippet": snippet.id,
        "device": device,
        "freshness": {"source_hash": source, "format": CAPTURE_FORMAT, "torch": report["torch"]},
        "environment": report["environment"],
        "wall_time_s": report["wall_time_s"],
        "stdout": stdout.splitlines(),
        "stderr": kept,
        "stderr_dropped": dropped,
        "sessions": report["sessions"],
        "data": report["data"],
        "trace_files": [trace_name(snippet, device, i) for i in range(len(report["trace_files"]))],
    }


def _install(snippet: Snippet, device: str, capture, work: Path, trace_files: list[str]) -> None:
    """Traces first, capture last: the capture only ever names traces that exist."""
    final_dir = snippet.capture_path(device).parent
    keep = {trace_name(snippet, device, i) for i in range(len(trace_files))}
    for old in final_dir.glob(f"{snippet.path.stem}.{device}.trace*.json.gz") if final_dir.exists() else []:
        if old.name not in keep:
            old.unlink()
    for i, name in enumerate(trace_files):
        write_atomic(final_dir / trace_name(snippet, device, i), (work / name).read_bytes())
    write_atomic(snippet.capture_path(device), dumps(capture).encode("utf-8"))


def trace_name(snippet: Snippet, device: str, index: int) -> str:
    return f"{snippet.path.stem}.{device}.trace{index}.json.gz"


def _failed(root: Path, snippet: Snippet, device: str, source: str, start: float, message: str, where: str | None, tb: str) -> Outcome:
    path = failure_path(root, snippet, device)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{source}\n{message}\n{tb}", encoding="utf-8")
    return Outcome(snippet, device, False, time.monotonic() - start, message.splitlines()[0] if message else "failed", where)


def summary(outcomes: list[Outcome], root: Path) -> str:
    failed = [o for o in outcomes if not o.ok]
    ok = len(outcomes) - len(failed)
    lines = [f"captured {ok} of {len(outcomes)} snippet run(s); {len(failed)} failed"]
    for o in failed:
        where = o.where or str(o.snippet.path)
        try:
            where = str(Path(where).relative_to(root.resolve()))
        except ValueError:
            pass
        lines.append(f"  FAILED {o.snippet.id} ({o.device}) at {where}: {o.message}")
        lines.append(f"         full traceback: {failure_path(root, o.snippet, o.device).relative_to(root)}")
    return "\n".join(lines)


def capture(
    root: Path,
    snippets: list[Snippet],
    requested_device: str,
    force: bool = False,
    jobs: int | None = None,
    timeout: float = 900.0,
    python: str = sys.executable,
    log: TextIO = sys.stderr,
    probe: Callable[[str], None] = check_torch_cuda,
) -> list[Outcome]:
    device = resolve_device(requested_device)
    todo = plan(root, snippets, device, force)
    if device == "cuda" and todo:
        try:
            probe(python)
        except KernelbookError as exc:
            if requested_device != "auto":
                raise
            # A driver but a CPU-only torch: "best device present" is then the CPU.
            print(f"{exc}; --device auto falls back to the CPU", file=log)
            device = "cpu"
            todo = plan(root, snippets, device, force)
    if not todo:
        print(f"nothing to capture: {len(snippets)} snippet(s) fresh on {device}", file=log)
        return []
    if jobs is None:  # snippets timed side by side disturb each other's timings: one at a time
        jobs = 1
    print(f"capturing {len(todo)} of {len(snippets)} snippet(s) on {device}, {jobs} at a time", file=log, flush=True)
    return run_all(root, todo, device, jobs, timeout, python, log)
