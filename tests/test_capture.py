"""``kernelbook capture`` and ``status`` end to end, in child processes, on temporary projects.

One session-scoped sequence of capture runs on a tiny project does the expensive part
(each child imports torch); the tests read what it recorded.
"""

from __future__ import annotations

import gzip
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, cli_env, make_project, process_gone, run_cli, write
from kernelbook.common.freshness import cuda_present

TORCH = importlib.metadata.version("torch")
FAIL_LINE = 3  # the line of flaky.py (broken version) that raises

HELLO = """
import os
print("hello from cha")
print("CUDA_VISIBLE_DEVICES=" + repr(os.environ.get("CUDA_VISIBLE_DEVICES")))
results = {"answer": 42, "items": [1, 2, 3]}
"""
PROF = """
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

torch.set_num_threads(1)  # the harness records what a snippet ran with after it ran
os.environ["TRITON_INTERPRET"] = "1"
torch.ones(4) + 1  # warm-up
# before the session: ending one imports triton itself where it is installed
# (torch._dynamo.utils); the harness must not import it before the snippet runs
triton_imported = "triton" in sys.modules
with profile(activities=[ProfilerActivity.CPU]) as prof:
    y = torch.ones(4) + 1
print("USDT: the snippet's own line, kept", file=sys.stderr)
inductor = sys.modules.get("torch._inductor.config")  # the profiler itself imports it
results = {"sum": float(y.sum()), "triton_imported": triton_imported,
           "kernel_profile": inductor.cpp.enable_kernel_profile if inductor else None}
"""
HELPERS = "SCALE = 2\n"
USES_HELPER = """
from _helpers import SCALE
print("scaled", 21 * SCALE)
results = 21 * SCALE
"""
FLAKY_GOOD = 'print("flaky is fine today")\n'
FLAKY_BAD = 'print("about to fail")\nvalue = 1\nraise RuntimeError("flaky broke on purpose")\n'


def snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under snippets/captures: mtime and bytes."""
    return {str(p.relative_to(root)): (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(root.glob("snippets/*/captures/*"))}


def ran(stderr: str) -> set[str]:
    """Snippet ids that a capture run reported as finished (ok or failed)."""
    return set(re.findall(r"^\[\d+/\d+\] (\S+) \(", stderr, flags=re.M))


def capture_json(root: Path, rel: str) -> dict:
    return json.loads((root / rel).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def story(tmp_path_factory) -> dict:
    """A project captured, left alone, its docs edited, two sources edited, then one snippet broken."""
    root = make_project(tmp_path_factory.mktemp("book"))
    snippets = root / "snippets"
    write(snippets / "cha" / "hello.py", HELLO)
    write(snippets / "cha" / "prof.py", PROF)
    write(snippets / "cha" / "_helpers.py", HELPERS)
    write(snippets / "cha" / "uses_helper.py", USES_HELPER)
    write(snippets / "chb" / "flaky.py", FLAKY_GOOD)
    runs: dict = {"root": root}

    def step(name: str, *extra: str) -> None:
        started = time.monotonic()
        done = run_cli("capture", "--device", "cpu", "--jobs", "2", *extra, root=root, timeout=600)
        runs[name] = {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr,
                      "seconds": time.monotonic() - started, "after": snapshot(root)}

    step("first")
    step("again")
    write(root / "docs" / "index.md", "# A page, reworded\n")
    write(root / "docs" / "ch01.md", "# A new page\n")
    write(snippets / "cha" / "notes.md", "prose beside the snippets\n")
    step("docs_edited")
    write(snippets / "cha" / "hello.py", HELLO.replace("hello from cha", "hello again"))
    write(snippets / "cha" / "_helpers.py", "SCALE = 3\n")
    step("sources_edited")
    write(snippets / "cha" / "hello.py", HELLO.replace("hello from cha", "hello a third time"))
    write(snippets / "chb" / "flaky.py", FLAKY_BAD)
    step("broken")
    status = run_cli("status", "--json", root=root)
    assert status.returncode == 0, status.stderr
    runs["status"] = {(r["snippet"], r["device"]): r for r in json.loads(status.stdout)}
    return runs


# ---------------------------------------------------------------- the capture runs


def test_fresh_capture_writes_every_snippet(story):
    first = story["first"]
    assert first["rc"] == 0, first["stderr"]
    assert ran(first["stderr"]) == {"cha/hello", "cha/prof", "cha/uses_helper", "chb/flaky"}
    assert set(first["after"]) == {
        "snippets/cha/captures/hello.cpu.json", "snippets/cha/captures/prof.cpu.json",
        "snippets/cha/captures/prof.cpu.trace0.json.gz", "snippets/cha/captures/uses_helper.cpu.json",
        "snippets/chb/captures/flaky.cpu.json",
    }
    assert "captured 4 of 4" in first["stderr"]
    assert not any(Path(p).name.startswith(".") for p in first["after"])  # no temporary files left


def test_progress_lines(story):
    err = story["first"]["stderr"]
    for n in range(1, 5):
        assert re.search(rf"^\[{n}/4\] \S+ \(cpu\) ok in [\d.]+s — elapsed \d+s$", err, flags=re.M), err
    assert "capturing 4 of 4 snippet(s) on cpu, 2 at a time" in err
    assert story["first"]["stdout"] == ""


def test_capture_records_output_data_and_provenance(story):
    root = story["root"]
    # hello.py as captured by the first run
    hello = json.loads(story["first"]["after"]["snippets/cha/captures/hello.cpu.json"][1])
    assert hello["schema"] == "kernelbook.capture/1"
    assert hello["stderr"] == [] and hello["stderr_dropped"] == 0  # no profiler, nothing dropped
    assert hello["snippet"] == "cha/hello" and hello["device"] == "cpu"
    assert hello["stdout"] == ["hello from cha", "CUDA_VISIBLE_DEVICES=''"]  # --device cpu hides any GPU
    assert hello["data"] == {"answer": 42, "items": [1, 2, 3]}
    assert hello["sessions"] == [] and hello["trace_files"] == []
    env = hello["environment"]
    assert env["device_kind"] == "cpu" and env["device_name"].startswith("CPU")
    assert env["torch"] == TORCH == hello["freshness"]["torch"]
    assert env["settings"]["CUDA_VISIBLE_DEVICES"] == ""
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", env["captured_at"])
    assert hello["wall_time_s"] >= 0
    helper = capture_json(root, "snippets/cha/captures/uses_helper.cpu.json")
    assert helper["data"] == 63 and helper["stdout"] == ["scaled 63"]  # after _helpers.py became SCALE = 3


def test_harness_records_profiler_session(story):
    root = story["root"]
    prof = capture_json(root, "snippets/cha/captures/prof.cpu.json")
    assert len(prof["sessions"]) == 1
    (session,) = prof["sessions"]
    assert session["device_kind"] == "cpu"
    names = [k["name"] for k in session["kernels"]]
    assert "aten::add" in names
    assert session["launches"] == sum(k["count"] for k in session["kernels"])
    # recorded, never configured: triton not imported by the harness, inductor's profiling flag as torch
    # leaves it, and the settings are the ones the snippet left behind
    assert prof["data"]["sum"] == 8.0 and prof["data"]["triton_imported"] is False
    assert prof["data"]["kernel_profile"] in (False, None)
    settings = prof["environment"]["settings"]
    assert settings["torch_threads"] == 1 and settings["TRITON_INTERPRET"] == "1"
    assert not any("inductor" in key for key in settings)
    # libkineto's USDT profiler_start/stop lines are dropped by the one rule, and counted
    assert prof["stderr"] == ["USDT: the snippet's own line, kept"] and prof["stderr_dropped"] == 2
    assert prof["trace_files"] == ["prof.cpu.trace0.json.gz"]
    sidecar = root / "snippets/cha/captures/prof.cpu.trace0.json.gz"
    trace = json.loads(gzip.decompress(sidecar.read_bytes()))
    assert any(e.get("name") == "aten::add" and e.get("cat") == "cpu_op" for e in trace["traceEvents"])
    # The sidecar is a trace `kernelbook kernels` reads, with the same answer as the capture.
    done = run_cli("kernels", str(sidecar), "--json")
    assert done.returncode == 0, done.stderr
    assert [k["name"] for k in json.loads(done.stdout)["kernels"]] == names


def test_second_run_captures_nothing(story):
    again = story["again"]
    assert again["rc"] == 0, again["stderr"]
    assert "nothing to capture" in again["stderr"]
    assert ran(again["stderr"]) == set()
    assert again["after"] == story["first"]["after"]  # not a byte, not an mtime changed
    assert again["seconds"] < 10


def test_editing_docs_reexecutes_nothing(story):
    docs = story["docs_edited"]
    assert docs["rc"] == 0, docs["stderr"]
    assert "nothing to capture" in docs["stderr"]
    assert docs["after"] == story["first"]["after"]


def test_editing_sources_reexecutes_only_those_snippets(story):
    edited = story["sources_edited"]
    assert edited["rc"] == 0, edited["stderr"]
    assert ran(edited["stderr"]) == {"cha/hello", "cha/uses_helper"}  # the helper's only user re-ran
    assert "[2/2]" in edited["stderr"]
    before, after = story["first"]["after"], edited["after"]
    for rel in ("snippets/cha/captures/prof.cpu.json", "snippets/cha/captures/prof.cpu.trace0.json.gz",
                "snippets/chb/captures/flaky.cpu.json"):
        assert after[rel] == before[rel], rel
    assert json.loads(after["snippets/cha/captures/hello.cpu.json"][1])["stdout"][0] == "hello again"


def test_failing_snippet(story):
    broken, root = story["broken"], story["root"]
    assert broken["rc"] == 1
    assert ran(broken["stderr"]) == {"cha/hello", "chb/flaky"}
    assert re.search(r"^\[\d/2\] chb/flaky \(cpu\) FAILED", broken["stderr"], flags=re.M)
    summary = broken["stderr"][broken["stderr"].index("captured 1 of 2"):]
    assert "1 failed" in summary
    assert f"FAILED chb/flaky (cpu) at snippets/chb/flaky.py:{FAIL_LINE}: RuntimeError: flaky broke on purpose" in summary
    assert "cha/hello" not in summary
    # The other snippet in the same run was still captured...
    hello = json.loads(broken["after"]["snippets/cha/captures/hello.cpu.json"][1])
    assert hello["stdout"][0] == "hello a third time"
    # ...and the good capture from before the breakage was not replaced.
    rel = "snippets/chb/captures/flaky.cpu.json"
    assert broken["after"][rel] == story["first"]["after"][rel]
    assert json.loads(broken["after"][rel][1])["stdout"] == ["flaky is fine today"]
    assert not list((root / "snippets/chb/captures").glob("flaky.cpu.trace*"))
    # The full traceback is kept where the summary says.
    failure = root / ".kernelbook/failures/chb__flaky.cpu.txt"
    assert ".kernelbook/failures/chb__flaky.cpu.txt" in summary
    assert f'flaky.py", line {FAIL_LINE}' in failure.read_text(encoding="utf-8")


def test_status_after_the_story(story):
    status = story["status"]
    assert set(status) == {(s, d) for s in ("cha/hello", "cha/prof", "cha/uses_helper", "chb/flaky") for d in ("cuda", "cpu")}
    for record in status.values():
        assert set(record) >= {"snippet", "device", "state", "device_name", "torch", "captured_at"}
    for snippet in ("cha/hello", "cha/prof", "cha/uses_helper"):
        record = status[(snippet, "cpu")]
        assert record["state"] == "fresh", record
        assert record["torch"] == TORCH and record["device_name"].startswith("CPU") and record["captured_at"]
        assert status[(snippet, "cuda")]["state"] == "missing"
    flaky = status[("chb/flaky", "cpu")]
    assert flaky["state"] == "error"
    assert "flaky broke on purpose" in flaky["reason"]


def test_status_strict_fails_without_cuda_captures(story):
    done = run_cli("status", "--strict", root=story["root"])
    assert done.returncode == 1
    assert "CUDA capture(s) not fresh" in done.stderr
    assert "cha/hello (missing)" in done.stderr


# ---------------------------------------------------------------- timeouts and devices


SLEEPER = """
import os, subprocess, time
child = subprocess.Popen(["sleep", "300"])
with open(os.environ["KB_TEST_PIDS"], "w") as handle:
    handle.write(f"{os.getpid()} {child.pid}")
time.sleep(300)
"""


def _processes_running(path: Path) -> list[int]:
    """Live processes whose command line names ``path``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if str(path).encode() in (proc / "cmdline").read_bytes() and not process_gone(int(proc.name)):
                found.append(int(proc.name))
        except OSError:
            pass
    return found


def test_timeout_kills_the_run_and_keeps_the_old_capture(tmp_path):
    root = make_project(tmp_path / "book")
    snippet = write(root / "snippets/chs/sleeper.py", SLEEPER)
    old = write(root / "snippets/chs/captures/sleeper.cpu.json", '{"a good capture": "from before"}\n').read_bytes()
    pids = tmp_path / "pids.txt"
    started = time.monotonic()
    done = run_cli("capture", "--device", "cpu", "--force", "--timeout", "15", root=root, KB_TEST_PIDS=str(pids))
    elapsed = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert elapsed < 90
    assert "timed out after 15s" in done.stderr
    assert "FAILED chs/sleeper (cpu)" in done.stderr
    assert (root / "snippets/chs/captures/sleeper.cpu.json").read_bytes() == old
    assert not list((root / "snippets/chs/captures").glob("sleeper.cpu.trace*"))
    # The whole process group is killed: the harness running the snippet, and what the snippet started.
    waiting = [int(x) for x in pids.read_text().split()] if pids.exists() else []  # absent: killed while importing torch
    deadline = time.monotonic() + 10
    while (_processes_running(snippet) or not all(map(process_gone, waiting))) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_running(snippet) == []
    assert all(map(process_gone, waiting)), waiting
    status = run_cli("status", "--json", root=root)
    (record,) = [r for r in json.loads(status.stdout) if r["device"] == "cpu"]
    assert record["state"] == "error" and "timed out" in record["reason"]


def test_device_cuda_without_cuda(tmp_path):
    if cuda_present():
        pytest.skip("an NVIDIA driver is visible here: --device cuda is allowed on this machine")
    root = make_project(tmp_path / "book")
    write(root / "snippets/cha/hello.py", HELLO)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    done = run_cli("capture", "--device", "cuda", root=root)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--device cuda" in lines[0] and "Traceback" not in done.stderr
    assert done.stdout == ""
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before  # nothing written


def _torch_can_use_a_gpu() -> bool:
    probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"], capture_output=True, text=True, timeout=300)
    return probe.stdout.strip() == "True"


def test_auto_falls_back_to_cpu_when_torch_cannot_use_the_gpu(tmp_path, monkeypatch):
    """A driver is visible but torch is a CPU build: auto means the CPU; an explicit cuda is an error.

    The probe is the real one, ``check_torch_cuda``, run with this (CPU) torch; only the
    driver's presence is pretended, and the runs themselves are recorded, not made.
    """
    import io

    from kernelbook.capture import runner as capture_mod
    from kernelbook.safety.errors import KernelbookError
    from kernelbook.common.snippets import discover

    if _torch_can_use_a_gpu():
        pytest.skip("this torch can use a GPU here: there is nothing for --device auto to fall back from")
    with pytest.raises(KernelbookError, match=r"torch.cuda.is_available\(\) is False"):
        capture_mod.check_torch_cuda(sys.executable)  # the probe itself, on this CPU torch
    root = make_project(tmp_path / "book")
    write(root / "snippets/cha/hello.py", HELLO)
    monkeypatch.setattr(capture_mod, "cuda_present", lambda: True)
    ran = []
    monkeypatch.setattr(capture_mod, "run_all", lambda root, todo, device, *a, **k: ran.append(device) or [])
    log = io.StringIO()
    capture_mod.capture(root, discover(root), "auto", log=log)  # the default probe: check_torch_cuda
    assert ran == ["cpu"] and "falls back to the CPU" in log.getvalue()
    with pytest.raises(KernelbookError, match="install a CUDA build of torch"):
        capture_mod.capture(root, discover(root), "cuda", log=log)
    assert ran == ["cpu"]  # an explicit --device cuda never ran anything


def test_usage_errors_exit_2(tmp_path):
    root = make_project(tmp_path / "book")
    write(root / "snippets/cha/hello.py", HELLO)
    for args, word in ((["--shard", "3/2"], "--shard"), (["--shard", "x"], "--shard"), (["no-such-snippet"], "no snippet matches")):
        done = run_cli("capture", "--device", "cpu", *args, root=root)
        assert done.returncode == 2, args
        assert len(done.stderr.strip().splitlines()) == 1 and word in done.stderr, done.stderr
    assert not (root / "snippets/cha/captures").exists()


def test_project_root_from_cwd(tmp_path):
    """The project is the nearest folder above cwd with snippets/ and pyproject.toml (or a mkdocs.yml)."""
    root = make_project(tmp_path / "book")
    write(root / "snippets/cha/hello.py", HELLO)
    done = subprocess.run([sys.executable, "-m", "kernelbook", "status", "--json"], cwd=root / "snippets" / "cha",
                          env=cli_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert [(r["snippet"], r["state"]) for r in json.loads(done.stdout)] == [("cha/hello", "missing")] * 2


# ---------------------------------------------------------------- status on crafted captures


@pytest.fixture
def crafted(tmp_path) -> Path:
    """A project holding a copy of a real snippet and its real CPU capture (fresh: same source)."""
    root = make_project(tmp_path / "book")
    src = ROOT / "snippets" / "ch01"
    (root / "snippets/ch01/captures").mkdir(parents=True)
    shutil.copy2(src / "eager_profile.py", root / "snippets/ch01/eager_profile.py")
    for name in ("eager_profile.cpu.json", "eager_profile.cpu.trace0.json.gz"):
        shutil.copy2(src / "captures" / name, root / "snippets/ch01/captures" / name)
    return root


def status_of(root: Path) -> dict[tuple[str, str], dict]:
    done = run_cli("status", "--json", root=root)
    assert done.returncode == 0, done.stderr
    return {(r["snippet"], r["device"]): r for r in json.loads(done.stdout)}


def edit_capture(path: Path, change) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")


def test_crafted_copy_is_fresh(crafted):
    status = status_of(crafted)
    cpu = status[("ch01/eager_profile", "cpu")]
    assert cpu["state"] == "fresh", cpu
    assert cpu["torch"] == TORCH and cpu["device_name"].startswith("CPU")
    assert cpu["capture"] == "snippets/ch01/captures/eager_profile.cpu.json"
    assert status[("ch01/eager_profile", "cuda")]["state"] == "missing"


def test_cpu_capture_with_other_torch_is_stale(crafted):
    edit_capture(crafted / "snippets/ch01/captures/eager_profile.cpu.json",
                 lambda raw: raw["freshness"].update(torch="2.0.0+cpu"))
    cpu = status_of(crafted)[("ch01/eager_profile", "cpu")]
    assert cpu["state"] == "stale"
    assert "torch changed" in cpu["reason"] and "2.0.0+cpu" in cpu["reason"]
    assert "source changed" not in cpu["reason"]


def test_source_edit_is_stale(crafted):
    snippet = crafted / "snippets/ch01/eager_profile.py"
    snippet.write_text(snippet.read_text() + "# edited\n", encoding="utf-8")
    cpu = status_of(crafted)[("ch01/eager_profile", "cpu")]
    assert cpu["state"] == "stale" and cpu["reason"] == "source changed"


def _as_cuda_capture(root: Path, torch: str) -> Path:
    """The real CPU capture dressed up as one a GPU runner wrote with another torch."""
    cpu = root / "snippets/ch01/captures/eager_profile.cpu.json"
    cuda = root / "snippets/ch01/captures/eager_profile.cuda.json"
    shutil.copy2(cpu, cuda)

    def change(raw):
        raw["device"] = "cuda"
        raw["freshness"]["torch"] = torch
        raw["environment"].update(device_kind="cuda", device_name="NVIDIA A100-SXM4-80GB", torch=torch,
                                  compute_capability="8.0", cuda="12.8")
        for session in raw["sessions"]:
            session["device_kind"] = "cuda"
    edit_capture(cuda, change)
    return cuda


def test_cuda_capture_with_other_torch_is_fresh_on_a_cpu_only_machine(crafted):
    if cuda_present():
        pytest.skip("CUDA is present here: a CUDA capture's torch version counts on this machine")
    _as_cuda_capture(crafted, "2.99.0+cu128")
    status = status_of(crafted)
    cuda = status[("ch01/eager_profile", "cuda")]
    assert cuda["state"] == "fresh", cuda
    assert cuda["device_name"] == "NVIDIA A100-SXM4-80GB" and cuda["torch"] == "2.99.0+cu128"
    # ...while a CPU capture with that torch is stale: this machine can re-run it.
    edit_capture(crafted / "snippets/ch01/captures/eager_profile.cpu.json",
                 lambda raw: raw["freshness"].update(torch="2.99.0+cu128"))
    assert "torch changed" in status_of(crafted)[("ch01/eager_profile", "cpu")]["reason"]
    # --strict passes once every CUDA capture is fresh.
    done = run_cli("status", "--strict", root=crafted)
    assert done.returncode == 0, done.stderr


def test_status_strict_on_missing_cuda_capture(crafted):
    done = run_cli("status", "--strict", root=crafted)
    assert done.returncode == 1
    assert "ch01/eager_profile (missing)" in done.stderr


def test_corrupt_capture_is_unreadable(crafted):
    path = crafted / "snippets/ch01/captures/eager_profile.cpu.json"
    path.write_text('{"schema": "kernelbook.capture/1", "snippet": ', encoding="utf-8")
    cpu = status_of(crafted)[("ch01/eager_profile", "cpu")]
    assert cpu["state"] == "unreadable"
    assert str(path) in cpu["reason"] and "not valid JSON" in cpu["reason"]
    text = run_cli("status", root=crafted)
    assert text.returncode == 0 and "unreadable" in text.stdout and "Traceback" not in text.stderr


def test_wrong_schema_is_unreadable(crafted):
    path = crafted / "snippets/ch01/captures/eager_profile.cpu.json"
    edit_capture(path, lambda raw: raw.update(schema="kernelbook.capture/99"))
    cpu = status_of(crafted)[("ch01/eager_profile", "cpu")]
    assert cpu["state"] == "unreadable"
    assert str(path) in cpu["reason"] and "kernelbook.capture/99" in cpu["reason"]


def test_capture_of_another_snippet_is_unreadable(crafted):
    path = crafted / "snippets/ch01/captures/eager_profile.cpu.json"
    edit_capture(path, lambda raw: raw.update(snippet="ch01/something_else"))
    cpu = status_of(crafted)[("ch01/eager_profile", "cpu")]
    assert cpu["state"] == "unreadable" and str(path) in cpu["reason"]


def test_deciding_staleness_never_imports_torch(crafted):
    probe = ("import sys; from kernelbook.cli import main; "
             "assert main(['status']) == 0; assert main(['status', '--json']) == 0; "
             "assert main(['capture', '--device', 'cpu']) == 0; "
             "assert 'torch' not in sys.modules, 'torch was imported'")
    done = subprocess.run([sys.executable, "-c", probe], cwd=crafted, env=cli_env(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "nothing to capture" in done.stderr


def test_empty_profile_and_unstorable_results_fail_the_capture(tmp_path):
    """A profile of nothing, or a `results` that can't be stored, is never published as a capture."""
    root = make_project(tmp_path / "book")
    write(root / "snippets/chz/empty_profile.py", """
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU]):
            pass
        """)
    write(root / "snippets/chz/odd_results.py", """
        results = {"when": object()}
        """)
    done = run_cli("capture", "--device", "cpu", root=root)
    assert done.returncode == 1
    assert "FAILED chz/empty_profile (cpu)" in done.stderr and "FAILED chz/odd_results (cpu)" in done.stderr
    assert "recorded no kernel" in done.stderr
    assert "`results` must be JSON-serialisable" in done.stderr
    assert not (root / "snippets/chz/captures").exists() or not list((root / "snippets/chz/captures").glob("*.json"))
