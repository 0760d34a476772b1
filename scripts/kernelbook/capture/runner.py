"""Parent side of ``kernelbook capture``: what is stale, one child per snippet, atomic writes.

A failed or timed-out run never replaces a good capture; failures are collected and
summarised at the end with the snippet's own file and line. The tree is locked while a
run decides and writes (``store.tree_lock``); each capture goes in whole (``store.install``);
a snippet that writes into the captures folders or ``.kernelbook/`` fails, and what it changed
is undone (``store.Guard``); one that leaves a process running outside its process group fails,
the process killed (the harness's exit sweep, ``child.run``'s); Ctrl-C or SIGTERM stops every
child at once (``child.Running``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

from .. import CAPTURE_FORMAT
from ..common import gpus
from ..safety.errors import KernelbookError
from ..common.freshness import assess, cuda_present, failure_path, installed_torch, runnable_devices, this_gpu_key
from ..safety.processes import described
from ..common.records import CaptureError, dumps, from_json
from ..common.snippets import Snippet, source_hash, times_itself
from . import child, store
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


@dataclass(frozen=True)
class Run:
    """What every snippet of one ``kernelbook capture`` shares."""

    root: Path
    device: str
    timeout: float
    python: str
    commit: str | None
    jobs: int
    log: TextIO
    guard: store.Guard
    running: child.Running
    said: threading.Lock = field(default_factory=threading.Lock)

    def say(self, line: str) -> None:
        """One whole line of progress: snippets running side by side never cut into each other's lines."""
        with self.said:
            self.log.write(line + "\n")
            self.log.flush()


def run_all(
    root: Path,
    todo: list[Snippet],
    device: str,
    jobs: int,
    timeout: float,
    python: str = sys.executable,
    log: TextIO = sys.stderr,
) -> list[Outcome]:
    """Run each snippet in its own child process, ``jobs`` at a time; report progress.

    Ctrl-C (or SIGTERM, see ``processes.stop_on_signals``) kills every running child at
    once, installs nothing more and re-raises.
    """
    sources = {s: source_hash(s.path) for s in todo}  # hashed before running: an edit mid-run leaves it stale
    run = Run(root, device, timeout, python, git_commit(root), jobs, log, store.Guard(root), child.Running())
    started = time.monotonic()
    done: list[Outcome] = []
    counting = threading.Lock()

    def one(snippet: Snippet) -> Outcome | None:
        if run.running.stopping:
            return None
        run.say(f"      {snippet.id} ({device}) started")
        outcome = run_one(run, snippet, sources[snippet])
        if outcome is not None:
            with counting:
                done.append(outcome)
                n = len(done)
            status = "ok" if outcome.ok else "FAILED"
            run.say(f"[{n}/{len(todo)}] {snippet.id} ({device}) {status} in {outcome.seconds:.1f}s"
                    f" — elapsed {time.monotonic() - started:.0f}s")
        return outcome

    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    futures = [pool.submit(one, s) for s in todo]
    try:
        results = [f.result() for f in futures]
    except BaseException:
        run.running.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return [r for r in results if r is not None]


def run_one(run: Run, snippet: Snippet, source: str) -> Outcome | None:
    """One snippet in a child; its capture installed if it ran well. None: interrupted, nothing recorded."""
    root, device = run.root, run.device
    start = time.monotonic()
    with child.scratch() as work:
        report_path = work / "report.json"
        cmd = [run.python, "-m", "kernelbook.capture.harness", str(snippet.path.resolve()), str(report_path),
               "--device", gpus.device_of(device), "--traces", str(work / "trace")]
        heartbeat = lambda elapsed: run.say(f"      {snippet.id} still running ({elapsed:.0f}s)")  # noqa: E731
        try:
            stdout, stderr, code, escaped = child.run(cmd, _child_env(gpus.device_of(device), run.commit, run.jobs), work, run.timeout,
                                                      run.running, heartbeat, HEARTBEAT_S)
            timed_out = False
        except child.TimedOut as exc:
            stdout, stderr, code, timed_out, escaped = "", "", -9, True, exc.escaped
        vandalism = run.guard.restore()
        if run.running.stopping:
            return None
        if escaped:
            return _failed(run.guard, root, snippet, device, source, start, "it left process(es) running outside its "
                           f"process group: {described(escaped)}; kernelbook killed them: a snippet must wait for every "
                           "process it starts" + (f" (and it timed out after {run.timeout:.0f}s)" if timed_out else ""), None, "")
        if vandalism:
            listed = ", ".join(vandalism[:8]) + (f" and {len(vandalism) - 8} more" if len(vandalism) > 8 else "")
            return _failed(run.guard, root, snippet, device, source, start, "it wrote into the captures folders or "
                           f".kernelbook/ ({listed}); kernelbook put them back: a snippet must never write there", None, "")
        if timed_out:
            return _failed(run.guard, root, snippet, device, source, start, f"timed out after {run.timeout:.0f}s (raise it with --timeout)", None, "")
        seconds = time.monotonic() - start
        try:
            report = json.loads(report_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            last = (stderr.strip().splitlines() or [f"exit code {code}"])[-1]
            return _failed(run.guard, root, snippet, device, source, start, f"the harness died: {last}", None, stderr)
        if not report["ok"]:
            return _failed(run.guard, root, snippet, device, source, start, report["error"], report.get("where"), report.get("traceback", ""))
        try:
            capture = from_json(_capture_json(snippet, device, source, report, stdout, stderr), snippet.id)
        except CaptureError as exc:
            return _failed(run.guard, root, snippet, device, source, start, f"unusable result: {exc}", None, "")
        empty = [s.index for s in capture.sessions if s.launches == 0]
        if empty:  # a profile of nothing: the code meant to be profiled did not run under it
            return _failed(run.guard, root, snippet, device, source, start,
                           f"profiler session(s) {empty} recorded no kernel: is the code to profile inside the `with profile(...)` block?", None, "")
        _install(snippet, device, capture, work, report["trace_files"], run.guard)
    with run.guard.lock:
        failure_path(root, snippet, device).unlink(missing_ok=True)
        run.guard.expect([], [failure_path(root, snippet, device)])
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


def _capture_json(snippet: Snippet, device: str, source: str, report: dict, stdout: str, stderr: str) -> dict:
    from ..common.records import SCHEMA

    kept, dropped = kept_lines(stderr)  # the profiler's own USDT lines: capture/stderr.py
    return {
        "schema": SCHEMA,
        "snippet": snippet.id,
        "device": gpus.device_of(device),
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


def _install(snippet: Snippet, device: str, capture, work: Path, trace_files: list[str], guard: store.Guard) -> None:
    """The capture and its traces as one unit (``store.install``): traces first, capture last."""
    target = snippet.capture_path(device)
    files = [(trace_name(snippet, device, i), (work / name).read_bytes()) for i, name in enumerate(trace_files)]
    capture = store.replacing(capture, store.installed(target))  # what it replaces, kept in brief as `previous`
    files.append((target.name, dumps(capture).encode("utf-8")))
    store.install(target.parent, files, sidecars(snippet, device), guard)


def sidecars(snippet: Snippet, device: str) -> list[Path]:
    """The trace files of ``snippet`` × ``device`` in the tree now."""
    folder = snippet.capture_path(device).parent
    return sorted(folder.glob(f"{snippet.path.stem}.{device}.trace*.json.gz")) if folder.is_dir() else []


def trace_name(snippet: Snippet, device: str, index: int) -> str:
    return f"{snippet.path.stem}.{device}.trace{index}.json.gz"


def _failed(guard: store.Guard, root: Path, snippet: Snippet, device: str, source: str, start: float, message: str,
            where: str | None, tb: str) -> Outcome:
    path = failure_path(root, snippet, device)
    with guard.lock:  # kernelbook's own write under .kernelbook/: not a snippet's (others may be running)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{source}\n{message}\n{tb}", encoding="utf-8")
        guard.expect([path], [])
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
    """Capture what is stale, holding the tree's lock: a second run waits, then finds it fresh."""
    device = resolve_device(requested_device)
    with store.tree_lock(root, log, "kernelbook capture"):
        for folder in child.remove_stale_scratch():
            print(f"removed {folder}, left behind by a capture that was killed", file=log)
        todo = plan(root, snippets, device, force)
        if device == "cuda":
            # one CUDA capture per GPU model: <name>.cuda-<key>.json (gpus.py)
            device = gpus.slot(this_gpu_key())
            todo = plan(root, snippets, device, force)
        if device.startswith("cuda") and todo:
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
        for snippet in todo:  # a snippet that is not UTF-8, or a captures folder that is a link: one line, before anything runs
            source_hash(snippet.path)
            store.check_folder(root, snippet.capture_path(device).parent)
        outcomes: list[Outcome] = []
        for group, n in lanes(todo, jobs or 1):
            print(f"capturing {len(group)} of {len(snippets)} snippet(s) on {device}, {n} at a time"
                  + (" (they time nothing)" if n > 1 else " (timing themselves)" if jobs and jobs > 1 else ""), file=log, flush=True)
            outcomes += run_all(root, group, device, n, timeout, python, log)
        return outcomes


def lanes(todo: list[Snippet], jobs: int) -> list[tuple[list[Snippet], int]]:
    """The runs to make, in order, with how many snippets each runs at a time.

    Snippets timed side by side disturb each other's timings: with ``jobs`` > 1 only those that
    time nothing (``snippets.times_itself``) run side by side, first; those that time themselves
    then run one at a time, each with the machine to itself (their captures record 1 at a time).
    """
    if jobs <= 1:
        return [(todo, 1)] if todo else []
    alone = [s for s in todo if times_itself(s)]
    side = [s for s in todo if s not in alone]
    return [(group, n) for group, n in ((side, jobs), (alone, 1)) if group]
