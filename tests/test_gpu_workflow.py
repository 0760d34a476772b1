"""The GPU workflow's own shell steps, run as written without a GPU, and the order it keeps.

Each `run:` script is read from site-gpu.yml and executed with bash -eo pipefail (as the
workflow's `defaults.run.shell: bash` does) in a temporary tree with fake artifacts, and
fake `nvidia-smi` / `gh` programs where a step calls one. The captures are crafted with the
snippet's real source hash (so `kernelbook status` judges them as it would committed ones);
the failing claim comes from a real failing `kernelbook build --no-capture`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, copy_project, make_project, run_cli, write
from kernelbook import CAPTURE_FORMAT
from kernelbook.capture import preflight
from kernelbook.common.freshness import installed_torch
from kernelbook.common.machine import triton_version  # a CPU capture records it: this machine's, so it is fresh here
from kernelbook.common.records import SCHEMA, from_json
from kernelbook.common.snippets import source_hash

SITE_GPU = ROOT / ".github" / "workflows" / "site-gpu.yml"
DOC = yaml.safe_load(SITE_GPU.read_text(encoding="utf-8"))
OFFLINE = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": "",
           "https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9", "no_proxy": ""}
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]


def step(job: str, test) -> tuple[int, dict]:
    found = [(i, s) for i, s in enumerate(DOC["jobs"][job]["steps"]) if test(s)]
    assert len(found) == 1, f"{job}: {len(found)} matching step(s)"
    return found[0]


def named(job: str, name: str) -> tuple[int, dict]:
    return step(job, lambda s: s.get("name") == name or s.get("id") == name)


def uses(job: str, action: str, **with_) -> tuple[int, dict]:
    return step(job, lambda s: s.get("uses", "").startswith(action + "@")
                and all(s.get("with", {}).get(k) == v for k, v in with_.items()))


class Runner:
    """One job's environment: RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, and a bin/ for fakes."""

    def __init__(self, base: Path):
        self.temp = base / "runner-temp"
        self.bin = base / "bin"
        self.temp.mkdir(parents=True)
        self.bin.mkdir()
        self.output = self.temp / "output"
        self.summary = self.temp / "summary.md"

    def fake(self, name: str, script: str) -> None:
        path = self.bin / name
        path.write_text("#!/bin/bash\n" + script, encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def run(self, script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
        full = {k: v for k, v in os.environ.items() if k not in ("GH_TOKEN", "GITHUB_TOKEN", "PYTHONPATH")}
        full.update(OFFLINE)
        full.update({"RUNNER_TEMP": str(self.temp), "GITHUB_OUTPUT": str(self.output), "GITHUB_STEP_SUMMARY": str(self.summary),
                     "PATH": f"{self.bin}{os.pathsep}{full['PATH']}", "PYTHONDONTWRITEBYTECODE": "1"})
        full.update(env)
        return subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=cwd, env=full,
                              capture_output=True, text=True, timeout=300)

    def outputs(self) -> dict[str, str]:
        text = self.output.read_text(encoding="utf-8") if self.output.exists() else ""
        return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

    def summary_text(self) -> str:
        return self.summary.read_text(encoding="utf-8") if self.summary.exists() else ""


@pytest.fixture
def runner(tmp_path) -> Runner:
    return Runner(tmp_path)


def crafted(root: Path, snippet: str, device: str, source: str | None = None, **env) -> Path:
    """A capture of ``snippet`` as `kernelbook capture` writes it, fresh against ``source`` (default: the file now)."""
    chapter, name = snippet.split("/")
    code = root / "snippets" / chapter / f"{name}.py"
    if source is None:
        digest = source_hash(code)
    else:
        other = root.parent / f"{root.name}-earlier" / chapter / f"{name}.py"
        write(other, source)
        digest = source_hash(other)
    environment = {"device_kind": device, "device_name": "NVIDIA H200" if device == "cuda" else "CPU (test)",
                   "torch": "2.13.0", "python": "3.12.3", "platform": "Linux", "captured_at": "2026-01-02T03:04:05Z",
                   "compute_capability": "9.0" if device == "cuda" else None, "driver": None,
                   "cuda": "13.0" if device == "cuda" else None, "triton": triton_version(), "git_commit": None, "settings": {}}
    environment.update(env)
    raw = {"schema": SCHEMA, "snippet": snippet, "device": device,
           "freshness": {"source_hash": digest, "format": CAPTURE_FORMAT, "torch": environment["torch"]},
           "environment": environment, "wall_time_s": 1.0, "stdout": ["hi\n"], "stderr": [],
           "sessions": [], "data": None, "trace_files": []}
    from_json(raw, "crafted")  # a well-formed capture, or the test is wrong
    return write(root / "snippets" / chapter / "captures" / f"{name}.{device}.json", json.dumps(raw, indent=1))


def book(root: Path, snippets=("ch01/a", "ch01/b")) -> Path:
    """A tiny book with its scripts/ (the plan job runs `PYTHONPATH=scripts python3 -m kernelbook`)."""
    make_project(root)
    (root / "scripts").symlink_to(ROOT / "scripts")
    for sid in snippets:
        chapter, name = sid.split("/")
        write(root / "snippets" / chapter / f"{name}.py", f"print({name!r})\n")
    return root


def git_commit(tree: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(GIT + args, cwd=tree, check=True, capture_output=True)


# ---------------------------------------------------------------- plan: shards, and what the build would refuse


@pytest.mark.parametrize("given, count", [("", 1), ("1", 1), ("3", 3), ("016", 16)])
def test_plan_turns_shards_into_a_matrix(runner, tmp_path, given, count):
    _, plan = named("plan", "plan")
    done = runner.run(plan["run"], tmp_path, SHARDS=given)
    assert done.returncode == 0, done.stdout + done.stderr
    assert runner.outputs() == {"count": str(count), "shards": json.dumps(list(range(1, count + 1))).replace(" ", "")}


@pytest.mark.parametrize("given", ["0", "17", "x", "-1", "1.5"])
def test_plan_refuses_a_shard_count_out_of_range_zero_included(runner, tmp_path, given):
    _, plan = named("plan", "plan")
    assert plan["env"]["SHARDS"] == "${{ inputs.shards }}"  # no `|| 1`: that turned 0 into 1
    done = runner.run(plan["run"], tmp_path, SHARDS=given)
    assert done.returncode == 1
    assert "::error::the shards input must be a whole number from 1 to 16" in done.stdout and given in done.stdout
    assert runner.outputs() == {}


def _gate(runner: Runner, tree: Path, event: str) -> subprocess.CompletedProcess:
    """The plan job's gate, with python3 a bare interpreter: the standard library alone, no torch."""
    _, gate = named("plan", "captures")
    assert "python3 -m kernelbook status --json" in gate["run"] and ".venv" not in gate["run"]
    runner.fake("python3", f'exec "{sys.executable}" -S "$@"\n')  # -S: no site-packages at all
    return runner.run(gate["run"], tree, EVENT=event)


def test_plan_stops_on_a_stale_cpu_capture_before_any_gpu_work(runner, tmp_path):
    tree = book(tmp_path / "tree")
    crafted(tree, "ch01/a", "cpu")
    crafted(tree, "ch01/b", "cpu", source="print('b, before the edit')\n")  # stale: the snippet changed since
    crafted(tree, "ch01/a", "cuda")
    crafted(tree, "ch01/b", "cuda")  # fresh: only the CPU capture is wrong, and the GPU cannot mend it
    done = _gate(runner, tree, "schedule")
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1, done.stdout
    # the plan job runs without the venv: where this machine has triton, the reason names that change too
    assert errors[0].startswith("::error file=snippets/ch01/captures/b.cpu.json::ch01/b: cpu capture b.cpu.json is stale (source changed")
    assert "kernelbook capture --device cpu ch01/b" in errors[0]
    assert "ch01/b" in runner.summary_text() and "before any GPU work" in runner.summary_text()
    assert "ch01/a" not in runner.summary_text()


def test_plan_stops_on_a_snippet_with_no_capture_the_build_could_show(runner, tmp_path):
    tree = book(tmp_path / "tree")
    crafted(tree, "ch01/a", "cpu")
    done = _gate(runner, tree, "push")  # ch01/b has none at all: site-cpu fails on it too
    assert done.returncode == 1
    assert "::error file=snippets/ch01/b.py::ch01/b: cpu capture b.cpu.json is missing" in done.stdout


@pytest.mark.parametrize("event, cuda, gpu", [
    ("push", "fresh", "false"),      # prose only: deploy without waiting for the GPU runner
    ("push", "missing", "true"),
    ("push", "stale", "true"),
    ("schedule", "fresh", "true"),   # only the GPU sees a new driver or torch
    ("workflow_dispatch", "fresh", "true"),
])
def test_plan_asks_for_the_gpu_only_when_it_is_needed(runner, tmp_path, event, cuda, gpu):
    tree = book(tmp_path / "tree")
    for sid in ("ch01/a", "ch01/b"):
        crafted(tree, sid, "cpu")
        if cuda == "fresh" or (cuda == "stale" and sid == "ch01/b"):
            crafted(tree, sid, "cuda", source="print('old')\n" if cuda == "stale" else None)
        elif sid == "ch01/a":
            crafted(tree, sid, "cuda")
    done = _gate(runner, tree, event)
    assert done.returncode == 0, done.stdout + done.stderr
    assert runner.outputs() == {"gpu": gpu}
    assert "::error" not in done.stdout and runner.summary_text() == ""


def test_the_capture_job_runs_only_when_the_plan_asks_for_the_gpu():
    capture = DOC["jobs"]["capture"]
    assert capture["if"] == "needs.plan.outputs.gpu == 'true'"
    assert DOC["jobs"]["plan"]["outputs"]["gpu"] == "${{ steps.captures.outputs.gpu }}"
    assert DOC["jobs"]["plan"]["runs-on"] == "ubuntu-latest"  # before any GPU work


# ---------------------------------------------------------------- status: what the build would refuse, CPU captures included


def test_status_strict_and_json_count_a_stale_cpu_capture_the_build_would_refuse(tmp_path):
    tree = book(tmp_path / "tree")
    for sid in ("ch01/a", "ch01/b"):
        crafted(tree, sid, "cuda")
    here = installed_torch() or "2.13.0"  # this machine's torch: only the source differs
    crafted(tree, "ch01/a", "cpu", torch=here)
    crafted(tree, "ch01/b", "cpu", source="print('b, before the edit')\n", torch=here)
    records = {(r["snippet"], r["device"]): r for r in json.loads(run_cli("status", "--json", root=tree).stdout)}
    assert records[("ch01/b", "cpu")]["refused"].startswith("cpu capture b.cpu.json is stale (source changed)")
    assert [k for k, r in records.items() if r["refused"]] == [("ch01/b", "cpu")]
    done = run_cli("status", "--strict", root=tree)
    assert done.returncode == 1
    assert "CUDA capture(s) not fresh" not in done.stderr  # every CUDA capture is fresh: the CPU one alone fails it
    assert "--strict: the build would refuse 1 capture(s): ch01/b: cpu capture b.cpu.json is stale" in done.stderr
    crafted(tree, "ch01/b", "cpu", torch=here)  # re-captured: nothing left to refuse
    done = run_cli("status", "--strict", root=tree)
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- capture: a failing snippet keeps its shard's good captures


def test_collect_and_upload_run_even_when_a_snippet_failed():
    captured, _ = named("capture", "Capture this shard on the GPU")
    collect, collect_step = named("capture", "Collect this shard's captures")
    upload, upload_step = uses("capture", "actions/upload-artifact", name="captures-shard-${{ matrix.shard }}-of-${{ needs.plan.outputs.count }}")
    assert captured < collect < upload
    assert collect_step["if"] == "${{ !cancelled() }}" and upload_step["if"] == "${{ !cancelled() }}"
    tracebacks, step_ = named("capture", "Keep the failures' tracebacks")
    assert step_["if"] == "failure()"


def test_collect_keeps_what_a_shard_wrote_and_names_its_gpu(runner, tmp_path):
    tree = book(tmp_path / "tree", snippets=("ch01/a", "ch01/b", "ch02/c"))
    crafted(tree, "ch01/a", "cuda", captured_at="2025-01-01T00:00:00Z")
    git_commit(tree)
    crafted(tree, "ch01/a", "cuda")  # re-captured by this shard
    crafted(tree, "ch02/c", "cuda")  # a first capture; ch01/b failed and wrote nothing
    runner.fake("nvidia-smi", 'for a in "$@"; do [ "$a" = --id=1 ] && { echo "NVIDIA H200"; exit 0; }; done; exit 9\n')
    _, collect = named("capture", "Collect this shard's captures")
    done = runner.run(collect["run"], tree, SHARD="2/3", CUDA_VISIBLE_DEVICES="1")
    assert done.returncode == 0, done.stdout + done.stderr
    shard = runner.temp / "shard"
    files = sorted(str(p.relative_to(shard)) for p in shard.rglob("*") if p.is_file())
    assert files == ["gpu.txt", "shard.txt", "snippets/ch01/captures/a.cuda.json", "snippets/ch02/captures/c.cuda.json"]
    assert (shard / "shard.txt").read_text() == "2/3\n" and (shard / "gpu.txt").read_text() == "NVIDIA H200\n"
    runner.fake("nvidia-smi", "exit 9\n")  # no answer: the shard still uploads, its GPU unknown
    assert runner.run(collect["run"], tree, SHARD="2/3").returncode == 0
    assert (shard / "gpu.txt").read_text() == "unknown\n"


# ---------------------------------------------------------------- publish: merge, keep at once, then check


def _venv_in(tree: Path) -> None:
    (tree / ".venv").symlink_to(Path(sys.executable).parents[1])  # the steps call .venv/bin/kernelbook


def _artifact(runner: Runner, name: str, tree: Path, files: list[str], shard: str, gpu: str = "NVIDIA H200") -> Path:
    """What download-artifact leaves for one shard (several: shards/<name>/...)."""
    dest = runner.temp / "shards" / name
    for rel in files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(tree / rel, target)
    write(dest / "shard.txt", shard + "\n")
    write(dest / "gpu.txt", gpu + "\n")
    return dest


def _publish_tree(tmp_path: Path, runner: Runner) -> tuple[Path, Path]:
    """The checkout publish merges into, and a GPU tree whose shard 1 captured ch01/a while shard 2's ch01/b failed."""
    tree = book(tmp_path / "tree")
    for sid in ("ch01/a", "ch01/b"):
        crafted(tree, sid, "cpu")
    git_commit(tree)
    _venv_in(tree)
    gpu = book(tmp_path / "gpu")
    crafted(gpu, "ch01/a", "cuda")
    return tree, gpu


def test_merge_keeps_the_good_captures_of_a_shard_whose_snippet_failed(runner, tmp_path):
    tree, gpu = _publish_tree(tmp_path, runner)
    _artifact(runner, "captures-shard-1-of-2", gpu, ["snippets/ch01/captures/a.cuda.json"], "1/2")
    _artifact(runner, "captures-shard-2-of-2", gpu, [], "2/2")  # ch01/b failed: nothing but shard.txt and gpu.txt
    _, merge = named("publish", "merge")
    done = runner.run(merge["run"], tree)
    assert done.returncode == 0, done.stdout + done.stderr
    assert runner.outputs() == {"found": "2"}
    assert (tree / "snippets/ch01/captures/a.cuda.json").read_bytes() == (gpu / "snippets/ch01/captures/a.cuda.json").read_bytes()
    merged = runner.temp / "merged"
    assert sorted(str(p.relative_to(merged)) for p in merged.rglob("*") if p.is_file()) == ["snippets/ch01/captures/a.cuda.json"]

    # then: the shard's failure stops the run, naming where its good captures are
    _, check = named("publish", "Refuse to go on unless every shard delivered its captures")
    done = runner.run(check["run"], tree, FOUND="2", SHARD_COUNT="2", CAPTURE="failure")
    assert done.returncode == 1
    assert "::error::a capture shard did not succeed (failure)" in done.stdout and "merged-captures" in done.stdout
    done = runner.run(check["run"], tree, FOUND="1", SHARD_COUNT="2", CAPTURE="failure")
    assert done.returncode == 1 and "expected 2 shard artifact(s), found 1" in done.stdout
    assert runner.run(check["run"], tree, FOUND="2", SHARD_COUNT="2", CAPTURE="success").returncode == 0


def test_merge_refuses_shards_from_two_gpu_models(runner, tmp_path):
    tree, gpu = _publish_tree(tmp_path, runner)
    _artifact(runner, "captures-shard-1-of-2", gpu, ["snippets/ch01/captures/a.cuda.json"], "1/2")
    _artifact(runner, "captures-shard-2-of-2", gpu, [], "2/2", gpu="NVIDIA A100-SXM4-80GB")
    _, merge = named("publish", "merge")
    done = runner.run(merge["run"], tree)
    assert done.returncode == 1
    assert "::error::the shards ran on 2 GPU models (NVIDIA A100-SXM4-80GB,NVIDIA H200)" in done.stdout
    assert "its own runner label" in done.stdout
    assert not (tree / "snippets/ch01/captures/a.cuda.json").exists()  # refused before merging


def test_one_artifact_lands_in_the_folder_itself(runner, tmp_path):
    tree, gpu = _publish_tree(tmp_path, runner)
    dest = _artifact(runner, "only", gpu, ["snippets/ch01/captures/a.cuda.json"], "1/1", gpu="unknown")
    for item in dest.iterdir():
        item.rename(runner.temp / "shards" / item.name)
    dest.rmdir()
    _, merge = named("publish", "merge")
    done = runner.run(merge["run"], tree)
    assert done.returncode == 0, done.stdout + done.stderr
    assert runner.outputs() == {"found": "1"} and (tree / "snippets/ch01/captures/a.cuda.json").is_file()


def test_publish_keeps_the_merged_captures_before_any_check_can_fail():
    merge, _ = named("publish", "merge")
    keep, step_ = uses("publish", "actions/upload-artifact", name="merged-captures")
    assert keep == merge + 1, "the merged captures are uploaded right after the merge"
    assert step_["if"] == "steps.merge.outcome == 'success'"
    assert step_["with"]["path"] == "${{ runner.temp }}/merged/"
    for later in ("Refuse to go on unless every shard delivered its captures",
                  "Refuse to publish unless every CUDA capture is fresh and the build takes every capture",
                  "Build the site from the captures only"):
        assert keep < named("publish", later)[0]
    download, step_ = uses("publish", "actions/download-artifact")
    assert download < merge and step_["if"] == "needs.plan.outputs.gpu == 'true'"


def test_later_jobs_run_after_a_failed_or_skipped_capture_and_stop_when_cancelled():
    jobs = DOC["jobs"]
    assert jobs["publish"]["if"] == "${{ !cancelled() && needs.plan.result == 'success' }}"
    for name in ("deploy", "propose"):
        condition = jobs[name]["if"]
        # a skipped capture job (no GPU needed) would otherwise skip every job after it
        assert condition.startswith("${{ !cancelled() && needs.publish.result == 'success'")
        assert "github.ref == 'refs/heads/main'" in condition
    assert "needs.publish.outputs.newest == 'true'" in jobs["deploy"]["if"]


# ---------------------------------------------------------------- publish: the failing claims in the job summary


@pytest.fixture(scope="module")
def failing_build_log(tmp_path_factory) -> str:
    """stderr of a real `kernelbook build --no-capture` of the book with a claim its captures contradict."""
    book_ = copy_project(tmp_path_factory.mktemp("claims") / "book")
    for lang in ("ja", "en"):
        page = book_ / f"docs/{lang}/ch01/index.md"
        page.write_text(page.read_text(encoding="utf-8") + "\n[[kb:launches ch01/eager_profile == 99]]\n", encoding="utf-8")
    done = run_cli("build", "--no-capture", root=book_, NO_MKDOCS_2_WARNING="1")
    assert done.returncode == 1, done.stderr[-3000:]
    return done.stderr


def test_the_job_summary_names_the_failing_claim(runner, tmp_path, failing_build_log):
    (runner.temp / "build.log").write_text(failing_build_log, encoding="utf-8")
    summarise, step_ = named("publish", "Write the failing claims into the job summary")
    assert step_["if"] == "failure()" and summarise > named("publish", "Build the site from the captures only")[0]
    done = runner.run(step_["run"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = runner.summary_text()
    assert summary.startswith("### Claims the new captures contradict")
    assert "merged-captures" in summary and "Rebuilding on a GPU runner" in summary
    claims = [line for line in summary.splitlines() if line.startswith("- ")]
    assert claims and all("[[kb:launches ch01/eager_profile == 99]]" in line for line in claims), summary
    assert any(re.match(r"- (ja|en)/ch01/index\.md: \[\[kb:launches ch01/eager_profile == 99\]\]: the cpu capture eager_profile\.cpu\.json says 2", line)
               for line in claims), summary
    assert "problem(s) in the book" not in summary and "Other problems" not in summary


def test_the_job_summary_step_is_quiet_without_logs(runner, tmp_path):
    _, step_ = named("publish", "Write the failing claims into the job summary")
    done = runner.run(step_["run"], tmp_path)  # the run stopped before notebooks and build
    assert done.returncode == 0 and runner.summary_text() == ""


def test_notebooks_and_build_keep_their_logs_and_their_exit_status(runner, tmp_path):
    for name, log in (("Regenerate the chapter notebooks from the merged captures", "notebooks.log"),
                      ("Build the site from the captures only", "build.log")):
        _, step_ = named("publish", name)
        fake = tmp_path / name.split()[0] / ".venv" / "bin"
        fake.mkdir(parents=True)
        (fake / "kernelbook").write_text("#!/bin/bash\necho 'ERROR   -  a problem' >&2\nexit 1\n", encoding="utf-8")
        (fake / "kernelbook").chmod(0o755)
        done = runner.run(step_["run"], fake.parents[1])
        assert done.returncode == 1 and "ERROR   -  a problem" in done.stderr
        assert (runner.temp / log).read_text(encoding="utf-8") == "ERROR   -  a problem\n"


# ---------------------------------------------------------------- publish: deploy only the branch's newest commit


@pytest.mark.parametrize("head, answer, newest", [
    ("abc123", 0, "true"),
    ("def456", 0, "false"),   # a later push deployed already
    ("", 1, "true"),          # the API could not be read: deploy as before, with a warning
])
def test_deploy_only_the_newest_commit(runner, tmp_path, head, answer, newest):
    _, step_ = named("publish", "newest")
    assert step_["env"]["GH_TOKEN"] == "${{ github.token }}"
    runner.fake("gh", f'[ "$*" = "api repos/o/r/git/ref/heads/main --jq .object.sha" ] || exit 7\necho {head}\nexit {answer}\n')
    done = runner.run(step_["run"], tmp_path, GITHUB_REF="refs/heads/main", GITHUB_REF_NAME="main",
                      GITHUB_REPOSITORY="o/r", GITHUB_SHA="abc123")
    assert done.returncode == 0, done.stdout + done.stderr
    assert runner.outputs() == {"newest": newest}
    if newest == "false":
        assert "::notice::refs/heads/main is at def456 now, not abc123" in done.stdout
    if answer:
        assert "::warning::" in done.stdout


# ---------------------------------------------------------------- capture: Python, torch index, preflight


def test_capture_pins_python_and_takes_a_torch_index_for_itself_only():
    inputs = DOC[True]["workflow_dispatch"]["inputs"]
    assert inputs["torch_index"]["default"] == "" and "cu126" in inputs["torch_index"]["description"]
    assert "TORCH_INDEX" not in DOC["env"] and "TORCH_INDEX" not in DOC["jobs"]["publish"].get("env", {})
    assert DOC["jobs"]["capture"]["env"]["TORCH_INDEX"] == "${{ inputs.torch_index }}"
    python, step_ = uses("capture", "actions/setup-python")
    assert step_["with"]["python-version"] in {"3.10", "3.11", "3.12", "3.13", "3.14"}  # torch 2.13.0 has wheels for these
    venv, step_ = named("capture", "A venv with a CUDA build of torch")
    assert python < venv and '--index-url "$TORCH_INDEX"' in step_["run"]
    check, step_ = named("capture", "Check the driver, the compiler and the GPU")
    captured, _ = named("capture", "Capture this shard on the GPU")
    assert venv < check < captured
    assert step_["run"] == ".venv/bin/python -m kernelbook.capture.preflight"


def test_the_capture_job_lets_load_inline_link_the_cuda_runtime_before_the_preflight(runner, tmp_path):
    step, step_ = named("capture", "Let load_inline link the CUDA runtime")
    check, _ = named("capture", "Check the driver, the compiler and the GPU")
    assert step < check
    folder = tmp_path / "cuda" / "lib"
    folder.mkdir(parents=True)
    for said, wanted in ((f"echo '{folder}'", f"LIBRARY_PATH={folder}:/mine\n"), ("echo ''", "")):
        tree = tmp_path / f"tree{len(wanted)}"
        (tree / ".venv" / "bin").mkdir(parents=True)
        fake = tree / ".venv" / "bin" / "python"
        fake.write_text(f"#!/bin/bash\n[ \"$*\" = '-m kernelbook.capture.preflight --library-path' ] || exit 9\n{said}\n")
        fake.chmod(0o755)
        env_file = tmp_path / f"env{len(wanted)}"
        env_file.write_text("")
        done = runner.run(step_["run"], tree, GITHUB_ENV=str(env_file), LIBRARY_PATH="/mine")
        assert done.returncode == 0, done.stdout + done.stderr
        assert env_file.read_text() == wanted


def test_the_venv_step_passes_the_index_to_pip_only_when_given(runner, tmp_path):
    _, step_ = named("capture", "A venv with a CUDA build of torch")
    log = tmp_path / "pip.log"
    fake_python = f'#!/bin/bash\nif [ "$1" = -m ] && [ "$2" = venv ]; then mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; exit 0; fi\necho "$*" >> "{log}"\n'
    runner.fake("python", fake_python.removeprefix("#!/bin/bash\n"))
    for index in ("", "https://download.pytorch.org/whl/cu126"):
        log.unlink(missing_ok=True)
        tree = tmp_path / f"tree{len(index)}"
        tree.mkdir()
        done = runner.run(step_["run"], tree, TORCH_SPEC="torch==2.13.0", TORCH_INDEX=index)
        assert done.returncode == 0, done.stdout + done.stderr
        lines = log.read_text(encoding="utf-8").splitlines()
        wanted = "-m pip install -q torch==2.13.0" + (f" --index-url {index}" if index else "")
        assert wanted in lines, lines


def test_preflight_on_a_machine_without_cuda_says_so_in_one_line():
    done = subprocess.run([sys.executable, "-m", "kernelbook.capture.preflight"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "scripts")})
    if preflight.cuda_runtime() is not None:
        pytest.skip("this torch is a CUDA build: the driver check would pass here")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelbook: preflight: this torch has no CUDA (a CPU build)"), done.stderr
    assert "torch_index" in lines[0]


@pytest.mark.parametrize("supports, torch_cuda, words", [
    ((13, 0), "13.0", None),
    ((13, 1), "13.0", None),
    ((12, 9), "12.6", None),           # minor-version compatibility
    ((12, 8), "13.0", "R580"),
    ((12, 2), "12.8", None),
    ((11, 8), "12.6", "R525"),
    (None, "13.0", "no NVIDIA driver"),
])
def test_driver_against_the_torch_build(supports, torch_cuda, words):
    problem = preflight.driver_problem(supports, "570.124.06", torch_cuda)
    if words is None:
        assert problem is None
    else:
        assert words in problem and "\n" not in problem
    if supports and words:
        assert "the NVIDIA driver 570.124.06 supports CUDA" in problem and "torch_index" in problem and "cu126" in problem


def test_compiler_and_python_headers(tmp_path):
    include = tmp_path / "include"
    include.mkdir()
    found = {"gcc": "/usr/bin/gcc"}.get
    assert "no Python.h in" in preflight.compiler_problem(None, found, str(include))
    (include / "Python.h").write_text("", encoding="utf-8")
    assert preflight.compiler_problem(None, found, str(include)) is None
    assert "build-essential" in preflight.compiler_problem(None, lambda name: None, str(include))
    assert "$CC is 'nocc'" in preflight.compiler_problem("nocc", found, str(include))
    assert preflight.compiler_problem(None, {"clang": "/usr/bin/clang"}.get, str(include)) is None


def test_compute_capability_against_the_torch_build():
    cu130 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert preflight.capability_problem((9, 0), cu130, "NVIDIA H100") is None
    problem = preflight.capability_problem((7, 0), cu130, "Tesla V100")
    assert "Tesla V100 has compute capability 7.0" in problem and "7.5 and later" in problem and "cu126" in problem
    assert preflight.capability_problem((7, 0), ["sm_50", "sm_70", "sm_90a"], "Tesla V100") is None
    assert preflight.capability_problem((3, 5), [], "old") is None  # nothing listed: the compile check decides


def test_auditor_persona_finds_nothing_offline():
    zizmor = Path(sys.executable).parent / "zizmor"
    if not zizmor.is_file():
        pytest.fail("zizmor is not installed: pip install -e '.[test]'")
    env = {k: v for k, v in os.environ.items() if k not in ("GH_TOKEN", "GITHUB_TOKEN", "ZIZMOR_GITHUB_TOKEN")} | OFFLINE
    done = subprocess.run([str(zizmor), "--offline", "--no-progress", "--color", "never", "--persona", "auditor",
                           str(SITE_GPU), str(SITE_GPU.with_name("site-cpu.yml"))],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert done.returncode == 0 and "No findings" in done.stdout, done.stdout + done.stderr


def test_the_gpu_guide_says_what_the_runner_needs_and_how_to_recover():
    guide = (ROOT / "guide" / "gpu.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Rebuilding on a GPU runner"):guide.index("## Rebuilding without a GPU")]
    python = uses("capture", "actions/setup-python")[1]["with"]["python-version"]
    for words in ("build-essential", "Python.h", "R580", "7.5", "torch_index", "https://download.pytorch.org/whl/cu126",
                  f"pins {python}", "same GPU model", "CUDA_VISIBLE_DEVICES", "`.env`", "merged-captures",
                  "gh run download RUN_ID --name merged-captures", "kernelbook merge /tmp/merged",
                  "kernelbook build --no-capture", "python -m kernelbook.capture.preflight"):
        assert words in section, words
    inputs = DOC[True]["workflow_dispatch"]["inputs"]
    assert all(f"`{name}`" in section for name in inputs)


def _preflight_child(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "scripts"), **env})


def test_the_compile_check_runs_its_kernels_on_the_cpu_under_the_triton_interpreter():
    """The same torch.compile and Triton kernel as on the GPU, on the CPU (Triton interpreted): they add one."""
    done = _preflight_child("from kernelbook.capture import preflight; print(preflight.check_compile('cpu'))",
                            TRITON_INTERPRET="1")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "torch.compile and a Triton kernel ran on cpu"


def test_the_gpu_checks_without_a_gpu_fail_in_one_line():
    if preflight.cuda_runtime() is not None:
        pytest.skip("this torch is a CUDA build")
    code = ("from kernelbook.capture import preflight\n"
            "for check in (preflight.check_gpu, preflight.check_compile):\n"
            "    try:\n        check()\n    except preflight.NotReady as exc:\n        print(exc)\n")
    done = _preflight_child(code)
    assert done.returncode == 0, done.stderr[-3000:]
    gpu, compiled = done.stdout.strip().splitlines()
    assert gpu.startswith("torch 2") and "sees no GPU" in gpu
    assert compiled.startswith("compiling a tiny CUDA kernel failed (") and "build-essential" in compiled


def test_a_runner_with_another_gpu_model_than_the_captures_is_named(tmp_path):
    tree = book(tmp_path / "tree", snippets=("ch01/a", "ch01/b", "ch01/c"))
    # today's captures are keyed by GPU (`a.cuda-h200.json`); an old unkeyed `.cuda.json` still counts
    for sid, env in (("ch01/a", {}), ("ch01/b", {"device_name": "NVIDIA H200 MIG 1g.10gb"})):  # a slice of the same GPU
        path = crafted(tree, sid, "cuda", **env)
        path.rename(path.with_name(path.name.replace(".cuda.json", ".cuda-h200.json")))
    crafted(tree, "ch01/c", "cuda")
    recorded = preflight.recorded_gpus(tree)
    assert recorded == ["NVIDIA H200", "NVIDIA H200 MIG 1g.10gb", "NVIDIA H200"]
    assert preflight.model_note("NVIDIA H200", recorded) is None
    note = preflight.model_note("NVIDIA A100-SXM4-80GB", recorded)
    assert note.startswith("3 of the 3 committed CUDA captures record another GPU (NVIDIA H200, NVIDIA H200 MIG 1g.10gb)")
    assert "its own label" in note and "\n" not in note
