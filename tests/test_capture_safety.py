"""``kernelbook capture`` loses nothing and leaves nothing behind.

Two runs at once on one tree; a snippet that writes into the captures folders; capture
killed by Ctrl-C, SIGTERM and SIGKILL while a snippet (and a process it started) runs; a
snippet whose leftover process holds the output pipes; a snippet printing megabytes.
Each test runs the real CLI in child processes on a tiny temporary book.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import cli_env, make_project, process_gone, run_cli, write
from kernelbook.capture.child import OUTPUT_CAP, SCRATCH_PREFIX, Capped, remove_stale_scratch

# Records when it ran and a token both in its output and in its profiler trace, so that
# a capture whose trace belongs to another run can be told.
RACER = """
import os, time, uuid
token = uuid.uuid4().hex
with open(os.environ["KB_TEST_LOG"], "a") as log:
    log.write(f"start {time.time()} {token}\\n")
import torch
from torch.profiler import ProfilerActivity, profile, record_function
torch.ones(4) + 1
with profile(activities=[ProfilerActivity.CPU]):
    with record_function("token_" + token):
        torch.ones(4) + 1
time.sleep(2)
print(token)
with open(os.environ["KB_TEST_LOG"], "a") as log:
    log.write(f"end {time.time()} {token}\\n")
"""


def _foreground_signals() -> None:
    # A job started in the background by a shell without job control (`make test &`) inherits
    # Ctrl-C ignored, and Python then keeps ignoring it: the capture runs as in a terminal.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _spawn(root: Path, *args: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "kernelbook", "capture", "--device", "cpu", *args], cwd=root,
                            env=cli_env(**env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_foreground_signals)


def _intervals(log: Path) -> list[tuple[float, float]]:
    events = [line.split() for line in log.read_text().splitlines()]
    starts = {t: float(at) for kind, at, t in events if kind == "start"}
    return sorted((starts[t], float(at)) for kind, at, t in events if kind == "end")


def test_two_captures_at_once_take_turns_and_each_capture_matches_its_trace(tmp_path):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/racer.py", RACER)
    log = tmp_path / "runs.txt"
    first = _spawn(root, "--force", KB_TEST_LOG=str(log))
    # The second starts once the first's snippet runs (it holds the lock by then): on a loaded
    # machine, two started together may never meet, the second reaching the lock after the first is done.
    deadline = time.monotonic() + 120
    while not (log.is_file() and "start" in log.read_text()) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    second = _spawn(root, "--force", KB_TEST_LOG=str(log))
    outs = [p.communicate(timeout=300) for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, outs
    runs = _intervals(log)
    assert len(runs) == 2
    (a_start, a_end), (b_start, b_end) = runs
    assert a_end <= b_start, f"the two runs overlapped: {runs}"
    assert any("waiting for `kernelbook capture`" in err for _, err in outs), outs
    capture = json.loads((root / "snippets/ch01/captures/racer.cpu.json").read_text(encoding="utf-8"))
    token = capture["stdout"][0]
    trace = gzip.decompress((root / "snippets/ch01/captures/racer.cpu.trace0.json.gz").read_bytes())
    assert f"token_{token}".encode() in trace, "the trace sidecar belongs to another run"
    assert not [p for p in (root / "snippets/ch01/captures").iterdir() if p.name.startswith(".")]


def test_a_second_capture_waits_then_finds_nothing_stale(tmp_path):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/racer.py", RACER)
    log = tmp_path / "runs.txt"
    first = _spawn(root, KB_TEST_LOG=str(log))
    deadline = time.monotonic() + 120
    while not log.exists() and time.monotonic() < deadline:  # the first run holds the lock now
        time.sleep(0.1)
    second = _spawn(root, KB_TEST_LOG=str(log))
    outs = [p.communicate(timeout=300) for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, outs
    assert len(_intervals(log)) == 1  # the snippet ran once
    assert "waiting for" in outs[1][1] and "nothing to capture" in outs[1][1], outs[1][1]


VANDAL = """
import os
from pathlib import Path
captures = Path(__file__).parent / "captures"
(captures / "good.cpu.json").write_text("clobbered\\n")
(captures / "extra.cpu.json").write_text("{}\\n")
(captures / "note.txt").unlink()
os.mkfifo(captures / "pipe.cpu.json")
(captures / "folder").mkdir()
(captures / "folder" / "inside.json").write_text("{}")
(Path(__file__).parents[1] / "ch03" / "captures").mkdir(parents=True)
print("vandalised")
"""


def test_a_snippet_that_writes_into_the_captures_folder_fails_and_is_undone(tmp_path):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/good.py", 'print("good")\n')
    done = run_cli("capture", "--device", "cpu", root=root)
    assert done.returncode == 0, done.stderr
    note = write(root / "snippets/ch01/captures/note.txt", "kept by a person\n")
    write(root / "snippets/ch02/captures/other.cpu.json", "{}\n")
    before = {p: p.read_bytes() for p in root.glob("snippets/*/captures/*")}
    write(root / "snippets/ch01/vandal.py", VANDAL)
    done = run_cli("capture", "--device", "cpu", root=root)
    assert done.returncode == 1
    assert "FAILED ch01/vandal (cpu)" in done.stderr
    assert "it wrote into the captures folders" in done.stderr
    for word in ("snippets/ch01/captures/good.cpu.json (changed)", "snippets/ch01/captures/extra.cpu.json (added)",
                 "snippets/ch01/captures/note.txt (removed)", "snippets/ch01/captures/pipe.cpu.json (added)",
                 "snippets/ch01/captures/folder (added)", "snippets/ch03/captures (added)"):
        assert word in done.stderr, done.stderr
    assert {p: p.read_bytes() for p in root.glob("snippets/*/captures/*")} == before  # all put back, vandal's own not written
    assert not (root / "snippets/ch03/captures").exists()
    assert note.read_text() == "kept by a person\n"


# ---------------------------------------------------------------- killing capture

SLEEPER = """
import os, subprocess, time
child = subprocess.Popen(["sleep", "300"])
with open(os.environ["KB_TEST_PIDS"], "w") as handle:
    handle.write(f"{os.getpid()} {child.pid}")
time.sleep(300)
"""


def _wait_for(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def _killed_while_running(tmp_path: Path, signum: int) -> tuple[subprocess.Popen, list[int], Path, float]:
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/sleeper.py", SLEEPER)
    temp = tmp_path / "tmp"
    temp.mkdir()
    pids = tmp_path / "pids.txt"
    proc = _spawn(root, TMPDIR=str(temp), KB_TEST_PIDS=str(pids))
    assert _wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, 120), proc.stderr
    waiting = [int(x) for x in pids.read_text().split()]
    assert list(temp.glob(f"{SCRATCH_PREFIX}*"))
    sent = time.monotonic()
    proc.send_signal(signum)
    return proc, waiting, temp, sent


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "sigterm"])
def test_an_interrupt_stops_at_once_and_leaves_nothing(tmp_path, signum, code):
    proc, waiting, temp, sent = _killed_while_running(tmp_path, signum)
    out, err = proc.communicate(timeout=60)
    assert time.monotonic() - sent < 10, "capture went on running after the interrupt"
    assert proc.returncode == code, err
    assert "interrupted" in err and "Traceback" not in err, err
    assert _wait_for(lambda: all(map(process_gone, waiting)), 10), waiting  # the snippet and what it started
    assert not list(temp.glob(f"{SCRATCH_PREFIX}*"))
    assert not list((tmp_path / "book/snippets/ch01").glob("captures/*"))
    assert not (tmp_path / "book/.kernelbook/failures").exists() or not list((tmp_path / "book/.kernelbook/failures").iterdir())


def test_sigkill_takes_the_snippet_with_it_and_the_next_run_cleans_up(tmp_path):
    proc, waiting, temp, _ = _killed_while_running(tmp_path, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert _wait_for(lambda: all(map(process_gone, waiting)), 15), "the snippet outlived a SIGKILLed capture"
    stale = list(temp.glob(f"{SCRATCH_PREFIX}*"))
    assert len(stale) == 1  # nothing could remove it
    # Not ours, or still in use: never touched.
    strangers = [temp / f"{SCRATCH_PREFIX}no-mark", temp / "kernelbook-other"]
    for folder in strangers:
        folder.mkdir()
    alive = temp / f"{SCRATCH_PREFIX}alive"
    alive.mkdir()
    (alive / ".kernelbook-owner").write_text(f"{os.getpid()} {Path(f'/proc/{os.getpid()}/stat').read_text().rsplit(')', 1)[1].split()[19]}\n")
    (tmp_path / "book/snippets/ch01/sleeper.py").unlink()
    write(tmp_path / "book/snippets/ch01/quick.py", "print('quick')\n")
    done = run_cli("capture", "--device", "cpu", root=tmp_path / "book", TMPDIR=str(temp))
    assert done.returncode == 0, done.stderr
    assert f"removed {stale[0]}" in done.stderr
    assert not stale[0].exists()
    assert all(f.is_dir() for f in [*strangers, alive])


def test_stale_scratch_is_only_ours(tmp_path):
    folder = tmp_path / f"{SCRATCH_PREFIX}dead"
    folder.mkdir()
    (folder / ".kernelbook-owner").write_text("999999999 12345\n")
    link = tmp_path / f"{SCRATCH_PREFIX}link"
    link.symlink_to(folder)
    garbled = tmp_path / f"{SCRATCH_PREFIX}garbled"
    garbled.mkdir()
    (garbled / ".kernelbook-owner").write_text("not a pid\n")
    assert remove_stale_scratch(tmp_path) == [folder]
    assert link.is_symlink() and garbled.is_dir()


# ---------------------------------------------------------------- a snippet's leftover process holds the pipes

FORKER = """
import os, subprocess
child = subprocess.Popen(["sleep", "120"])  # inherits stdout and stderr
with open(os.environ["KB_TEST_PIDS"], "w") as handle:
    handle.write(str(child.pid))
print("snippet done")
"""


def test_a_leftover_process_holding_the_pipes_neither_delays_nor_fails_the_capture(tmp_path):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/forker.py", FORKER)
    pids = tmp_path / "pids.txt"
    started = time.monotonic()
    done = run_cli("capture", "--device", "cpu", "--timeout", "60", root=root, KB_TEST_PIDS=str(pids))
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert elapsed < 40, f"capture waited {elapsed:.0f}s for a process the snippet left behind"
    capture = json.loads((root / "snippets/ch01/captures/forker.cpu.json").read_text(encoding="utf-8"))
    assert capture["stdout"] == ["snippet done"]
    assert _wait_for(lambda: process_gone(int(pids.read_text())), 10)  # the group was stopped


# ---------------------------------------------------------------- output size

LOUD = """
import sys
for i in range(300_000):
    print(f"line {i:07d} " + "x" * 20)
for i in range(100_000):
    print(f"err {i:07d}", file=sys.stderr)
"""


def test_stored_output_is_capped_with_head_tail_and_a_marker(tmp_path):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/loud.py", LOUD)
    done = run_cli("capture", "--device", "cpu", root=root)
    assert done.returncode == 0, done.stderr
    path = root / "snippets/ch01/captures/loud.cpu.json"
    assert path.stat().st_size < 3 * OUTPUT_CAP
    capture = json.loads(path.read_text(encoding="utf-8"))
    for stream, total, first, last in (("stdout", 300_000, "line 0000000 ", "line 0299999 "), ("stderr", 100_000, "err 0000000", "err 0099999")):
        lines = capture[stream]
        markers = [i for i, line in enumerate(lines) if line.startswith("… ") and line.endswith(" lines cut …")]
        assert len(markers) == 1, stream
        cut = int(lines[markers[0]].split()[1])
        assert lines[0].startswith(first) and lines[-1].startswith(last)
        assert len(lines) - 1 + cut == total, (stream, len(lines), cut)  # every line kept or counted
        assert sum(len(x) + 1 for x in lines) <= OUTPUT_CAP + 100


@pytest.mark.parametrize("chunks", [
    [b"short\n"],
    [b"a" * 400_000],  # one huge line, no newline at all
    [b"line\n" * 200_000],
    [b"x" * 10 + b"\n"] * 60_000,
    [b"\xe6\x97\xa5" * 100_000 + b"\n"] * 3,  # multi-byte characters
    [b"ab\n" * 50_000, b"c" * 300_000, b"\nend\n"],
])
def test_capped_keeps_everything_it_can_and_counts_the_rest(chunks):
    capped = Capped(cap=64 * 1024)
    for chunk in chunks:
        for i in range(0, len(chunk), 7_000):  # in pieces, as a pipe delivers it
            capped.feed(chunk[i:i + 7_000])
    whole = b"".join(chunks)
    text = capped.text()
    assert len(text.encode()) <= 64 * 1024 + 100
    original = whole.decode()
    if len(whole) <= 64 * 1024:
        assert text == original
        return
    (marker,) = re.finditer(r"^… (\d+) (lines|bytes) cut …\n", text, flags=re.M)
    head, tail = text[:marker.start()], text[marker.end():]
    if not original.startswith(head):  # a line break added before the marker, after a cut line
        head = head.removesuffix("\n")
    assert original.startswith(head) and original.endswith(tail) and "\ufffd" not in text
    middle = original[len(head):len(original) - len(tail)]
    count, unit = int(marker.group(1)), marker.group(2)
    assert count == (middle.count("\n") if unit == "lines" else len(middle.encode())), (count, unit)
    assert head or tail
