"""How much the capture engine costs, measured side by side in one run on this machine.

    python scripts/bench_capture.py [--snippets ch01] [--repeats 5]

(a) a no-op ``kernelbook capture`` on an up-to-date tree (median of ``--repeats``);
(b) harness overhead: a cold ``capture --force --jobs 1`` of the chapter's snippets,
    divided by running the same files bare with ``python``, one after another;
(c) ``--jobs 2`` divided by ``--jobs 1`` (both ``--force``).

Every timed run that compiles gets a fresh, empty ``TORCHINDUCTOR_CACHE_DIR``, so all
of them pay the same cold torch.compile. The project (snippets/, pyproject.toml) is
copied into a temporary folder and kernelbook runs there (it finds the project from its
working folder): the committed captures are never touched. Prints figures next to their targets; exit code 0.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"


def env_for(project: Path, cache: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SCRIPTS) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["CUDA_VISIBLE_DEVICES"] = ""  # the CPU, for the bare runs as for the captures
    if cache is not None:
        env["TORCHINDUCTOR_CACHE_DIR"] = str(cache)
    return env


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall seconds, and CPU seconds of the process and every child it waited for."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            sys.exit(f"bench: {' '.join(cmd)} failed:\n{err.read().decode(errors='replace')[-3000:]}")
    return seconds, usage.ru_utime + usage.ru_stime


def fresh_cache(base: Path, name: str) -> Path:
    path = base / f"inductor-{name}"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir()
    return path


def kernelbook(*args: str) -> list[str]:
    return [sys.executable, "-m", "kernelbook", *args]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snippets", default="ch01", help="chapter folder under snippets/ (default ch01)")
    parser.add_argument("--repeats", type=int, default=5, help="no-op runs to take the median of")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="kernelbook-bench-") as tmp:
        base = Path(tmp)
        project = base / "book"
        shutil.copytree(ROOT / "snippets", project / "snippets", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy2(ROOT / "pyproject.toml", project / "pyproject.toml")
        files = sorted(p for p in (project / "snippets" / args.snippets).glob("*.py") if not p.name.startswith("_"))
        if not files:
            sys.exit(f"bench: no snippets under snippets/{args.snippets}")
        names = ", ".join(p.stem for p in files)
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; "
              f"torch {importlib.metadata.version('torch')}; python {sys.version.split()[0]}")
        print(f"snippets: {len(files)} in snippets/{args.snippets} ({names}); project copied to {project}")
        print("each measurement below that compiles starts from an empty TORCHINDUCTOR_CACHE_DIR\n", flush=True)

        # (b) bare python, then the harness, one snippet at a time; then (c) two at a time.
        bare_env = env_for(project, fresh_cache(base, "bare"))
        bare = bare_cpu = 0.0
        for path in files:
            wall, cpu = timed([sys.executable, str(path)], bare_env, path.parent)
            bare, bare_cpu = bare + wall, bare_cpu + cpu
        print(f"  bare python, one after another:       {bare:7.1f} s wall  {bare_cpu:7.1f} s CPU", flush=True)
        jobs1, jobs1_cpu = timed(kernelbook("capture", "--device", "cpu", "--force", "--jobs", "1", args.snippets),
                                 env_for(project, fresh_cache(base, "jobs1")), project)
        print(f"  kernelbook capture --force --jobs 1:  {jobs1:7.1f} s wall  {jobs1_cpu:7.1f} s CPU", flush=True)
        jobs2, jobs2_cpu = timed(kernelbook("capture", "--device", "cpu", "--force", "--jobs", "2", args.snippets),
                                 env_for(project, fresh_cache(base, "jobs2")), project)
        print(f"  kernelbook capture --force --jobs 2:  {jobs2:7.1f} s wall  {jobs2_cpu:7.1f} s CPU", flush=True)

        # (a) the tree is now up to date: a capture decides there is nothing to do.
        noop_env = env_for(project, None)
        noops = [timed(kernelbook("capture", "--device", "cpu"), noop_env, project)[0] for _ in range(args.repeats)]
        noop = statistics.median(noops)
        print(f"  no-op kernelbook capture (x{args.repeats}):     {noop:7.3f} s median "
              f"(min {min(noops):.3f}, max {max(noops):.3f})\n", flush=True)

        rows = [
            ("(a) no-op capture, median", f"{noop:.3f} s", "< 1 s", noop < 1.0),
            ("(b) harness overhead: capture --jobs 1 / bare", f"{jobs1 / bare:.2f}x", "<= 1.3x", jobs1 / bare <= 1.3),
            ("    the same in CPU seconds (load-insensitive)", f"{jobs1_cpu / bare_cpu:.2f}x", "<= 1.3x", jobs1_cpu / bare_cpu <= 1.3),
            ("(c) --jobs 2 / --jobs 1", f"{jobs2 / jobs1:.2f}", "<= 0.7", jobs2 / jobs1 <= 0.7),
        ]
        width = max(len(r[0]) for r in rows)
        print(f"{'figure':<{width}}  {'measured':>9}  {'target':>8}")
        for label, value, target, ok in rows:
            print(f"{label:<{width}}  {value:>9}  {target:>8}  {'met' if ok else 'NOT MET'}")
        print(f"\nload average {os.getloadavg()[0]:.2f} at the end; above {os.cpu_count()} other work on this machine"
              " skews the wall-clock figures (the CPU-seconds line much less)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
