"""The real pair: chapter 1's committed CPU captures against a fresh re-capture, and what a page shows of it.

One capture run for the whole module (``recaptured``): ``ch01/eager_profile`` re-captured
with ``kernelbook capture --force`` in a throwaway copy of the book, never in the checkout.
That one run also exercises the runner recording what it replaced (``previous``), and the
copy, built, shows it beside the example in both languages.
"""

from __future__ import annotations

import json
import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

from conftest import ROOT, copy_project, mkdocs_build, run_cli
from kernelbook.common.changes import ENVIRONMENT_LABELS, summarize
from kernelbook.common.records import load
from kernelbook.site.prose.language import unmark

SNIPPET = "ch01/eager_profile"
CAPTURE = "snippets/ch01/captures/eager_profile.cpu.json"


def installed(package: str) -> str | None:
    """The version of ``package`` in this environment, as the harness records it (None: not installed)."""
    try:
        return version(package)
    except PackageNotFoundError:
        return None


@pytest.fixture(scope="module")
def recaptured(tmp_path_factory) -> Path:
    """A copy of the book whose ch01/eager_profile CPU capture was just made again (one snippet run)."""
    copy = copy_project(tmp_path_factory.mktemp("real-pair") / "book")
    done = run_cli("capture", "--device", "cpu", "--force", SNIPPET, root=copy, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "captured 1 of 1" in done.stderr
    return copy


def test_a_fresh_recapture_of_chapter_1_against_the_committed_captures(recaptured):
    done = run_cli("diff", str(ROOT / "snippets"), str(recaptured / "snippets"), "--json", root=recaptured)
    assert done.returncode in (0, 1) and done.stderr == "", done.stderr
    report = json.loads(done.stdout)
    by = {(s["snippet"], s["device"]): s for s in report["snippets"]}
    assert {key for key in by if key[0].startswith("ch01/")} == {
        (f"ch01/{p.name.split('.')[0]}", "cpu") for p in (ROOT / "snippets/ch01/captures").glob("*.cpu.json")}
    others = [s for key, s in by.items() if key != (SNIPPET, "cpu")]
    assert others and all(s["status"] == "unchanged" for s in others)  # the same files: nothing to report
    mine = by[(SNIPPET, "cpu")]
    assert mine["status"] in ("changed", "unchanged")
    # The run launches what the committed capture shows (tests/test_bare_runs.py holds every snippet to that):
    # a re-capture with the same packages differs at most in time, never in kernels or launches.
    [session] = mine["session_changes"]
    assert session["kernels_added"] == session["kernels_removed"] == session["launch_counts"] == []
    assert session["launches"]["old"] == session["launches"]["new"] == 2
    # The same packages (torch pinned), but not always the same machine or triton: CI's CPU need not be
    # the one the committed capture ran on, and triton is now a test dependency (chapter 4) that a capture
    # made without it installed records as none. Those, and only those, are reported.
    recorded, fresh = load(ROOT / CAPTURE).environment, load(recaptured / CAPTURE).environment
    assert fresh.triton == (installed("triton") or installed("pytorch-triton"))
    assert mine["environment"] == [{"field": field, "old": getattr(recorded, field), "new": getattr(fresh, field)}
                                   for field in ("device_name", "triton") if getattr(recorded, field) != getattr(fresh, field)]
    assert all(c["fails"] is None for c in mine["claims"]), mine["claims"]  # the prose holds on the fresh run too
    assert done.returncode == (1 if mine["status"] == "changed" else 0)
    assert mine["status"] == ("changed" if session["time_us"]["moved"] or mine["claims"] or mine["results"]
                              or mine["environment"] else "unchanged")

    text = run_cli("diff", str(ROOT / "snippets"), str(recaptured / "snippets"), root=recaptured)
    assert text.returncode == done.returncode
    last = text.stdout.splitlines()[-1]
    assert re.match(r"1 of \d+ capture\(s\) differ" if done.returncode else r"no difference: \d+ capture\(s\) compared", last), text.stdout
    if done.returncode:
        time = r"\d+\.\d\d×" if session["time_us"]["moved"] else r"unchanged \(\d+\.\d\d×, within ±\d+%\)"
        assert re.search(rf"^ch01/eager_profile \(cpu\): 2 → 2 launches, time {time}$", text.stdout, re.M), text.stdout
    if mine["environment"]:
        moves = "; ".join(f"{ENVIRONMENT_LABELS[m['field']]} `{m['old']}` → `{m['new']}`" for m in mine["environment"])
        assert f"environment: {moves}" in text.stdout, text.stdout


def test_the_runner_records_the_capture_it_replaced(recaptured):
    committed, fresh = load(ROOT / CAPTURE), load(recaptured / CAPTURE)
    assert fresh.previous == summarize(committed)
    assert fresh.previous.captured_at == committed.environment.captured_at
    assert [k.name for k in fresh.previous.sessions[0].kernels] == ["aten::add", "aten::clamp_min"]
    untouched = load(recaptured / "snippets/ch01/captures/first_kernel.cpu.json")
    assert untouched == load(ROOT / "snippets/ch01/captures/first_kernel.cpu.json")


def test_each_language_shows_how_the_example_changed_from_its_previous_capture(recaptured, tmp_path):
    done = mkdocs_build(recaptured, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert done.returncode == 0, done.stderr[-3000:]
    committed = load(ROOT / CAPTURE)
    when = committed.environment.captured_at.replace("T", " ").replace("Z", " UTC")
    for page, title, previous in (("en/ch01/index.html", "Changes since the previous capture", "Previous capture"),
                                  ("ch01/index.html", "前回のキャプチャからの変化", "前回のキャプチャ")):
        html = unmark((tmp_path / "site" / page).read_text(encoding="utf-8"))  # English phrases' marks aside
        start = html.index('id="kb-ch01-eager-profile"')  # the re-captured example, after what it ran
        after = html.find('class="kb-example"', start)
        own = html[start:after if after != -1 else len(html)]
        blocks = re.findall(r'<details class="kb-previous">(.*?)</details>', own, re.S)
        assert len(blocks) == 1, page  # its own block, from the capture it replaced (the committed one)
        assert f"<summary>{title}</summary>" in blocks[0]
        assert f"{previous}: {committed.environment.device_name} · torch {committed.environment.torch} · {when}" in blocks[0]
