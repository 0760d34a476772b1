"""Runs inside the child process: one snippet, instrumented, nothing rewritten.

``python -m kernelbook.capture.harness SNIPPET REPORT --device cpu|cuda --traces PREFIX``

The snippet runs unchanged under its own file name (tracebacks point at it). The
harness only wraps ``torch.profiler.profile.stop`` so that every profiling session
the snippet opens is exported as a Chrome trace and reduced to its kernels. It
prints nothing: the child's stdout and stderr belong to the snippet, and the
parent collects them. Imports only the standard library and torch.
"""

from __future__ import annotations

import argparse
import atexit
import gzip
import importlib.metadata
import json
import os
import platform
import runpy
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..safety.processes import become_subreaper, described, descendants, hold_lifeline, kill_all, process_table, reap
from . import kernels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kernelbook.harness")
    parser.add_argument("snippet", type=Path)
    parser.add_argument("report", type=Path)
    parser.add_argument("--device", choices=("cpu", "cuda"), required=True)
    parser.add_argument("--traces", type=Path, required=True, help="prefix of the gzipped Chrome traces")
    args = parser.parse_args(argv)
    lifeline = os.environ.pop("KERNELBOOK_LIFELINE", "")  # "PARENT_PID:FD", set by the runner
    if lifeline:  # never outlive `kernelbook capture`, nor let the snippet's own processes do so
        parent, fd = (int(x) for x in lifeline.split(":"))
        hold_lifeline(parent, fd)
        become_subreaper()  # what the snippet orphans (a double fork, setsid) stays below this process
        # Registered before the snippet can register anything: it runs last, after torch's own
        # exit handlers have stopped their compile workers.
        atexit.register(_sweep, args.snippet.resolve(), args.report)
    report = run(args.snippet.resolve(), args.device, args.traces)
    args.report.write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")
    return 0 if report["ok"] else 1


def _sweep(snippet: Path, report_path: Path) -> None:
    """At exit: stop every process the snippet left running; one that left this process group fails the run.

    Those still in the group would die with it anyway (the runner kills the group); one that
    left it (``setsid``, ``setpgid``) would not, so its run fails, naming it.
    """
    me, group, escaped = os.getpid(), os.getpgrp(), []
    for _ in range(5):  # what was killed may have started more meanwhile
        left = descendants(process_table(), me)
        if not left:
            break
        escaped += [p for p in kill_all(left) if p.pgid != group]
        time.sleep(0.05)
        reap()  # the killed that are this subreaper's children (orphans adopted, or the snippet's own)
    if escaped:
        report = _failure(snippet, f"it left process(es) running outside its process group: {described(escaped)}; "
                                   "kernelbook killed them: a snippet must wait for every process it starts", "")
        report_path.write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")


def run(snippet: Path, device: str, trace_prefix: Path) -> dict[str, Any]:
    import torch  # after argument parsing, so a usage error stays cheap

    # The harness records, it never configures: no torch or inductor setting is touched
    # here (importing torch._inductor would even import triton before a snippet can set
    # TRITON_INTERPRET). Whatever changes a snippet's output is set in its own code.
    settings: dict[str, Any] = {}
    if device == "cuda" and not torch.cuda.is_available():
        return _failure(snippet, "RuntimeError: CUDA was asked for, but torch.cuda.is_available() is False here", "")
    if device == "cpu":  # the one exception, set by the parent: CUDA hidden for a CPU run
        settings["CUDA_VISIBLE_DEVICES"] = os.environ.get("CUDA_VISIBLE_DEVICES")
    settings["snippets_at_a_time"] = int(os.environ.get("KERNELBOOK_JOBS") or 1)  # >1 skews timings

    sessions: list[dict[str, Any]] = []
    trace_files: list[str] = []
    lost: list[str] = []
    _instrument_profiler(torch, device, trace_prefix, sessions, trace_files, lost)

    sys.argv = [str(snippet)]
    sys.path.insert(0, str(snippet.parent))
    start = time.perf_counter()
    try:
        namespace = runpy.run_path(str(snippet), run_name="__main__")
    except BaseException as exc:  # noqa: BLE001 - a snippet failure is data for the parent
        if isinstance(exc, SystemExit) and exc.code in (0, None):
            namespace = {}
        else:
            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            return _failure(snippet, f"{type(exc).__name__}: {exc}", tb)
    wall = time.perf_counter() - start
    if device == "cuda":
        torch.cuda.synchronize()
    settings.update(ran_with(torch))
    if lost:
        return _failure(snippet, "kernelbook harness: " + "; ".join(lost), "")
    data, data_error = _json_data(namespace.get("results"))
    if data_error:
        return _failure(snippet, f"`results` must be JSON-serialisable (numbers, strings, lists, dicts): {data_error}", "")
    return {
        "ok": True,
        "wall_time_s": round(wall, 6),
        "environment": environment(torch, device, settings),
        "torch": _version("torch"),
        "sessions": sessions,
        "trace_files": trace_files,
        "data": data,
    }


def ran_with(torch: Any) -> dict[str, Any]:
    """What the snippet ran with, read after it ran (it may have set them itself)."""
    return {
        "torch_threads": torch.get_num_threads(),
        "TRITON_INTERPRET": os.environ.get("TRITON_INTERPRET"),
    }


def _instrument_profiler(torch: Any, device: str, prefix: Path, sessions: list, trace_files: list, lost: list) -> None:
    """After each profiling session stops, keep its Chrome trace and its kernels."""
    profile_cls = torch.profiler.profile
    original_stop = profile_cls.stop

    def stop(self: Any) -> Any:
        result = original_stop(self)
        try:
            index = len(sessions)
            with tempfile.TemporaryDirectory() as tmp:
                raw_path = Path(tmp) / "trace.json"
                self.export_chrome_trace(str(raw_path))
                raw = raw_path.read_bytes()
            trace = json.loads(raw)
            found = kernels.extract(trace, device_kind=device)
            path = prefix.with_name(f"{prefix.name}{index}.json.gz")
            path.write_bytes(gzip.compress(raw, mtime=0))
            trace_files.append(path.name)
            sessions.append(
                {
                    "index": index,
                    "device_kind": found.device_kind,
                    "kernels": [asdict(k) for k in found.kernels],
                    "launches": found.launches,
                    "events": [asdict(e) for e in found.events],
                }
            )
        except Exception as exc:  # noqa: BLE001 - never break the snippet because of us
            # ...but never publish a capture that silently lost a session either
            lost.append(f"profiling session {len(sessions) + len(lost)} could not be recorded: {type(exc).__name__}: {exc}")
        return result

    profile_cls.stop = stop


def environment(torch: Any, device: str, settings: dict[str, Any]) -> dict[str, Any]:
    env: dict[str, Any] = {
        "device_kind": device,
        "torch": _version("torch"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "captured_at": datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        "triton": _version("triton") or _version("pytorch-triton"),
        "git_commit": os.environ.get("KERNELBOOK_GIT_COMMIT") or None,
        "settings": settings,
    }
    if device == "cuda":
        major, minor = torch.cuda.get_device_capability(0)
        env.update(
            device_name=torch.cuda.get_device_name(0),
            compute_capability=f"{major}.{minor}",
            cuda=torch.version.cuda,
            driver=_nvidia_driver(),
        )
    else:
        env["device_name"] = _cpu_name()
    return env


def _failure(snippet: Path, error: str, tb: str) -> dict[str, Any]:
    return {"ok": False, "error": error, "traceback": tb, "where": snippet_frame(tb, snippet)}


def snippet_frame(tb: str, snippet: Path) -> str | None:
    """``file:line`` of the deepest traceback frame inside the snippet itself."""
    where = None
    for line in tb.splitlines():
        line = line.strip()
        if line.startswith(f'File "{snippet}"'):
            lineno = line.split(", line ", 1)[1].split(",", 1)[0]
            where = f"{snippet}:{lineno}"
    return where


def _json_data(value: Any) -> tuple[Any, str | None]:
    """The snippet's ``results`` as JSON data, or why it cannot be stored."""
    if value is None:
        return None, None
    try:
        return json.loads(json.dumps(value, allow_nan=False)), None
    except (TypeError, ValueError) as exc:
        return None, str(exc)


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"CPU ({line.split(':', 1)[1].strip()})"
    except OSError:
        pass
    return f"CPU ({platform.processor() or platform.machine()})"


def _nvidia_driver() -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20, check=True,
        )
        return out.stdout.strip().splitlines()[0] or None
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


if __name__ == "__main__":
    sys.exit(main())
