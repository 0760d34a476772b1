"""The lent GPU session (guide/gpu.md, "A lent GPU session (one command)"), prepared without a GPU.

* ``capture --jobs``: only the snippets that time nothing run side by side; those that time
  themselves run alone, after them (``snippets.times_itself``, ``runner.lanes``).
* ``scripts/gpu_session.sh``: its rehearsal with ``--device cpu`` in a small book: a progress
  line per snippet, a failing snippet and one the budget stops lose nothing already captured,
  the archive and the log land in OUTDIR, the last line counts what is fresh.
* What the session brings back: a CUDA capture recorded under torch 2.11 / CUDA 13.0 is read by
  this machine's build (another torch, no GPU) as fresh, and its pages label it with its own
  versions (and say when it ran beside other snippets); every @cuda claim it contradicts, on every page, is reported by one build.

The CUDA captures are crafted (tests/crafted_gpu.py), in temporary trees; none is committed.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from conftest import ROOT, make_project, mkdocs_build, run_cli, write
from crafted_gpu import H200_IMAGE, recorded_under
from test_gpus import BILINGUAL

from kernelbook.capture.runner import lanes
from kernelbook.common.snippets import Snippet, discover, times_itself

SCRIPT = ROOT / "scripts" / "gpu_session.sh"


# ---------------------------------------------------------------- which snippets may share the machine


def test_only_snippets_that_time_nothing_run_side_by_side(tmp_path):
    chapter = tmp_path / "snippets" / "ch01"
    write(chapter / "_clock.py", "import time\n\ndef now():\n    return time.perf_counter()\n")
    write(chapter / "plain.py", "print('no clock here')\n")
    write(chapter / "timed.py", "from triton.testing import do_bench\n")
    write(chapter / "via_helper.py", "import _clock\nprint(_clock.now())\n")  # the clock is in what it imports
    found = {s.id: s for s in discover(tmp_path)}
    assert {sid: times_itself(s) for sid, s in found.items()} == {"ch01/plain": False, "ch01/timed": True, "ch01/via_helper": True}
    todo = list(found.values())
    assert [([s.id for s in group], n) for group, n in lanes(todo, 4)] == [(["ch01/plain"], 4), (["ch01/timed", "ch01/via_helper"], 1)]
    assert lanes(todo, 1) == [(todo, 1)]  # one at a time: the order as given
    assert lanes([found["ch01/timed"]], 4) == [([found["ch01/timed"]], 1)] and lanes([], 4) == []


def test_the_books_timed_snippets_are_the_ones_that_measure_time():
    timed = {s.id for s in discover(ROOT) if times_itself(s)}
    assert {"ch01/first_call", "ch02/overhead_floor", "ch02/copy_roof", "ch04/block_size", "ch03/reduce_overhead"} <= timed
    assert not {"ch01/first_kernel", "ch03/output_code", "ch04/sm90_code"} & timed
    assert not times_itself(Snippet("ch00/x", ROOT / "snippets" / "ch01" / "first_kernel.py"))


# ---------------------------------------------------------------- the script, rehearsed on the CPU


def test_the_script_parses_and_refuses_bad_options(tmp_path):
    assert subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True).returncode == 0
    for bad in (["--device", "tpu"], ["--jobs", "0"], ["--budget", "7m"], ["--what"], []):
        done = subprocess.run(["bash", str(SCRIPT), *([str(tmp_path / "out")] if bad else []), *bad], capture_output=True, text=True, timeout=30)
        assert done.returncode == 2 and "gpu_session" in done.stderr, (bad, done.stderr)


@pytest.mark.parametrize("said, before, after", [
    ("echo '{folder}'", "", "{folder}"),
    ("echo '{folder}'", "/mine", "{folder}:/mine"),
    ("echo 'a stray line from an import'; echo '{folder}'", "", "{folder}"),  # the last line is the folder
    ("echo ''", "/mine", "/mine"),  # libcudart.so already links: LIBRARY_PATH left as it was
    ("echo '/no/such/folder'", "", ""),
    ("exit 1", "/mine", "/mine"),  # the preflight could not say: nothing added
])
def test_the_session_puts_nvccs_library_folder_on_library_path_when_load_inline_needs_it(tmp_path, said, before, after):
    """link_cudart, as the session runs it before the preflight (the captures, its children, see the folder): PY stands for a
    python whose `preflight --library-path` says ``said`` (tests/test_decisions_preflight.py checks what it says)."""
    folder = tmp_path / "cuda" / "lib"
    folder.mkdir(parents=True)
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\n{said.format(folder=folder)}\n")
    fake.chmod(0o755)
    text = SCRIPT.read_text()
    function = re.search(r"^link_cudart\(\) \{.*?^\}$", text, re.S | re.M).group(0)
    done = subprocess.run(["bash", "-c", f'{function}\nPY={fake}\nlink_cudart\nsh -c \'echo "LIBRARY_PATH=$LIBRARY_PATH"\''],
                          capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin:/bin", **({"LIBRARY_PATH": before} if before else {})})
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == f"LIBRARY_PATH={after.format(folder=folder)}", done.stdout + done.stderr
    assert ("libcudart.so for load_inline's -lcudart" in done.stdout) == (after.format(folder=folder) != before)
    machine = re.search(r"^machine\(\) \{.*?^\}$", text, re.S | re.M).group(0)  # the session calls it, before the preflight
    assert re.search(r"^\s+link_cudart\b.*\n.*kernelbook\.capture\.preflight", machine, re.M), machine


def test_a_rehearsal_keeps_every_capture_made_when_one_fails_and_the_budget_stops_another(tmp_path):
    book = make_project(tmp_path / "book")
    (book / "scripts").symlink_to(ROOT / "scripts")
    write(book / "mkdocs.yml", "site_name: t\nplugins:\n  - kernelbook:\n      reference_gpu: h200\n")
    write(book / "snippets/ch01/plain.py", "print('plain')\n")
    write(book / "snippets/ch01/broken.py", "raise RuntimeError('broken on purpose')\n")
    # it times itself, so it runs alone, after the others; it outlasts the budget
    write(book / "snippets/ch01/slow.py", "import time\nstart = time.perf_counter()\ntime.sleep(600)\n")
    out = tmp_path / "out"
    done = subprocess.run(["bash", str(book / "scripts" / "gpu_session.sh"), str(out), "--device", "cpu", "--jobs", "2", "--budget", "75"],
                          capture_output=True, text=True, timeout=240, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"), "PYTHON": sys.executable,
                               "CUDA_VISIBLE_DEVICES": "", "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor"),
                               "PYTHONDONTWRITEBYTECODE": "1"})  # its scripts/ is the checkout's: no __pycache__ there
    log = (out / "session.log").read_text(encoding="utf-8")
    assert done.stdout == log and done.returncode == 124, log
    assert "capturing 2 of 3 snippet(s) on cpu, 2 at a time (they time nothing)" in log
    assert log.index("ch01/plain (cpu) ok in") < log.index("capturing 1 of 3 snippet(s) on cpu, 1 at a time (timing themselves)")
    assert re.search(r"^\[\d/2\] ch01/broken \(cpu\) FAILED in", log, flags=re.M), log
    assert "the budget ran out" in log and "== status" in log
    with tarfile.open(out / "captures-cpu.tar.gz") as tar:
        assert tar.getnames() == ["snippets/ch01/captures/plain.cpu.json"]
    with tarfile.open(out / "failures.tar.gz") as tar:
        assert "failures/ch01__broken.cpu.txt" in tar.getnames()
    assert log.rstrip().splitlines()[-1].startswith("gpu_session: 1 of 3 snippet(s) fresh on cpu after "), log
    assert "  not captured: ch01/broken (error: RuntimeError: broken on purpose)" in log and "  not captured: ch01/slow (missing" in log


# What the bare GPU image lacks (it has jinja2 and markdown only as torch's or nobody's dependencies: none is needed)
SITE_HALF = ("yaml", "mkdocs", "material", "jinja2", "markdown", "pymdownx", "nbformat", "bs4", "mike", "mkdocs_static_i18n")
WITHOUT_THE_SITE_HALF = f"""
import importlib.abc, sys
class NotOnTheImage(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {SITE_HALF!r}:
            raise ImportError(f"{{name}} is not on the GPU image")
sys.meta_path.insert(0, NotOnTheImage())
from kernelbook.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_sessions_commands_run_without_the_site_half(tmp_path):
    book = make_project(tmp_path / "book")
    write(book / "mkdocs.yml", "site_name: t\nplugins:\n  - kernelbook:\n      reference_gpu: h200\n")
    write(book / "snippets/ch01/a.py", "print('a')\n")
    write(book / "snippets/ch01/b.py", "print('b')\n")
    recorded_under(book, "ch01/a")

    def kb(root: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", WITHOUT_THE_SITE_HALF, *args], cwd=root, capture_output=True, text=True, timeout=300,
                              env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "scripts"), "CUDA_VISIBLE_DEVICES": "",
                                   "HOME": os.environ.get("HOME", "/tmp"), "PYTHONDONTWRITEBYTECODE": "1"})

    captured = kb(book, "capture", "--device", "cpu", "--jobs", "2")
    assert captured.returncode == 0 and "captured 2 of 2" in captured.stderr, captured.stderr
    for args in (["status"], ["status", "--json"]):
        done = kb(book, *args)
        assert done.returncode == 0 and "not on the GPU image" not in done.stderr, (args, done.stderr)
    strict = kb(book, "status", "--strict")  # ch01/b has no H200 capture: said, in one line
    assert strict.returncode == 1 and strict.stderr == "--strict: 1 reference GPU h200 capture(s) not fresh: ch01/b (missing)\n"
    packed = kb(book, "pack", "--gpu", "h200", "-o", str(tmp_path / "captures-h200.tar.gz"))
    assert packed.returncode == 0, packed.stderr
    other = make_project(tmp_path / "other")
    write(other / "snippets/ch01/a.py", "print('a')\n")
    merged = kb(other, "merge", str(tmp_path / "captures-h200.tar.gz"))
    assert merged.returncode == 0 and (other / "snippets/ch01/captures/a.cuda-h200.json").is_file(), merged.stdout + merged.stderr


# ---------------------------------------------------------------- what the session brings back, read here

# the two-language book test_gpus.py builds, with the H200 as its reference GPU
BOOK = BILINGUAL.replace("reference_gpu: a100_80gb", "reference_gpu: h200")


def h200_book(root: Path, claims: dict[str, str]) -> Path:
    """Two chapters, a snippet each with its CUDA capture from the lent H200 (torch 2.11, CUDA 13.0), and
    ``claims`` (chapter: the claim) in both languages' pages."""
    write(root / "mkdocs.yml", BOOK)
    for chapter, sid in (("ch01", "ch01/a"), ("ch02", "ch02/b")):
        write(root / "snippets" / f"{sid}.py", "print('on the GPU')\n")
        recorded_under(root, sid, together=6 if chapter == "ch02" else 1)  # ch02/b ran beside 5 others
        for lang in ("ja", "en"):
            write(root / "docs" / lang / chapter / "index.md",
                  f"# {chapter} {{ #{chapter} }}\n\n## Add {{ #add-{chapter} }}\n\n{claims.get(chapter, '')}\n\n[[kb:run {sid}]]\n")
    for lang in ("ja", "en"):
        write(root / "docs" / lang / "index.md", f"# {lang}\n\n[ch01](ch01/index.md) · [ch02](ch02/index.md)\n")
    return root


def test_a_cuda_capture_from_torch_2_11_is_fresh_here_and_labelled_with_its_own_versions(tmp_path):
    here = importlib.metadata.version("torch")
    assert not here.startswith("2.11"), "this test needs another torch here than the capture's"
    book = h200_book(tmp_path / "book", {"ch01": "[[kb:launches ch01/a @cuda == 1]] launch."})
    status = run_cli("status", "--json", root=book, CUDA_VISIBLE_DEVICES="")
    rows = {(r["snippet"], r["device"]): r for r in json.loads(status.stdout)}
    assert rows[("ch01/a", "cuda-h200")]["state"] == "fresh" and rows[("ch01/a", "cuda-h200")]["torch"] == "2.11.0+cu130", status.stdout
    built = mkdocs_build(book, tmp_path / "site", cache_dir=tmp_path / "cache", read_only=True)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-5000:]
    for prefix in ("", "en/"):
        page = (tmp_path / "site" / prefix / "ch01" / "index.html").read_text(encoding="utf-8")
        (line,) = re.findall(r'<p class="kb-provenance" data-device="cuda">(.*?)</p>', page)
        assert "NVIDIA H200" in line and "sm 9.0" in line and f"torch {H200_IMAGE['torch']}" in line and "CUDA 13.0" in line, line
        assert f"torch {here}" not in page and "kb-needs-capture" not in page
        assert re.search(r'<span class="kb-value" title="cuda">1</span>', page), page[:2000]
        assert "at a time" not in line and "同時に実行" not in line
    side = {lang: (tmp_path / "site" / prefix / "ch02" / "index.html").read_text(encoding="utf-8") for lang, prefix in (("ja", ""), ("en", "en/"))}
    assert "スニペット 6 件を同時に実行" in side["ja"] and "6 snippets run at a time" in side["en"]


def test_one_build_reports_every_cuda_claim_the_captures_contradict_on_every_page(tmp_path):
    wrong = {"ch01": "[[kb:launches ch01/a @cuda == 7]]", "ch02": "[[kb:kernel ch02/b ~ softmax @cuda]]"}
    book = h200_book(tmp_path / "book", wrong)
    built = mkdocs_build(book, tmp_path / "site", cache_dir=tmp_path / "cache", read_only=True)
    said = built.stdout + built.stderr
    assert built.returncode != 0
    for lang in ("ja", "en"):
        assert re.search(rf"{lang}/ch01/index\.md: \[\[kb:launches ch01/a @cuda == 7\]\]: the cuda capture a\.cuda-h200\.json says 1", said), said[-4000:]
        assert re.search(rf"{lang}/ch02/index\.md: \[\[kb:kernel ch02/b ~ softmax @cuda\]\]: no kernel containing 'softmax' in the cuda capture", said), said[-4000:]
    # mkdocs' strict mode stops the last language's build on its own errors, the others' logged before it
    assert said.count("ERROR   -  ") >= 4 and "the build failed" in said, said[-3000:]

