"""How long a build of the book takes against plain MkDocs builds of the same pages, side by side.

    .venv/bin/python scripts/bench_build.py [--repeats 5] [--also DIR ...]

Times the whole process (``python -m mkdocs build`` from start to exit: imports, config,
both languages) of each of these, round-robin so that a change of load on the machine
touches all of them alike, and prints the median of ``--repeats`` runs and the ratios:

* ours, warm: the book as it is, its caches filled by an earlier build (a rebuild, a
  ``mkdocs serve`` reload, a second ``make site``);
* ours, cold: the same with the plugin's cache emptied before each run (a fresh clone, CI);
* baseline: mkdocs-material + mkdocs-static-i18n + mkdocs-jupyter over the same docs and
  the same mkdocs.yml, without the kernelbook plugin (its directives stay literal text).
  static-i18n turns the .ipynb files back into downloads, so it renders no notebook page;
* plain Material: the same without mkdocs-jupyter (and without the notebooks in the nav);
* ``--also DIR``: the book in another checkout, built as that checkout configures it
  (e.g. ``git archive main | tar -x -C /tmp/main`` to compare with main), its own
  ``scripts/`` first on PYTHONPATH.

Every build reads a copy of the book in a temporary folder (the checkout is never
written) and writes its own site folder. Target: ours (warm) <= 1.3x the baseline.
A benchmark, not a test: it prints figures and exits 0 (1 only if a build fails).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.3


def copy_book(source: Path, dest: Path) -> Path:
    for name in ("docs", "snippets", "scripts"):
        shutil.copytree(source / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(source / "mkdocs.yml", dest / "mkdocs.yml")
    return dest


def without_plugin(config: str, name: str) -> str:
    """mkdocs.yml with the plugin ``name`` (and the comment lines just above it) taken out."""
    lines = config.splitlines()
    out: list[str] = []
    skipping = False
    for line in lines:
        if re.match(rf"^  - {re.escape(name)}\s*:?\s*$", line):
            while out and out[-1].lstrip().startswith("#"):
                out.pop()
            skipping = True
            continue
        if skipping and (line.startswith("    ") or not line.strip()):
            continue
        skipping = False
        out.append(line)
    return "\n".join(out) + "\n"


def baseline(tmp: Path, name: str, *, jupyter: bool) -> Path:
    book = copy_book(ROOT, tmp / name)
    config = without_plugin((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), "kernelbook")
    if not jupyter:
        config = without_plugin(config, "mkdocs-jupyter")
        config = "\n".join(line for line in config.splitlines() if not line.strip().endswith("notebook.ipynb")) + "\n"
    (book / "mkdocs.yml").write_text(config, encoding="utf-8")
    return book


def run(book: Path, site: Path, scripts: Path | None) -> float:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    if scripts is not None:
        env["PYTHONPATH"] = str(scripts) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "--site-dir", str(site)],
                          cwd=book, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"bench: the build of {book} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--also", type=Path, action="append", default=[], metavar="DIR",
                        help="also time the book in this other checkout (as it configures itself)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kb-build-bench-") as tmp_name:
        tmp = Path(tmp_name)
        ours = copy_book(ROOT, tmp / "ours")
        cache = ours / ".kernelbook" / "cache"
        variants: dict[str, tuple[Path, Path | None, bool]] = {  # name: (book, PYTHONPATH first, empty the cache first)
            "ours, warm cache": (ours, None, False),
            "ours, cold cache": (ours, None, True),
            "baseline (material + i18n + jupyter)": (baseline(tmp, "baseline", jupyter=True), None, False),
            "plain material + i18n, no notebooks": (baseline(tmp, "plain", jupyter=False), None, False),
        }
        for i, other in enumerate(args.also):
            book = copy_book(other.resolve(), tmp / f"also-{i}")
            variants[f"also: {other}"] = (book, book / "scripts", False)
        for name, (book, scripts, _) in variants.items():  # warm-up: imports in the page cache, caches filled
            run(book, tmp / "site-warmup", scripts)
        times: dict[str, list[float]] = {name: [] for name in variants}
        load_before = os.getloadavg()
        for _ in range(args.repeats):
            for name, (book, scripts, cold) in variants.items():
                if cold:
                    shutil.rmtree(cache, ignore_errors=True)
                times[name].append(run(book, tmp / f"site-{len(times[name])}", scripts))
        load_after = os.getloadavg()

    medians = {name: statistics.median(ts) for name, ts in times.items()}
    base = medians["baseline (material + i18n + jupyter)"]
    plain = medians["plain material + i18n, no notebooks"]
    print(f"mkdocs build of the book (ja + en), whole process, median of {args.repeats}, round-robin; "
          f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    width = max(map(len, medians))
    for name, median in medians.items():
        spread = f"{min(times[name]):.2f}–{max(times[name]):.2f}"
        print(f"  {name:<{width}}  {median:6.2f} s  ({spread} s)  {median / base:5.2f}x baseline  {median / plain:5.2f}x plain")
    warm = medians["ours, warm cache"] / base
    print(f"ours (warm) / baseline = {warm:.2f}x: target <= {TARGET}x: {'met' if warm <= TARGET else 'NOT met'}")
    print(f"ours (cold) / baseline = {medians['ours, cold cache'] / base:.2f}x (every notebook page rendered, every figure drawn)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
