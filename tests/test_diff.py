"""``kernelbook diff``: crafted old/new capture pairs, one kind of change each; exit codes; the three formats.

The real pair (chapter 1's committed CPU captures against a fresh re-capture in a copy of
the book) is in ``test_diff_real.py``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import make_project, run_cli, write
from kernelbook import CAPTURE_FORMAT, cli
from kernelbook.common.records import SCHEMA, from_json
from kernelbook.review.report import code_span

ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"
ADD_8 = ADD.replace("<4,", "<8,")  # another template, the same short name
RELU = "void at::native::vectorized_elementwise_kernel<4, at::native::clamp_min_kernel_cuda<float>, at::detail::Array<char*, 2> >(int, float)"
THRESHOLD = "void at::native::vectorized_elementwise_kernel<4, at::native::threshold_kernel_impl<float>, at::detail::Array<char*, 2> >(int, float)"


def capture(snippet: str = "ch01/a", device: str = "cuda", sessions=((("aten::add", 2, 10.0),),), data=None, **env) -> dict:
    """A capture's JSON as ``kernelbook capture`` writes it; ``sessions``: per session, (name, count, time_us) rows."""
    environment = {"device_kind": device, "device_name": "NVIDIA H100 80GB HBM3" if device == "cuda" else "CPU (test)",
                   "torch": "2.13.0", "python": "3.12.3", "platform": "Linux", "captured_at": "2026-01-02T03:04:05Z",
                   "compute_capability": "9.0" if device == "cuda" else None, "driver": None,
                   "cuda": "12.8" if device == "cuda" else None, "triton": None, "git_commit": None, "settings": {}}
    environment.update(env)
    raw = {"schema": SCHEMA, "snippet": snippet, "device": device,
           "freshness": {"source_hash": "ab" * 32, "format": CAPTURE_FORMAT, "torch": environment["torch"]},
           "environment": environment, "wall_time_s": 1.0, "stdout": [], "stderr": [],
           "sessions": [{"index": i, "device_kind": device, "launches": sum(c for _, c, _ in rows),
                         "kernels": [{"name": n, "count": c, "time_us": t} for n, c, t in rows]}
                        for i, rows in enumerate(sessions)],
           "data": data, "trace_files": []}
    from_json(raw, "crafted")  # a real capture, or the test is wrong
    return raw


def put(tree: Path, raw: dict) -> Path:
    chapter, name = raw["snippet"].split("/")
    path = tree / chapter / "captures" / f"{name}.{raw['device']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return path


@pytest.fixture
def book(tmp_path, monkeypatch) -> Path:
    """A book whose prose makes claims about ch01/a; diff runs in its folder."""
    root = make_project(tmp_path / "book")
    write(root / "docs/en/ch01/index.md", """
        # One
        It launches [[kb:launches ch01/a == 2]] kernels; `n` is [[kb:value ch01/a n]].
        On a GPU, [[kb:kernel ch01/a ~ vectorized @cuda]].
        On the CPU only, [[kb:launches ch01/a @cpu == 7]].

        [[kb:predict ch01/a launches >= 2]]
            How many?
        """)
    write(root / "docs/ja/ch01/index.md", "# 一\n起動は [[kb:launches ch01/a == 2]] 回。\n")
    monkeypatch.chdir(root)
    return root


def diff(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["diff", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def pair(tmp_path: Path, old: list[dict], new: list[dict]) -> tuple[Path, Path]:
    a, b = tmp_path / "old", tmp_path / "new"
    a.mkdir(exist_ok=True)
    b.mkdir(exist_ok=True)
    for raw in old:
        put(a, raw)
    for raw in new:
        put(b, raw)
    return a, b


def as_json(capsys, a: Path, b: Path, *extra: str) -> dict:
    code, out, _ = diff(capsys, a, b, "--json", *extra)
    report = json.loads(out)
    assert code == (1 if report["differs"] else 0)
    return report


def only(report: dict) -> dict:
    [item] = [s for s in report["snippets"] if s["status"] != "unchanged"] or report["snippets"]
    return item


# ---------------------------------------------------------------- one kind of change each


def test_the_same_captures_are_no_difference_and_timing_noise_is_none(book, tmp_path, capsys):
    a, b = pair(tmp_path, [capture(sessions=(((ADD, 2, 10.0),),))],
                [capture(sessions=(((ADD, 2, 10.9),),), captured_at="2027-01-01T00:00:00Z", git_commit="abc")])
    code, out, err = diff(capsys, a, b)
    assert code == 0 and err == ""
    assert out.splitlines()[-1] == "no difference: 1 capture(s) compared, timings within ±10% count as unchanged"
    item = only(as_json(capsys, a, b))
    assert item["status"] == "unchanged" and item["session_changes"][0]["time_us"]["moved"] is False


def test_a_kernel_replaced_by_another_is_named_by_short_name(book, tmp_path, capsys):
    a, b = pair(tmp_path, [capture(sessions=(((THRESHOLD, 2, 10.0),),))], [capture(sessions=(((RELU, 2, 9.7),),))])
    code, out, _ = diff(capsys, a, b)
    assert code == 1
    assert ("ch01/a (cuda): `vectorized_elementwise_kernel<threshold_kernel_impl>` → "
            "`vectorized_elementwise_kernel<clamp_min_kernel_cuda>`, 2 → 2 launches, time unchanged (0.97×, within ±10%)") in out
    change = only(as_json(capsys, a, b))["session_changes"][0]
    assert [k["name"] for k in change["kernels_added"]] == ["vectorized_elementwise_kernel<clamp_min_kernel_cuda>"]
    assert [k["name"] for k in change["kernels_removed"]] == ["vectorized_elementwise_kernel<threshold_kernel_impl>"]


def test_short_names_hide_template_arguments_and_full_shows_them(book, tmp_path, capsys):
    a, b = pair(tmp_path, [capture(sessions=(((ADD, 2, 10.0),),))], [capture(sessions=(((ADD_8, 2, 10.0),),))])
    assert diff(capsys, a, b)[0] == 0
    code, out, _ = diff(capsys, a, b, "--full")
    assert code == 1 and f"`{ADD}` → `{ADD_8}`" in out and "(full kernel names)" in out
    change = only(as_json(capsys, a, b, "--full"))["session_changes"][0]
    assert change["kernels_added"] == [{"name": ADD_8, "count": 2}]


def test_kernels_only_added_or_only_removed(book, tmp_path, capsys):
    a, b = pair(tmp_path, [capture(sessions=(((ADD, 2, 10.0),),))], [capture(sessions=(((ADD, 2, 10.0), (RELU, 1, 1.0)),))])
    code, out, _ = diff(capsys, a, b)
    assert code == 1 and "ch01/a (cuda): + `vectorized_elementwise_kernel<clamp_min_kernel_cuda>`, 2 → 3 launches" in out
    code, out, _ = diff(capsys, b, a)
    assert code == 1 and "ch01/a (cuda): − `vectorized_elementwise_kernel<clamp_min_kernel_cuda>`, 3 → 2 launches" in out


def test_launch_counts_that_changed(book, tmp_path, capsys):
    a, b = pair(tmp_path, [capture(sessions=((("aten::add", 2, 10.0), ("aten::mul", 1, 5.0)),))],
                [capture(sessions=((("aten::add", 3, 10.0), ("aten::mul", 1, 5.0)),))])
    code, out, _ = diff(capsys, a, b)
    assert code == 1 and "2 → 3 launches" in out.replace("3 → 4", "2 → 3") and "launch counts: `aten::add` 2 → 3" in out
    change = only(as_json(capsys, a, b))["session_changes"][0]
    assert change["launch_counts"] == [{"kernel": "aten::add", "old": 2, "new": 3}]
    assert change["launches"] == {"old": 3, "new": 4} and change["kernels_added"] == change["kernels_removed"] == []


@pytest.mark.parametrize("new_time, threshold, moved", [(10.9, None, False), (11.5, None, True), (8.5, None, True),
                                                         (11.5, "0.2", False), (15.0, "0.2", True)])
def test_kernel_time_is_news_only_beyond_the_threshold(book, tmp_path, capsys, new_time, threshold, moved):
    a, b = pair(tmp_path, [capture(sessions=((("aten::add", 2, 10.0),),))], [capture(sessions=((("aten::add", 2, new_time),),))])
    extra = ("--threshold", threshold) if threshold else ()
    code, out, _ = diff(capsys, a, b, *extra)
    assert code == (1 if moved else 0)
    ratio = f"{new_time / 10:.2f}×"
    if moved:
        assert f"2 → 2 launches, time {ratio}" in out
    time = only(as_json(capsys, a, b, *extra))["session_changes"][0]["time_us"]
    assert time == {"old": 10.0, "new": new_time, "ratio": pytest.approx(new_time / 10), "moved": moved}


def test_results_that_moved_integers_exactly_the_rest_beyond_the_threshold(book, tmp_path, capsys):
    old = {"eager_s": 1e-3, "noise_s": 2e-3, "n": 4, "label": "eager", "rows": [{"n_bytes": 1024}], "gone": 1}
    new = {"eager_s": 2e-3, "noise_s": 2.1e-3, "n": 5, "label": "compiled", "rows": [{"n_bytes": 2048}], "fresh_s": 3e-6}
    a, b = pair(tmp_path, [capture(snippet="ch02/r", data=old)], [capture(snippet="ch02/r", data=new)])
    code, out, _ = diff(capsys, a, b)
    assert code == 1
    assert ("results: `eager_s` 1.00 ms → 2.00 ms (2.00×); `n` 4 → 5 (1.25×); `label` `\"eager\"` → `\"compiled\"`; "
            "`rows.0.n_bytes` 1 KiB → 2 KiB (2.00×); `fresh_s` added: 3.0 µs; `gone` removed (was 1)") in out
    assert "noise_s" not in out  # 5 %: noise
    moved = {m["key"]: (m["old"], m["new"]) for m in only(as_json(capsys, a, b))["results"]}
    assert moved == {"eager_s": (1e-3, 2e-3), "n": (4, 5), "label": ("eager", "compiled"), "rows.0.n_bytes": (1024, 2048),
                     "fresh_s": (None, 3e-6), "gone": (1, None)}


def test_claims_whose_value_changed_or_whose_check_now_fails(book, tmp_path, capsys):
    a, b = pair(tmp_path, [capture(device="cpu", sessions=((("aten::add", 2, 10.0),),), data={"n": 4})],
                [capture(device="cpu", sessions=((("aten::add", 3, 10.0),),), data={"n": 5})])
    code, out, _ = diff(capsys, a, b)
    assert code == 1
    assert ("claim `[[kb:launches ch01/a == 2]]` (docs/en/ch01/index.md, docs/ja/ch01/index.md): `2` → `3`, now fails: "
            "`[[kb:launches ch01/a == 2]]: the cpu capture a.cpu.json says 3 (CPU (test), torch 2.13.0, 2026-01-02T03:04:05Z)`") in out
    assert "claim `[[kb:value ch01/a n]]` (docs/en/ch01/index.md): `4` → `5`" in out
    assert "claim `[[kb:predict ch01/a launches >= 2]]` (docs/en/ch01/index.md): `2` → `3`" in out  # a prediction is a claim too
    assert "fails (as before): `[[kb:launches ch01/a @cpu == 7]]" in out  # scoped to this device: checked
    assert "@cuda" not in out  # scoped to another device: not this capture's claim
    claims = {c["claim"]: c for c in only(as_json(capsys, a, b))["claims"]}
    assert claims["[[kb:launches ch01/a == 2]]"]["old"] == 2 and claims["[[kb:launches ch01/a == 2]]"]["new"] == 3
    assert claims["[[kb:launches ch01/a == 2]]"]["failed_before"] is False and claims["[[kb:value ch01/a n]]"]["fails"] is None


def test_a_claim_that_now_fails_makes_an_otherwise_unchanged_capture_differ(book, tmp_path, capsys):
    write(book / "docs/en/ch01/index.md", "# One\nFast: [[kb:time ch01/a < 10.5e-6]].\n")
    a, b = pair(tmp_path, [capture(sessions=((("aten::add", 2, 10.0),),))], [capture(sessions=((("aten::add", 2, 10.9),),))])
    code, out, _ = diff(capsys, a, b)
    assert code == 1 and "time unchanged (1.09×, within ±10%)" in out
    assert "claim `[[kb:time ch01/a < 10.5e-6]]` (docs/en/ch01/index.md): `10.0 µs` → `10.9 µs`, now fails" in out


def test_environment_changes_but_not_the_date_or_commit(book, tmp_path, capsys):
    a, b = pair(tmp_path, [capture(torch="2.12.0", triton="3.4.0")],
                [capture(torch="2.13.0", triton="3.5.0", device_name="NVIDIA B200", captured_at="2027-01-01T00:00:00Z")])
    code, out, _ = diff(capsys, a, b)
    assert code == 1
    assert ("environment: device `NVIDIA H100 80GB HBM3` → `NVIDIA B200`; torch `2.12.0` → `2.13.0`; "
            "triton `3.4.0` → `3.5.0`") in out
    env = {e["field"]: (e["old"], e["new"]) for e in only(as_json(capsys, a, b))["environment"]}
    assert env == {"device_name": ("NVIDIA H100 80GB HBM3", "NVIDIA B200"), "torch": ("2.12.0", "2.13.0"), "triton": ("3.4.0", "3.5.0")}


def test_snippets_only_on_one_side_are_added_or_removed(book, tmp_path, capsys):
    kept = capture()
    a, b = pair(tmp_path, [kept, capture(snippet="ch01/gone", device="cpu")], [kept, capture(snippet="ch02/new", sessions=())])
    code, out, _ = diff(capsys, a, b)
    assert code == 1
    assert "ch01/gone (cpu): removed (it had 1 profiling session, 2 launches of 1 kernel, time 10.0 µs; CPU (test), torch 2.13.0)" in out
    assert "ch02/new (cuda): added (0 profiling sessions; NVIDIA H100 80GB HBM3, torch 2.13.0)" in out
    assert out.splitlines()[-1].startswith("2 of 3 capture(s) differ: 0 changed, 1 added, 1 removed; 1 unchanged")
    statuses = {(s["snippet"], s["device"]): s["status"] for s in as_json(capsys, a, b)["snippets"]}
    assert statuses == {("ch01/a", "cuda"): "unchanged", ("ch01/gone", "cpu"): "removed", ("ch02/new", "cuda"): "added"}


def test_sessions_are_compared_one_by_one(book, tmp_path, capsys):
    a, b = pair(tmp_path, [capture(sessions=((("aten::add", 1, 10.0),), (("aten::add", 2, 20.0),)))],
                [capture(sessions=((("aten::add", 1, 10.0),), (("aten::mul", 2, 20.0),), (("aten::mul", 4, 40.0),)))])
    code, out, _ = diff(capsys, a, b)
    assert code == 1 and "ch01/a (cuda): 2 → 3 profiling sessions" in out
    assert "session #1: `aten::add` → `aten::mul`, 2 → 2 launches" in out and "session #2: + `aten::mul`, 0 → 4 launches, time new" in out
    assert "session #0" not in out


# ---------------------------------------------------------------- bad input: exit 2, one line per bad file


def test_bad_files_are_one_line_each_naming_the_file(book, tmp_path, capsys):
    a, b = pair(tmp_path, [capture()], [capture()])
    corrupt = a / "ch01/captures/b.cpu.json"
    corrupt.write_text("{not json", encoding="utf-8")
    misnamed = put(b, capture(snippet="ch01/a"))
    misnamed.rename(b / "ch01/captures/c.cuda.json")
    wrong = b / "ch01/captures/d.cuda.json"
    wrong.write_text(json.dumps({**capture(), "schema": "kernelbook.capture/0"}), encoding="utf-8")
    code, out, err = diff(capsys, a, b)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 3, err
    assert lines[0].startswith(f"kernelbook: {corrupt}: ") and "re-run `kernelbook capture --force ch01/b`" in lines[0]
    assert lines[1].startswith(f"kernelbook: {b / 'ch01/captures/c.cuda.json'}: records ch01/a (cuda), but its path says ch01/c (cuda)")
    assert lines[2].startswith(f"kernelbook: {wrong}: schema is 'kernelbook.capture/0'") and "kernelbook capture" in lines[2]


@pytest.mark.parametrize("args, words", [
    (["nowhere-a", "nowhere-b"], "nowhere-a: no such folder"),
    (["a", "b", "c"], "at most two arguments"),
    (["HEAD"], "is not in a git repository: compare two folders instead"),
    (["--threshold", "0"], "--threshold 0.0: expected a fraction"),
    (["--threshold", "-1"], "--threshold -1.0"),
])
def test_usage_errors_are_one_line_and_exit_2(book, args, words):
    done = run_cli("diff", *args, root=book)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr, done.stderr


# ---------------------------------------------------------------- the formats


def test_markdown_snapshot(book, tmp_path, capsys):
    a, b = pair(tmp_path,
                [capture(snippet="ch01/eager_profile", sessions=(((THRESHOLD, 2, 10.0),),), data={"eager_s": 1e-3}, torch="2.12.0"),
                 capture(snippet="ch01/a", device="cpu", sessions=((("aten::add", 2, 10.0),),)),
                 capture(snippet="ch01/same"), capture(snippet="ch01/gone")],
                [capture(snippet="ch01/eager_profile", sessions=(((RELU, 2, 9.7),),), data={"eager_s": 2.5e-3}),
                 capture(snippet="ch01/a", device="cpu", sessions=((("aten::add", 3, 30.0),),)),
                 capture(snippet="ch01/same"), capture(snippet="ch02/new", data={"name": "`<b>x</b>` @someone"})])
    code, out, _ = diff(capsys, a, b, "--format", "markdown")
    assert code == 1
    assert out == f"""### Captures: `{a}` → `{b}`

4 of 5 capture(s) differ: 2 changed, 1 added, 1 removed; 1 unchanged (timings within ±10% count as unchanged).

- **ch01/a** (cpu): 2 → 3 launches, time 3.00×
  - launch counts: `aten::add` 2 → 3
  - claim `[[kb:launches ch01/a == 2]]` (docs/en/ch01/index.md, docs/ja/ch01/index.md): `2` → `3`, **now fails**: `[[kb:launches ch01/a == 2]]: the cpu capture a.cpu.json says 3 (CPU (test), torch 2.13.0, 2026-01-02T03:04:05Z)`
  - claim `[[kb:launches ch01/a @cpu == 7]]` (docs/en/ch01/index.md): `2` → `3`, **fails (as before)**: `[[kb:launches ch01/a @cpu == 7]]: the cpu capture a.cpu.json says 3 (CPU (test), torch 2.13.0, 2026-01-02T03:04:05Z)`
  - claim `[[kb:predict ch01/a launches >= 2]]` (docs/en/ch01/index.md): `2` → `3`
- **ch01/eager_profile** (cuda): `vectorized_elementwise_kernel<threshold_kernel_impl>` → `vectorized_elementwise_kernel<clamp_min_kernel_cuda>`, 2 → 2 launches, time unchanged (0.97×, within ±10%)
  - environment: torch `2.12.0` → `2.13.0`
  - results: `eager_s` 1.00 ms → 2.50 ms (2.50×)
- **ch01/gone** (cuda): removed (it had 1 profiling session, 2 launches of 1 kernel, time 10.0 µs; NVIDIA H100 80GB HBM3, torch 2.13.0)
- **ch02/new** (cuda): added (1 profiling session, 2 launches of 1 kernel, time 10.0 µs; NVIDIA H100 80GB HBM3, torch 2.13.0)

<sub>`kernelbook diff --format markdown`: kernels by short name, launches and total kernel time per profiling session, `results`, the prose's claims and the environment, per snippet × device.</sub>
"""


@pytest.mark.parametrize("text, span", [("plain", "`plain`"), ("a`b", "``a`b``"), ("``x", "``` ``x ```"),
                                        ("<script>@you", "`<script>@you`"), ("two\nlines\x1b[31m", "`two\\nlines\\x1b[31m`")])
def test_capture_strings_are_one_code_span_each_in_markdown(text, span):
    assert code_span(text) == span


def test_json_says_everything_per_snippet_and_device(book, tmp_path, capsys):
    a, b = pair(tmp_path, [capture(data={"n": 1}), capture(snippet="ch01/gone")],
                [capture(sessions=((("aten::mul", 1, 50.0),),), data={"n": 2}, torch="2.14.0"), capture(snippet="ch01/new", device="cpu")])
    report = as_json(capsys, a, b)
    assert set(report) == {"old", "new", "threshold", "full_names", "differs", "snippets"}
    assert (report["old"], report["new"], report["threshold"], report["full_names"], report["differs"]) == (str(a), str(b), 0.1, False, True)
    by = {(s["snippet"], s["device"]): s for s in report["snippets"]}
    changed = by[("ch01/a", "cuda")]
    assert set(changed) == {"snippet", "device", "status", "old", "new", "sessions", "session_changes", "environment", "results", "claims"}
    assert changed["sessions"] == {"old": 1, "new": 1}
    session = changed["session_changes"][0]
    assert set(session) == {"index", "changed", "kernels_added", "kernels_removed", "launch_counts", "launches", "time_us"}
    assert session["kernels_added"] == [{"name": "aten::mul", "count": 1}] and session["time_us"]["ratio"] == 5.0
    assert changed["old"]["torch"] == "2.13.0" and changed["new"]["sessions"][0]["kernels"] == [{"name": "aten::mul", "count": 1}]
    assert changed["environment"] == [{"field": "torch", "old": "2.13.0", "new": "2.14.0"}]
    assert changed["results"] == [{"key": "n", "old": 1, "new": 2}]
    assert by[("ch01/gone", "cuda")]["new"] is None and by[("ch01/new", "cpu")]["old"] is None
    assert "session_changes" not in by[("ch01/new", "cpu")]


# ---------------------------------------------------------------- against a git ref


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
                   cwd=root, check=True, capture_output=True)


def test_the_working_tree_against_a_ref_read_from_git_without_checking_out(book, capsys):
    put(book / "snippets", capture(snippet="ch01/a", device="cpu"))
    put(book / "snippets", capture(snippet="ch01/b", device="cpu"))
    _git(book, "init", "-q")
    _git(book, "add", "-A")
    _git(book, "commit", "-q", "-m", "base")
    assert diff(capsys)[0] == 0
    put(book / "snippets", capture(snippet="ch01/a", device="cpu", sessions=((("aten::mul", 2, 10.0),),)))
    (book / "snippets/ch01/captures/b.cpu.json").unlink()
    put(book / "snippets", capture(snippet="ch01/c", device="cpu"))
    code, out, _ = diff(capsys)
    assert code == 1 and out.startswith("kernelbook diff: HEAD → working tree\n")
    assert "ch01/a (cpu): `aten::add` → `aten::mul`" in out and "ch01/b (cpu): removed" in out and "ch01/c (cpu): added" in out
    _git(book, "commit", "-q", "-am", "second")
    assert diff(capsys)[0] == 1  # c is not committed yet
    code, out, _ = diff(capsys, "HEAD~1")
    assert code == 1 and out.startswith("kernelbook diff: HEAD~1 → working tree\n")
    (book / "snippets/ch01/captures/a.cpu.json").write_text("{", encoding="utf-8")
    code, out, err = diff(capsys, "no-such-ref")
    assert code == 2 and out == "" and err.startswith("kernelbook: 'no-such-ref' is not a commit in the repository at ")
    code, out, err = diff(capsys)
    assert code == 2 and err.strip() == ("kernelbook: snippets/ch01/captures/a.cpu.json: not valid JSON (line 1: "
                                         "Expecting property name enclosed in double quotes); re-run `kernelbook capture --force ch01/a`")
