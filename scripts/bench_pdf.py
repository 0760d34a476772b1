"""How long ``kernelbook pdf`` takes and how big its PDFs are, on this machine.

    .venv/bin/python scripts/bench_pdf.py [--site DIR] [--repeats 1] [--paper a4|letter]

Without ``--site`` the book is first built read-only into a temporary folder (timed apart, as
``kernelbook pdf`` would build it); then both PDFs are printed from that site ``--repeats``
times, each time the whole ``kernelbook pdf --site`` process from start to exit, and the median
printed with each PDF's size and page count (poppler's ``pdfinfo``, when there is one).
Targets: both PDFs in under 60 s, each under 10 MB.
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
ENV = dict(os.environ, PYTHONPATH=str(ROOT / "scripts") + os.pathsep + os.environ.get("PYTHONPATH", ""), NO_MKDOCS_2_WARNING="1")


def timed(*args: str) -> float:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "kernelbook", *args], cwd=ROOT, env=ENV, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"kernelbook {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return time.monotonic() - start


def pages(pdf: Path) -> str:
    if shutil.which("pdfinfo") is None:
        return "?"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
    found = re.search(r"^Pages:\s+(\d+)", info, re.M)
    return found.group(1) if found else "?"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--site", help="a built site (default: build one, read-only, first)")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--paper", choices=("a4", "letter"), default="a4")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pdf-") as work:
        site = Path(args.site) if args.site else Path(work) / "site"
        if not args.site:
            sys.path.insert(0, str(ROOT / "scripts"))
            from kernelbook.site.commands import build

            start = time.monotonic()
            if build(ROOT, site, plugin={"read_only": True, "pdf": False}):
                return 1
            print(f"build (read-only): {time.monotonic() - start:.1f} s")
        out = Path(work) / "pdf"
        runs = [timed("pdf", "--site", str(site), "--out", str(out), "--paper", args.paper) for _ in range(args.repeats)]
        print(f"both PDFs ({args.paper}): {statistics.median(runs):.1f} s (median of {len(runs)}: {', '.join(f'{r:.1f}' for r in runs)}; target < 60 s)")
        for pdf in sorted(out.glob("kernelbook-*.pdf")):
            print(f"{pdf.name}: {pdf.stat().st_size / 1e6:.1f} MB, {pages(pdf)} pages (target < 10 MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
