"""Publishing: the CI workflows, capture shards, and merging shards' captures back together.

The workflows are checked offline (GitHub's workflow schema vendored in check-jsonschema,
zizmor --offline). Shards and merge run the real CLI on a tiny temporary project whose
snippets take a moment each (no torch.compile).
"""

from __future__ import annotations

import dataclasses
import datetime
import importlib.resources
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, cli_env, make_project, run_cli, write
from kernelbook.common.changes import summarize
from kernelbook.common.records import load
from kernelbook.common.snippets import discover, shard

WORKFLOWS = ROOT / ".github" / "workflows"
SITE_CPU = WORKFLOWS / "site-cpu.yml"
SITE_GPU = WORKFLOWS / "site-gpu.yml"

# Any attempt to reach the network fails fast instead of succeeding by luck.
OFFLINE = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": "",
           "https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9", "no_proxy": ""}


def _just_now() -> str:
    """A captured_at later than any committed capture's, and not in the future (merge refuses one that is)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def offline_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GH_TOKEN", "GITHUB_TOKEN", "ZIZMOR_GITHUB_TOKEN")}
    env.update(OFFLINE)
    return env


def workflow(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def steps(doc: dict, job: str) -> list[dict]:
    return doc["jobs"][job]["steps"]


def runs(doc: dict, job: str) -> str:
    return "\n".join(s.get("run", "") for s in steps(doc, job))


# ---------------------------------------------------------------- the workflows


def test_both_workflows_exist():
    assert SITE_CPU.is_file() and SITE_GPU.is_file()


def test_workflows_match_githubs_schema_offline():
    vendored = importlib.resources.files("check_jsonschema.builtin_schemas.vendor").joinpath("github-workflows.json")
    assert vendored.is_file(), "check-jsonschema no longer vendors the GitHub workflow schema"
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(SITE_CPU), str(SITE_GPU)],
        capture_output=True, text=True, timeout=120, env=offline_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _zizmor() -> str:
    for candidate in (Path(sys.executable).parent / "zizmor", shutil.which("zizmor")):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    pytest.fail("zizmor is not installed: pip install -e '.[test]'")


def test_zizmor_finds_nothing_offline():
    done = subprocess.run(
        [_zizmor(), "--offline", "--no-progress", "--color", "never", str(SITE_CPU), str(SITE_GPU)],
        capture_output=True, text=True, timeout=120, env=offline_env(), cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings" in done.stdout, done.stdout + done.stderr


def test_every_ignored_zizmor_finding_says_why():
    for path in (SITE_CPU, SITE_GPU):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "zizmor:" in line:
                match = re.search(r"#\s*zizmor:\s*ignore\[[\w,-]+\]\s*(.*)$", line)
                assert match and len(match.group(1).split()) >= 3, f"{path.name}: an ignore without a reason: {line.strip()}"


def test_actions_pinned_by_commit_and_checkout_keeps_no_credentials():
    for path in (SITE_CPU, SITE_GPU):
        text = path.read_text(encoding="utf-8")
        uses = re.findall(r"^\s*-?\s*uses:\s*(\S+)(.*)$", text, re.MULTILINE)
        assert uses, path.name
        for ref, rest in uses:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), f"{path.name}: {ref} is not pinned to a full commit"
            assert re.match(r"\s*#\s*v\d+(\.\d+)*", rest), f"{path.name}: {ref} has no version comment"
        doc = workflow(path)
        for name, job in doc["jobs"].items():
            for step in job.get("steps", []):
                if step.get("uses", "").startswith("actions/checkout@"):
                    assert step.get("with", {}).get("persist-credentials") is False, f"{path.name}: {name}"
                assert "${{" not in step.get("run", ""), f"{path.name}: {name}: an expression inside a run script"


def test_least_privilege_and_concurrency():
    cpu, gpu = workflow(SITE_CPU), workflow(SITE_GPU)
    assert cpu["permissions"] == {"contents": "read"}
    assert gpu["permissions"] == {}
    assert cpu["concurrency"]["group"]
    # site-gpu: no workflow-wide group (a run waiting for an offline GPU runner would hold
    # back a push that needs no GPU); the GPU jobs and the deployment each take their turn.
    assert "concurrency" not in gpu
    for name in ("capture", "deploy"):
        assert gpu["jobs"][name]["concurrency"]["group"] and gpu["jobs"][name]["concurrency"]["cancel-in-progress"] is False
    assert "matrix.shard" in gpu["jobs"]["capture"]["concurrency"]["group"]  # else a run's shards would wait on each other
    granted = {name: job.get("permissions", {}) for name, job in gpu["jobs"].items()}
    assert all("permissions" in job for job in gpu["jobs"].values())
    writers = {name: perms for name, perms in granted.items() if "write" in perms.values()}
    assert writers == {"deploy": {"contents": "write"},  # the gh-pages branch, through mike
                       "propose": {"contents": "write", "pull-requests": "write"}}
    for name in ("deploy", "propose"):
        assert "refs/heads/main" in gpu["jobs"][name]["if"]
    # the CPU workflow writes only when a tag edition-YYYY.MM is pushed, and only the gh-pages branch
    cpu_writers = {name: job["permissions"] for name, job in cpu["jobs"].items() if "permissions" in job}
    assert cpu_writers == {"edition": {"contents": "write"}}
    assert cpu["jobs"]["edition"]["if"] == "startsWith(github.ref, 'refs/tags/edition-')"
    for job in (cpu["jobs"]["edition"], gpu["jobs"]["deploy"]):  # one push to gh-pages at a time, never cut short
        assert job["concurrency"] == {"group": "gh-pages", "cancel-in-progress": False}


def test_cpu_workflow_tests_then_builds_from_committed_captures():
    doc = workflow(SITE_CPU)
    triggers = doc[True]  # YAML 1.1 reads the key `on` as true
    assert "push" in triggers and "pull_request" in triggers
    job = doc["jobs"]["test-and-build"]
    assert job["runs-on"] == "ubuntu-latest"
    names = [s.get("uses", "").split("@")[0] for s in job["steps"]]
    python = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python@"))
    assert python["with"]["python-version"] == "3.11"
    script = runs(doc, "test-and-build")
    assert "sudo apt-get install" in script and "chromium" in script
    # a Japanese font with the browser, nothing it merely recommends, quietly
    assert "fonts-noto-cjk" in script and "--no-install-recommends" in script and "-qq" in script
    assert script.index("chromium") < script.index("make test") < script.index("kernelbook build --no-capture")
    upload = job["steps"][names.index("actions/upload-artifact")]
    assert upload["with"]["path"].rstrip("/") == "site"
    # on a pull request, the captures it brings are checked against the base branch's tip
    brought = next(s for s in job["steps"] if "--changed-since" in s.get("run", ""))
    assert brought["if"] == "github.event_name == 'pull_request'" and brought["env"]["BASE_REF"] == "${{ github.base_ref }}"
    assert 'git fetch --no-tags --depth=1 origin "$BASE_REF"' in brought["run"] and "--changed-since FETCH_HEAD" in brought["run"]


def test_make_test_installs_the_browser_with_a_japanese_font():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile[makefile.index(".ci/.browser:"):]
    recipe = recipe[: recipe.index("\n\n")]
    assert "$(BROWSER_PACKAGES)" in recipe and re.search(r"^BROWSER_PACKAGES := chromium fonts-noto-cjk fonts-ipaexfont-gothic poppler-utils$", makefile, re.M)
    assert "apt-get install -y -qq --no-install-recommends" in recipe and ">/dev/null" in recipe
    assert re.search(r"^test: .*\.ci/\.browser", makefile, re.M)
    assert ".ci/.browser" in (ROOT / ".gitignore").read_text(encoding="utf-8")


def test_gpu_workflow_captures_shards_then_checks_builds_and_publishes():
    doc = workflow(SITE_GPU)
    triggers = doc[True]
    assert {"workflow_dispatch", "push", "schedule"} <= set(triggers)
    assert triggers["push"]["branches"] == ["main"]
    inputs = triggers["workflow_dispatch"]["inputs"]
    assert inputs["shards"]["default"] == 1 and inputs["torch_spec"]["default"].startswith("torch==")

    capture = doc["jobs"]["capture"]
    assert capture["runs-on"] == ["self-hosted", "gpu"]
    assert capture["needs"] == "plan"
    assert "needs.plan.outputs.shards" in capture["strategy"]["matrix"]["shard"]
    assert "kernelbook capture" in runs(doc, "capture") and "--device cuda --shard" in runs(doc, "capture")
    upload = next(s for s in capture["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["name"].startswith("captures-shard-") and "matrix.shard" in upload["with"]["name"]

    publish = doc["jobs"]["publish"]
    assert set(publish["needs"]) == {"plan", "capture"}
    download = next(s for s in publish["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))
    assert download["with"]["pattern"] == "captures-shard-*"
    script = runs(doc, "publish")
    order = [script.index(c) for c in ("kernelbook merge", "kernelbook status --strict", "kernelbook notebooks 2>",
                                       "kernelbook build --no-capture")]
    assert order == sorted(order)
    used = [s.get("uses", "").split("@")[0] for s in publish["steps"]]
    assert "actions/upload-pages-artifact" not in used  # published with mike, on the gh-pages branch
    assert any(s.get("with", {}).get("name") == "refreshed-captures" for s in publish["steps"])

    deploy = doc["jobs"]["deploy"]
    assert deploy["needs"] == "publish" and "environment" not in deploy
    assert [s.get("uses", "").split("@")[0] for s in deploy["steps"]] == [
        "actions/checkout", "actions/setup-python", "actions/download-artifact", ""]
    download = deploy["steps"][2]
    assert download["with"]["name"] == "refreshed-captures" and "needs.publish.outputs.refreshed" in download["if"]
    last = deploy["steps"][-1]
    assert last["run"] == 'scripts/publish_edition.sh latest "$RUNNER_TEMP/refreshed"'  # the refresh publishes only latest
    assert last["env"] == {"GH_TOKEN": "${{ github.token }}"}
    propose = doc["jobs"]["propose"]
    assert "kernelbook merge" in runs(doc, "propose")
    assert any(s.get("uses", "").startswith("peter-evans/create-pull-request@") for s in propose["steps"])


def test_a_pushed_edition_tag_publishes_that_edition_after_the_tests():
    doc = workflow(SITE_CPU)
    job = doc["jobs"]["edition"]
    assert job["needs"] == "test-and-build"
    step = job["steps"][-1]
    assert step["run"] == 'scripts/publish_edition.sh "${GITHUB_REF_NAME#edition-}"'
    assert step["env"] == {"GH_TOKEN": "${{ github.token }}"}
    for job in (doc["jobs"]["edition"], workflow(SITE_GPU)["jobs"]["deploy"]):
        checkout = job["steps"][0]
        # the tags and their history: the "what changed" page reads the previous edition from git
        assert checkout["uses"].startswith("actions/checkout@") and checkout["with"]["fetch-depth"] == 0


def test_the_publishing_script_keeps_the_token_out_of_git_config_and_publishes_with_kernelbook():
    script = (ROOT / "scripts" / "publish_edition.sh").read_text(encoding="utf-8")
    assert script.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in script
    assert os.access(ROOT / "scripts" / "publish_edition.sh", os.X_OK)
    assert "GIT_CONFIG_VALUE_0" in script and "remote set-url" not in script and "x-access-token:${GH_TOKEN}@" not in script
    assert '.venv/bin/kernelbook edition publish "$edition"' in script and "pip install -q -e '.[publish,pdf]'" in script
    # the edition's PDFs: Chromium and the font they embed, installed when missing, nothing recommended
    assert "packages+=(chromium)" in script and "fonts-ipaexfont-gothic" in script and "--no-install-recommends" in script
    done = subprocess.run(["bash", "-n", str(ROOT / "scripts" / "publish_edition.sh")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


NOTEBOOKS = "docs/*/*/notebook.ipynb"  # kernelbook.notebooks.NAME beside each chapter's index.md


def _step(doc: dict, job: str, test) -> tuple[int, dict]:
    found = [(i, s) for i, s in enumerate(steps(doc, job)) if test(s)]
    assert len(found) == 1, f"{job}: {len(found)} matching step(s)"
    return found[0]


def test_gpu_workflow_regenerates_the_notebooks_and_proposes_them_with_the_captures():
    from kernelbook.site.notebooks import chapter as notebooks

    assert NOTEBOOKS.endswith("/" + notebooks.NAME)
    doc = workflow(SITE_GPU)
    # publish: regenerate after the merge and the strict check, before the build ...
    merged, _ = _step(doc, "publish", lambda s: "kernelbook merge" in s.get("run", ""))
    strict, _ = _step(doc, "publish", lambda s: "kernelbook status --strict" in s.get("run", ""))
    regen, step = _step(doc, "publish", lambda s: re.search(r"kernelbook notebooks( 2> \S+)?( \|\|.*)?$", s.get("run", ""), re.M))
    assert "--check" not in step["run"]
    built, _ = _step(doc, "publish", lambda s: "kernelbook build --no-capture" in s.get("run", ""))
    assert merged < strict < regen < built
    # ... collect the notebooks with the captures, into the artifact the pull request is made from
    collect, step = _step(doc, "publish", lambda s: s.get("id") == "refreshed")
    assert f"'{NOTEBOOKS}'" in step["run"] and "'snippets/*/captures/*'" in step["run"]
    upload, step = _step(doc, "publish", lambda s: s.get("with", {}).get("name") == "refreshed-captures")
    assert built < collect < upload
    assert step["with"]["path"] == "${{ runner.temp }}/refreshed/"

    # propose: the artifact's notebooks go into the tree and into the pull request
    download, step = _step(doc, "propose", lambda s: s.get("uses", "").startswith("actions/download-artifact@"))
    assert step["with"]["name"] == "refreshed-captures"
    put, step = _step(doc, "propose", lambda s: s.get("name") == "Put the regenerated notebooks into the tree")
    pr, step = _step(doc, "propose", lambda s: s.get("uses", "").startswith("peter-evans/create-pull-request@"))
    assert download < put < pr
    paths = step["with"]["add-paths"].split()
    assert "snippets/*/captures/*" in paths and NOTEBOOKS in paths


def _bash(script: str, cwd: Path, runner_temp: Path) -> subprocess.CompletedProcess:
    env = {**offline_env(), "RUNNER_TEMP": str(runner_temp), "GITHUB_OUTPUT": str(runner_temp / "output")}
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_gpu_workflow_scripts_carry_the_notebooks_from_publish_to_propose(tmp_path):
    """publish's collect step and propose's copy step, run as written on a tiny git tree."""
    if not shutil.which("git"):
        pytest.skip("no git")
    doc = workflow(SITE_GPU)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    tree = tmp_path / "publish"
    files = {"snippets/ch01/captures/a.cuda.json": "{}\n", "docs/en/ch01/notebook.ipynb": "{}\n",
             "docs/ja/ch01/notebook.ipynb": "{}\n", "docs/en/ch01/index.md": "# One\n"}
    for rel, text in files.items():
        write(tree / rel, text)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(git + args, cwd=tree, check=True, capture_output=True, env=offline_env())
    changed = {"snippets/ch01/captures/a.cuda.json": '{"new": 1}\n', "docs/en/ch01/notebook.ipynb": '{"new": 2}\n',
               "docs/en/ch02/notebook.ipynb": '{"new": 3}\n'}  # a chapter's first notebook is untracked
    for rel, text in changed.items():
        write(tree / rel, text)
    write(tree / "docs/en/ch01/index.md", "# One, edited\n")  # not the workflow's to propose

    _, collect = _step(doc, "publish", lambda s: s.get("id") == "refreshed")
    _bash(collect["run"], tree, temp)
    artifact = temp / "refreshed"
    assert {str(p.relative_to(artifact)) for p in artifact.rglob("*") if p.is_file()} == set(changed)
    assert "refreshed=true" in (temp / "output").read_text(encoding="utf-8")

    target = tmp_path / "propose"
    write(target / "docs/en/ch01/notebook.ipynb", "{}\n")
    write(target / "docs/ja/ch01/notebook.ipynb", "{}\n")
    _, put = _step(doc, "propose", lambda s: s.get("name") == "Put the regenerated notebooks into the tree")
    _bash(put["run"], target, temp)
    for rel, text in changed.items():
        if "notebook" in rel:
            assert (target / rel).read_text(encoding="utf-8") == text, rel
    assert (target / "docs/ja/ch01/notebook.ipynb").read_text(encoding="utf-8") == "{}\n"
    assert not (target / "snippets").exists()  # captures are merge's, validated


def test_workflows_call_only_real_subcommands():
    from kernelbook.cli import parser

    choices = next(a for a in parser()._actions if a.dest == "command").choices
    for path in (SITE_CPU, SITE_GPU):
        doc = workflow(path)
        called = [sub for job in doc["jobs"] for sub in re.findall(r"(?:bin/|-m )kernelbook\s+([a-z]+)", runs(doc, job))]
        assert called, path.name
        for sub in called:
            assert sub in choices, f"{path.name}: kernelbook {sub}"


# ---------------------------------------------------------------- a tiny project, captured in shards

TRACED = """
import torch
from torch.profiler import ProfilerActivity, profile

x = torch.ones(16)
with profile(activities=[ProfilerActivity.CPU]) as prof:
    y = x + 1
results = {"total": float(y.sum())}
print(results["total"])
"""

# Each snippet run costs a few seconds (the harness imports torch): two snippets, one
# per shard of 2. ch02/traced leaves a trace sidecar; ch01/hello imports a local helper.
SNIPPETS = {
    "ch01/hello.py": 'from _words import WORD\n\nresults = {"greeting": WORD}\nprint(WORD)\n',
    "ch01/_words.py": 'WORD = "hello"\n',
    "ch02/traced.py": TRACED,
}


def _capture_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in (root / "snippets").glob("*/captures/*") if p.is_file()}


def _captured_ids(root: Path) -> set[str]:
    return {f"{p.parent.parent.name}/{p.name.split('.')[0]}" for p in (root / "snippets").glob("*/captures/*.json")}


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> dict[str, Path]:
    """``base`` (no captures), ``s1``/``s2`` (shard K of 2 captured), ``full`` (shard 1/1)."""
    top = tmp_path_factory.mktemp("shards")
    base = make_project(top / "base")
    for rel, text in SNIPPETS.items():
        write(base / "snippets" / rel, text)
    ids = [s.id for s in discover(base)]
    assert all(shard(discover(base), k, 2) for k in (1, 2)), "pick snippet names that fill both shards"
    trees = {"base": base}
    jobs = {}
    for name, spec in (("s1", "1/2"), ("s2", "2/2"), ("full", "1/1")):
        trees[name] = shutil.copytree(base, top / name)
        jobs[name] = subprocess.Popen(
            [sys.executable, "-m", "kernelbook", "capture", "--device", "cpu", "--shard", spec],
            cwd=trees[name], env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
    for name, proc in jobs.items():
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{name}: {err[-3000:]}"
    assert _captured_ids(trees["full"]) == set(ids)
    return trees


def test_shard_splits_of_the_real_tree_are_disjoint_and_covering():
    for snippets in (discover(ROOT), discover(ROOT)[::-1]):  # the order given does not matter
        for n in range(1, 5):
            parts = [{s.id for s in shard(snippets, k, n)} for k in range(1, n + 1)]
            assert set().union(*parts) == {s.id for s in snippets}, n
            assert sum(len(p) for p in parts) == len(snippets), n


def test_cli_shards_are_disjoint_and_cover_everything(shards):
    snippets = discover(shards["base"])
    everything = {s.id for s in snippets}
    for n in range(1, 5):  # the same split the CLI uses, for every N
        parts = [{s.id for s in shard(snippets, k, n)} for k in range(1, n + 1)]
        assert set().union(*parts) == everything and sum(map(len, parts)) == len(everything)
    first, second = _captured_ids(shards["s1"]), _captured_ids(shards["s2"])
    assert first == {s.id for s in shard(snippets, 1, 2)} and second == {s.id for s in shard(snippets, 2, 2)}
    assert first and second and not first & second
    assert first | second == everything == _captured_ids(shards["full"])


@pytest.mark.parametrize("spec", ["0/2", "3/2", "x", "1/0", "2", "1/2/3", "a/b", "-1/2", ""])
def test_bad_shard_is_a_one_line_usage_error(tmp_path, spec):
    root = make_project(tmp_path / "book")
    write(root / "snippets" / "ch01" / "hello.py", "print('hello')\n")
    done = run_cli("capture", "--device", "cpu", f"--shard={spec}", root=root)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelbook: --shard"), done.stderr
    assert not _capture_files(root)


# ---------------------------------------------------------------- merge


def _artifact(tree: Path, dest: Path) -> Path:
    """What the GPU workflow uploads for a shard: its capture files in the tree's layout."""
    for rel in _capture_files(tree):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(tree / rel, target)
    (dest / "shard.txt").write_text("2/2\n", encoding="utf-8")
    return dest


def _fresh_copy(shards: dict[str, Path], dest: Path) -> Path:
    return shutil.copytree(shards["base"], dest)


def test_merging_both_shards_gives_the_full_capture(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    second = _artifact(shards["s2"], tmp_path / "artifact-2")
    done = run_cli("merge", str(shards["s1"]), str(second), root=target)
    assert done.returncode == 0, done.stderr
    assert "merged 2 capture(s) with 1 trace file(s) from 2 folder(s)" in done.stdout

    assert _capture_files(target) == _capture_files(shards["full"])
    for rel in _capture_files(target):
        if rel.endswith(".json"):
            capture = load(target / rel)
            assert (target / rel).read_bytes() == next(
                (t / rel).read_bytes() for t in (shards["s1"], shards["s2"]) if (t / rel).exists())
            for trace in capture.trace_files:
                assert (target / rel).with_name(trace).is_file()
    status = run_cli("status", "--json", root=target)
    states = {(r["snippet"], r["device"]): r["state"] for r in json.loads(status.stdout)}
    assert {k: v for k, v in states.items() if k[1] == "cpu"} == {(i, "cpu"): "fresh" for i in _captured_ids(shards["full"])}

    again = run_cli("merge", str(shards["s1"]), str(second), root=target)
    assert again.returncode == 0 and "merged 0 capture(s)" in again.stdout and "2 already identical" in again.stdout


def test_the_same_capture_twice_is_no_conflict(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    done = run_cli("merge", str(shards["s1"]), str(_artifact(shards["s1"], tmp_path / "again")), root=target)
    assert done.returncode == 0, done.stderr
    assert _capture_files(target) == _capture_files(shards["s1"])


def _one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelbook: "), done.stderr
    return lines[0]


def test_different_captures_of_one_snippet_are_a_conflict(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    done = run_cli("merge", str(shards["s1"]), str(shards["full"]), root=target)
    line = _one_line_error(done)
    assert "conflict" in line and "ch02/traced (cpu)" in line
    assert str(shards["s1"] / "snippets/ch02/captures/traced.cpu.json") in line
    assert str(shards["full"] / "snippets/ch02/captures/traced.cpu.json") in line
    assert not _capture_files(target)  # validated first: nothing was written


def test_a_corrupt_capture_is_rejected_by_name(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    bad = _artifact(shards["s1"], tmp_path / "bad")
    broken = bad / "snippets/ch02/captures/traced.cpu.json"
    broken.write_text(broken.read_text(encoding="utf-8")[:200], encoding="utf-8")
    line = _one_line_error(run_cli("merge", str(shards["s2"]), str(bad), root=target))
    assert str(broken) in line and "not valid JSON" in line
    assert not _capture_files(target)

    broken.write_text('{"schema": "kernelbook.capture/1"}\n', encoding="utf-8")
    line = _one_line_error(run_cli("merge", str(bad), root=target))
    assert str(broken) in line and "malformed" in line


def test_a_capture_without_its_trace_is_rejected(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    bad = _artifact(shards["s1"], tmp_path / "bad")
    (bad / "snippets/ch02/captures/traced.cpu.trace0.json.gz").unlink()
    line = _one_line_error(run_cli("merge", str(bad), root=target))
    assert "traced.cpu.json" in line and "trace0" in line


def test_a_capture_of_an_unknown_or_misnamed_snippet_is_rejected(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    source = shards["s2"] / "snippets/ch01/captures/hello.cpu.json"
    ghost = tmp_path / "ghost" / "snippets/ch09/captures/ghost.cpu.json"
    ghost.parent.mkdir(parents=True)
    ghost.write_text(source.read_text(encoding="utf-8").replace('"ch01/hello"', '"ch09/ghost"'), encoding="utf-8")
    line = _one_line_error(run_cli("merge", str(ghost.parents[3]), root=target))
    assert str(ghost) in line and "ch09/ghost is not in this tree" in line

    misnamed = tmp_path / "misnamed" / "snippets/ch02/captures/traced.cpu.json"
    misnamed.parent.mkdir(parents=True)
    shutil.copy2(source, misnamed)
    line = _one_line_error(run_cli("merge", str(misnamed.parents[3]), root=target))
    assert str(misnamed) in line and "ch01/hello" in line
    assert not _capture_files(target)


def test_merge_replaces_old_trace_sidecars(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    stale = write(target / "snippets/ch02/captures/traced.cpu.trace1.json.gz", "old\n")
    done = run_cli("merge", str(shards["s1"]), root=target)
    assert done.returncode == 0, done.stderr
    assert not stale.exists()
    assert _capture_files(target) == _capture_files(shards["s1"])


def test_merge_of_nothing_and_of_a_missing_folder(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_cli("merge", str(empty), root=target)
    assert done.returncode == 0 and "nothing to merge" in done.stdout
    line = _one_line_error(run_cli("merge", str(tmp_path / "absent"), root=target))
    assert str(tmp_path / "absent") in line


# ---------------------------------------------------------------- merge never puts a stale capture over a fresh one


def _edited_artifact(shards: dict[str, Path], dest: Path, change) -> Path:
    """shard 1's artifact with its ch02/traced capture changed by ``change(raw)``."""
    artifact = _artifact(shards["s1"], dest)
    path = artifact / "snippets/ch02/captures/traced.cpu.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return artifact


def _older(raw: dict) -> None:
    raw["environment"]["captured_at"] = "2020-01-01T00:00:00Z"


def _other_source(raw: dict) -> None:
    raw["freshness"]["source_hash"] = "0" * 64


@pytest.mark.parametrize("change, word", [(_older, "older"), (_other_source, "another version of the snippet")],
                         ids=["older_date", "other_source"])
def test_merge_refuses_a_stale_capture_over_a_fresh_one(shards, tmp_path, change, word):
    target = _fresh_copy(shards, tmp_path / "target")
    assert run_cli("merge", str(shards["s1"]), root=target).returncode == 0
    before = {rel: (target / rel).read_bytes() for rel in _capture_files(target)}
    stale = _edited_artifact(shards, tmp_path / "stale", change)
    line = _one_line_error(run_cli("merge", str(stale), root=target))
    assert word in line and "--allow-stale" in line
    assert str(stale / "snippets/ch02/captures/traced.cpu.json") in line
    assert "snippets/ch02/captures/traced.cpu.json" in line.replace(str(stale), "")  # and the tree's, by name
    assert {rel: (target / rel).read_bytes() for rel in _capture_files(target)} == before  # nothing written
    forced = run_cli("merge", "--allow-stale", str(stale), root=target)
    assert forced.returncode == 0, forced.stderr
    put, replaced = load(target / "snippets/ch02/captures/traced.cpu.json"), load(shards["s1"] / "snippets/ch02/captures/traced.cpu.json")
    assert put == dataclasses.replace(load(stale / "snippets/ch02/captures/traced.cpu.json"), previous=summarize(replaced))


def test_merge_takes_a_newer_capture_and_repairs_an_unreadable_one(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    assert run_cli("merge", str(shards["s1"]), root=target).returncode == 0
    newer = _edited_artifact(shards, tmp_path / "newer", lambda raw: raw["environment"].update(captured_at=_just_now()))
    done = run_cli("merge", str(newer), root=target)
    assert done.returncode == 0 and "merged 1 capture(s)" in done.stdout, done.stdout + done.stderr
    tree = target / "snippets/ch02/captures/traced.cpu.json"
    tree.write_bytes(tree.read_bytes().replace(b'"cpu"', b'"\xff"', 1))  # damaged in the tree: not UTF-8
    done = run_cli("merge", str(shards["s1"]), root=target)
    assert done.returncode == 0, done.stderr
    assert tree.read_bytes() == (shards["s1"] / "snippets/ch02/captures/traced.cpu.json").read_bytes()


def test_merge_names_an_incoming_capture_that_is_not_utf8(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    bad = _artifact(shards["s1"], tmp_path / "bad")
    path = bad / "snippets/ch02/captures/traced.cpu.json"
    path.write_bytes(path.read_bytes().replace(b'"cpu"', b'"\xe9"', 1))
    line = _one_line_error(run_cli("merge", str(bad), root=target))
    assert str(path) in line and "not UTF-8" in line
    assert not _capture_files(target)


# ---------------------------------------------------------------- merge records what it replaces


def test_merge_records_the_capture_it_replaces_as_previous(shards, tmp_path):
    target = _fresh_copy(shards, tmp_path / "target")
    assert run_cli("merge", str(shards["s1"]), root=target).returncode == 0
    tree = target / "snippets/ch02/captures/traced.cpu.json"
    first = load(tree)
    assert first.previous is None  # nothing was there: a first capture records nothing
    newer = _edited_artifact(shards, tmp_path / "newer", lambda raw: raw["environment"].update(
        captured_at=_just_now(), torch="9.9.9+cpu", device_name="Another CPU"))
    done = run_cli("merge", str(newer), root=target)
    assert done.returncode == 0 and "merged 1 capture(s)" in done.stdout, done.stdout + done.stderr
    merged = load(tree)
    assert merged.previous == summarize(first)
    assert merged.previous.torch == first.environment.torch and merged.previous.sessions[0].kernels
    assert dataclasses.replace(merged, previous=None) == load(newer / "snippets/ch02/captures/traced.cpu.json")
    again = run_cli("merge", str(newer), root=target)  # the same run again: the tree already holds it, previous and all
    assert again.returncode == 0 and "merged 0 capture(s)" in again.stdout and load(tree) == merged
    # the diff a reviewer reads says what the merge changed
    changed = run_cli("diff", str(shards["s1"]), str(target), root=target)
    assert changed.returncode == 1, changed.stderr
    assert "ch02/traced (cpu): " in changed.stdout and "environment: device `" in changed.stdout
    assert "torch `" + first.environment.torch + "` → `9.9.9+cpu`" in changed.stdout


# ---------------------------------------------------------------- the refresh pull request's body


def test_no_run_step_expands_an_expression():
    """Values reach scripts through env: an expression inside `run:` is how script injection happens."""
    for path in (SITE_CPU, SITE_GPU):
        doc = workflow(path)
        for job in doc["jobs"]:
            for step in steps(doc, job):
                assert "${{" not in step.get("run", ""), f"{path.name}: {job}: {step.get('name')}"


def test_gpu_workflow_says_what_the_refresh_changed_in_the_summary_and_the_pull_request():
    doc = workflow(SITE_GPU)
    merged, _ = _step(doc, "publish", lambda s: "kernelbook merge" in s.get("run", ""))
    summary, step = _step(doc, "publish", lambda s: "kernelbook diff" in s.get("run", ""))
    assert merged < summary and "--format markdown" in step["run"] and "$GITHUB_STEP_SUMMARY" in step["run"]
    put, _ = _step(doc, "propose", lambda s: "kernelbook merge" in s.get("run", ""))
    body, step = _step(doc, "propose", lambda s: "kernelbook diff" in s.get("run", ""))
    assert "PYTHONPATH=scripts python3 -m kernelbook diff --format markdown" in step["run"]  # no venv: stdlib only
    pr, step = _step(doc, "propose", lambda s: s.get("uses", "").startswith("peter-evans/create-pull-request@"))
    assert put < body < pr
    assert step["with"]["body-path"] == "${{ runner.temp }}/pull-request-body.md" and "body" not in step["with"]


def test_gpu_workflow_body_script_runs_as_written(tmp_path):
    """propose's body step on a tiny git tree whose capture a refresh changed: the diff in the body and the summary."""
    if not shutil.which("git"):
        pytest.skip("no git")
    from test_diff import capture, put

    doc = workflow(SITE_GPU)
    tree = make_project(tmp_path / "tree")
    (tree / "scripts").symlink_to(ROOT / "scripts")
    put(tree / "snippets", capture(snippet="ch01/eager_profile", sessions=((("aten::relu", 2, 10.0),),)))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(git + args, cwd=tree, check=True, capture_output=True, env=offline_env())
    put(tree / "snippets", capture(snippet="ch01/eager_profile", sessions=((("aten::clamp_min", 2, 9.7),),)))
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    _, step = _step(doc, "propose", lambda s: "kernelbook diff" in s.get("run", ""))
    env = {**offline_env(), "RUNNER_TEMP": str(temp), "GITHUB_STEP_SUMMARY": str(temp / "summary.md"),
           "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "42",
           "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", step["run"]], cwd=tree, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    body = (temp / "pull-request-body.md").read_text(encoding="utf-8")
    news = "- **ch01/eager_profile** (cuda): `aten::relu` → `aten::clamp_min`, 2 → 2 launches, time unchanged (0.97×, within ±10%)"
    assert body.startswith("CUDA captures refreshed on the GPU runner") and "https://github.com/o/r/actions/runs/42" in body
    assert news in body and news in (temp / "summary.md").read_text(encoding="utf-8")
