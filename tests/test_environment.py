"""A CUDA capture goes stale when the machine about to capture differs: GPU, compute
capability, CUDA runtime, driver major version or triton. Faked here (no GPU): a fake
``nvidia-smi`` on PATH, a fake torch whose ``version.py`` is read and never imported."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, cli_env, make_project, run_cli, write
from kernelbook.common import freshness, machine
from kernelbook.common.snippets import discover, source_hash

A100 = ("NVIDIA A100-SXM4-80GB", "8.0", "570.86.15")
RECORDED = {"device_name": A100[0], "compute_capability": A100[1], "driver": A100[2], "cuda": "12.8", "triton": "3.7.1"}


def cuda_book(root: Path, **environment) -> Path:
    """A book with one snippet, its real CPU capture and a CUDA capture recording RECORDED (or ``environment``)."""
    make_project(root)
    src = ROOT / "snippets/ch01"
    (root / "snippets/ch01/captures").mkdir(parents=True)
    shutil.copy2(src / "eager_profile.py", root / "snippets/ch01/eager_profile.py")
    for name in ("eager_profile.cpu.json", "eager_profile.cpu.trace0.json.gz"):
        shutil.copy2(src / "captures" / name, root / "snippets/ch01/captures" / name)
    raw = json.loads((src / "captures/eager_profile.cpu.json").read_text(encoding="utf-8"))
    raw["device"] = "cuda"
    raw["environment"].update(device_kind="cuda", **{**RECORDED, **environment})
    for session in raw["sessions"]:
        session["device_kind"] = "cuda"
    raw["trace_files"] = []
    (root / "snippets/ch01/captures/eager_profile.cuda.json").write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return root


@pytest.fixture
def fake_machine(monkeypatch):
    """This process sees the GPU, runtime and triton the CUDA capture recorded; a test changes one."""
    now = dict(RECORDED)

    def gpu():
        return (now["device_name"], now["compute_capability"], now["driver"]) if now["device_name"] else None

    monkeypatch.setattr(machine, "nvidia_gpu", gpu)
    monkeypatch.setattr(machine, "cuda_runtime", lambda: now["cuda"])
    monkeypatch.setattr(machine, "triton_version", lambda: now["triton"])
    return now


def cuda_state(root: Path, runnable=("cuda", "cpu")) -> freshness.State:
    (snippet,) = discover(root)
    torch = json.loads(snippet.capture_path("cuda").read_text(encoding="utf-8"))["freshness"]["torch"]
    return freshness.assess(root, snippet, "cuda", runnable, torch)


CHANGES = [
    ("device_name", "NVIDIA H100 80GB HBM3", "GPU changed (NVIDIA A100-SXM4-80GB -> NVIDIA H100 80GB HBM3)"),
    ("compute_capability", "9.0", "compute capability changed (8.0 -> 9.0)"),
    ("cuda", "13.0", "CUDA runtime changed (12.8 -> 13.0)"),
    ("cuda", None, "CUDA runtime changed (12.8 -> none)"),
    ("driver", "580.65.06", "driver major version changed (570 -> 580)"),
    ("triton", "3.8.0", "triton changed (3.7.1 -> 3.8.0)"),
    ("triton", None, "triton changed (3.7.1 -> none)"),
]


def test_same_machine_is_fresh(tmp_path, fake_machine):
    state = cuda_state(cuda_book(tmp_path / "book"))
    assert state.state == "fresh", state.reason


@pytest.mark.parametrize("field, value, reason", CHANGES, ids=[f"{f}={v}" for f, v, _ in CHANGES])
def test_each_environment_change_makes_a_cuda_capture_stale_and_is_named(tmp_path, fake_machine, field, value, reason):
    root = cuda_book(tmp_path / "book")
    fake_machine[field] = value
    state = cuda_state(root)
    assert (state.state, state.reason) == ("stale", reason)
    assert state.changed == (field,)
    assert state.true_of_source  # still a true record of the snippet: pages may show it


def test_a_driver_update_within_the_major_version_is_no_change(tmp_path, fake_machine):
    root = cuda_book(tmp_path / "book")
    fake_machine["driver"] = "570.172.08"
    assert cuda_state(root).state == "fresh"


def test_every_change_is_named_at_once(tmp_path, fake_machine):
    root = cuda_book(tmp_path / "book")
    fake_machine.update(device_name="NVIDIA H200", compute_capability="9.0", triton="3.8.0")
    state = cuda_state(root)
    assert state.reason == ("GPU changed (NVIDIA A100-SXM4-80GB -> NVIDIA H200), compute capability changed (8.0 -> 9.0), "
                            "triton changed (3.7.1 -> 3.8.0)")


def test_a_mig_slice_of_the_same_gpu_is_the_same_gpu(tmp_path, fake_machine):
    """torch names a MIG slice after its GPU; nvidia-smi names the GPU: no change."""
    root = cuda_book(tmp_path / "book", device_name="NVIDIA A100-SXM4-80GB MIG 1g.10gb")
    assert cuda_state(root).state == "fresh"
    fake_machine["device_name"] = "NVIDIA A100-SXM4-80GB-X"  # another GPU, however alike its name
    assert cuda_state(root).state == "stale"


def test_an_old_driver_without_compute_cap_still_names_the_gpu(tmp_path, monkeypatch):
    smi = tmp_path / "bin" / "nvidia-smi"
    smi.parent.mkdir()
    smi.write_text('#!/bin/sh\ncase "$*" in *compute_cap*) echo "Field compute_cap is not a valid field" >&2; exit 2;; esac\n'
                   'echo "Tesla V100-SXM2-16GB, 450.80.02"\n', encoding="utf-8")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{smi.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    machine.nvidia_gpu.cache_clear()
    try:
        assert machine.nvidia_gpu() == ("Tesla V100-SXM2-16GB", None, "450.80.02")
    finally:
        machine.nvidia_gpu.cache_clear()


def test_what_nvidia_smi_cannot_tell_is_not_compared(tmp_path, fake_machine):
    root = cuda_book(tmp_path / "book")
    fake_machine.update(device_name=None)  # nvidia-smi gave no answer
    assert cuda_state(root).state == "fresh"


def test_without_cuda_here_the_environment_never_makes_a_cuda_capture_stale(tmp_path, fake_machine):
    root = cuda_book(tmp_path / "book")
    fake_machine.update(device_name="NVIDIA H100", cuda="99.0", triton="0.0")
    assert cuda_state(root, runnable=("cpu",)).state == "fresh"


def test_a_cpu_capture_does_not_compare_the_cpu_model(tmp_path, fake_machine):
    """Decided: a CPU capture is a rehearsal; every CI runner's CPU differs, and re-running on each would churn."""
    root = cuda_book(tmp_path / "book")
    path = root / "snippets/ch01/captures/eager_profile.cpu.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["environment"].update(device_name="CPU (some other model)", triton=fake_machine["triton"])
    path.write_text(json.dumps(raw), encoding="utf-8")
    (snippet,) = discover(root)
    assert freshness.assess(root, snippet, "cpu", ("cuda", "cpu"), raw["freshness"]["torch"]).state == "fresh"


@pytest.mark.parametrize("then, now, reason", [
    (None, "3.7.1", "triton changed (none -> 3.7.1)"),  # main's red suite: captured without triton, run with it
    ("3.7.1", None, "triton changed (3.7.1 -> none)"),
    ("3.7.1", "3.8.0", "triton changed (3.7.1 -> 3.8.0)"),
])
def test_triton_installed_removed_or_upgraded_makes_a_cpu_capture_stale(tmp_path, fake_machine, then, now, reason):
    """On a CPU, triton's presence changes what inductor compiles (the graph_N_ of a C++ kernel) and
    what chapter 4's interpreter does: a capture taken under another triton is not what a run shows now."""
    root = cuda_book(tmp_path / "book")
    path = root / "snippets/ch01/captures/eager_profile.cpu.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["environment"]["triton"] = then
    path.write_text(json.dumps(raw), encoding="utf-8")
    fake_machine.update(triton=now)
    (snippet,) = discover(root)
    state = freshness.assess(root, snippet, "cpu", ("cpu",), raw["freshness"]["torch"])
    assert (state.state, state.reason, state.changed) == ("stale", reason, ("triton",))
    assert state.true_of_source  # still a true record of its snippet: the pages go on showing it


@pytest.mark.parametrize("device, then, now", [
    ("cpu", "2.13.0+cpu", "2.13.0"),  # a CPU capture from the CPU wheel, on a machine with PyPI's CUDA wheel
    ("cpu", "2.13.0", "2.13.0+cpu"),
    ("cuda", "2.13.0", "2.13.0+cu126"),  # the same torch version from another CUDA index
])
def test_another_build_of_the_same_torch_version_makes_a_capture_stale(tmp_path, fake_machine, device, then, now):
    """The README promises it: a capture records the exact torch build (`2.13.0+cpu`), and another build is a change."""
    root = cuda_book(tmp_path / "book")
    path = root / f"snippets/ch01/captures/eager_profile.{device}.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["freshness"]["torch"] = then
    raw["environment"].update(torch=then, triton=fake_machine["triton"])
    path.write_text(json.dumps(raw), encoding="utf-8")
    (snippet,) = discover(root)
    state = freshness.assess(root, snippet, device, ("cuda", "cpu"), now)
    assert (state.state, state.reason) == ("stale", f"torch changed ({then} -> {now})")


# ---------------------------------------------------------------- the real probes, faked from outside

FAKE_SMI = """#!/bin/sh
echo "$@" >> "{log}"
echo "{name}, {cc}, {driver}"
"""


def fake_smi(folder: Path, gpu=A100) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "calls.txt"
    smi = folder / "nvidia-smi"
    smi.write_text(FAKE_SMI.format(log=log, name=gpu[0], cc=gpu[1], driver=gpu[2]), encoding="utf-8")
    smi.chmod(0o755)
    return log


def test_status_names_the_change_from_a_real_nvidia_smi_query(tmp_path):
    """The CLI end to end, with a fake nvidia-smi: one query for the whole run, and no torch import."""
    root = cuda_book(tmp_path / "book", cuda=machine.cuda_runtime(), triton=machine.triton_version())
    captures = root / "snippets/ch01/captures"
    for name in ("other", "third"):  # more CUDA captures: still one nvidia-smi query
        snippet = shutil.copy2(root / "snippets/ch01/eager_profile.py", root / f"snippets/ch01/{name}.py")
        for device in ("cpu", "cuda"):
            raw = json.loads((captures / f"eager_profile.{device}.json").read_text(encoding="utf-8"))
            raw.update(snippet=f"ch01/{name}", trace_files=[])
            raw["freshness"]["source_hash"] = source_hash(Path(snippet))
            (captures / f"{name}.{device}.json").write_text(json.dumps(raw), encoding="utf-8")
    log = fake_smi(tmp_path / "bin", ("NVIDIA H100 80GB HBM3", "9.0", "580.65.06"))
    env = {"PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    # torch as the CUDA captures recorded it, so that only the GPU's fields differ
    torch = json.loads((root / "snippets/ch01/captures/eager_profile.cuda.json").read_text())["freshness"]["torch"]
    probe = ("import sys; from kernelbook.common import freshness; freshness.installed_torch = lambda: %r; "
             "from kernelbook.cli import main; code = main(['status']); "
             "assert 'torch' not in sys.modules, 'torch was imported'; sys.exit(code)") % torch
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, env=cli_env(**env), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if " cuda " in line]
    assert len(rows) == 3, done.stdout
    for row in rows:
        assert row.startswith("stale"), row
        assert ("(GPU changed (NVIDIA A100-SXM4-80GB -> NVIDIA H100 80GB HBM3), compute capability changed (8.0 -> 9.0), "
                "driver major version changed (570 -> 580))") in row, row
    assert len(log.read_text().splitlines()) == 1  # asked once per process
    # CUDA hidden from this process: no query, and CUDA captures are judged by their source alone
    hidden = run_cli("status", root=root, CUDA_VISIBLE_DEVICES="", **env)
    assert hidden.returncode == 0 and len(log.read_text().splitlines()) == 1
    assert all(" cuda " not in line or line.startswith("fresh") for line in hidden.stdout.splitlines()), hidden.stdout


def test_the_cuda_runtime_is_read_from_torch_version_py_without_importing_torch(tmp_path):
    fake = tmp_path / "fake"
    write(fake / "torch/__init__.py", "raise RuntimeError('torch must not be imported to decide freshness')\n")
    write(fake / "torch/version.py", "from typing import Optional\n\n__version__ = '2.13.0+cu128'\n"
          "git_version = 'abc'\ncuda: Optional[str] = '12.8'\nhip: Optional[str] = None\n")
    probe = "from kernelbook.common import machine; print(machine.cuda_runtime())"
    done = subprocess.run([sys.executable, "-c", probe], env=cli_env(PYTHONPATH=f"{fake}{os.pathsep}{ROOT / 'scripts'}"),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "12.8"
    write(fake / "torch/version.py", "cuda = None\n")
    done = subprocess.run([sys.executable, "-c", probe], env=cli_env(PYTHONPATH=f"{fake}{os.pathsep}{ROOT / 'scripts'}"),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "None"


def test_nvidia_smi_asks_for_the_first_visible_gpu(tmp_path, monkeypatch):
    log = fake_smi(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    machine.nvidia_gpu.cache_clear()
    try:
        assert machine.nvidia_gpu() == A100
    finally:
        machine.nvidia_gpu.cache_clear()
    assert "--id=2" in log.read_text()
