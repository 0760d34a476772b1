"""Hardening, round 3 (issue 26): what a snippet, a capture folder, a glossary or an option can break.

Each test here failed before its fix: a snippet outliving capture, writing under
``.kernelbook/`` or breaking the lock; numbers a parser chokes on; merged captures over the
output cap or through a committed symlink; options out of range; control characters
printed raw.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import MKDOCS_ENV, copy_project, make_project, run_cli, write

HELLO = "snippets/ch01/captures/hello.cpu.json"


def one_line(done: subprocess.CompletedProcess, *words: str, code: int = 2) -> str:
    """The command failed with ``code``, saying one line (kernelbook: ...) holding every word; no traceback."""
    assert done.returncode == code, (done.returncode, done.stdout[-2000:], done.stderr[-3000:])
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelbook: "), done.stderr[-3000:]
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def captured(tmp_path_factory) -> Path:
    """A bare book with one snippet captured on the CPU (copied by each test that breaks it)."""
    root = make_project(tmp_path_factory.mktemp("hello") / "book")
    write(root / "snippets/ch01/hello.py", """
        import torch
        from torch.profiler import profile, ProfilerActivity

        with profile(activities=[ProfilerActivity.CPU]):
            torch.ones(4).add(1)
        print("hello")
        results = {"n": 4}
    """)
    done = run_cli("capture", "--device", "cpu", root=root)
    assert done.returncode == 0, done.stderr
    return root


def book(captured: Path, dest: Path) -> Path:
    shutil.copytree(captured, dest, ignore=shutil.ignore_patterns(".kernelbook"))
    return dest


def edit(path: Path, change) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(json.dumps(raw), encoding="utf-8")


# ---------------------------------------------------------------- options


@pytest.mark.parametrize("option", [["--timeout", "-1"], ["--timeout", "nan"], ["--timeout", "inf"], ["--timeout", "0"],
                                    ["--jobs", "0"], ["--jobs", "-3"]], ids=" ".join)
@pytest.mark.parametrize("command", ["capture", "build"])
def test_an_option_out_of_range_is_a_usage_error(tmp_path, command, option):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/hello.py", 'print("hello")\n')
    done = run_cli(command, *option, root=root)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert option[0] in done.stderr and "Traceback" not in done.stderr
    assert not (root / "snippets/ch01/captures").exists()  # nothing ran


# ---------------------------------------------------------------- names printed to the terminal


def test_kernels_and_merge_escape_control_characters(captured, tmp_path):
    root = book(captured, tmp_path / "book")
    shard = tmp_path / "shard/snippets/ch01/captures"
    shutil.copytree(root / "snippets/ch01/captures", shard)

    def hostile(raw):
        raw["environment"]["device_name"] = "CPU \x1b]0;owned\x07\x9b2J"
        raw["sessions"][-1]["kernels"][0]["name"] = "\x1b[2Jkernel"
    edit(shard / "hello.cpu.json", hostile)
    for command in (["kernels", str(shard / "hello.cpu.json")], ["kernels", "--full", str(shard / "hello.cpu.json")],
                    ["merge", "--allow-stale", str(tmp_path / "shard")]):
        done = run_cli(*command, root=root)
        assert done.returncode == 0, done.stderr
        assert not any(c in done.stdout + done.stderr for c in "\x1b\x07\x9b"), command
        assert "\\x1b" in done.stdout, (command, done.stdout)


# ---------------------------------------------------------------- numbers and structures a parser chokes on

HUGE = "1" + "0" * 400  # an integer no float can hold
SPOT = '"__spot__"'  # where the literal goes in the JSON


def _kernel_time(raw):
    next(s for s in raw["sessions"] if s["kernels"])["kernels"][0]["time_us"] = "__spot__"


CHOKES = {  # case: (where to put the literal, the literal, the field the message names)
    "wall_time_s": (lambda raw: raw.__setitem__("wall_time_s", "__spot__"), HUGE, "wall_time_s"),
    "time_us": (_kernel_time, HUGE, "time_us"),
    "data": (lambda raw: raw.__setitem__("data", {"n": "__spot__"}), HUGE, "data.n"),
    "digits": (lambda raw: raw.__setitem__("data", {"n": "__spot__"}), "9" * 5000, "data.n"),
    "settings": (lambda raw: raw["environment"]["settings"].__setitem__("deep", "__spot__"), "[" * 200 + "]" * 200,
                 "environment.settings.deep"),
}


def choke(path: Path, case: str) -> str:
    """The capture at ``path`` with one value a parser chokes on; the field a message must name."""
    place, literal, field = CHOKES[case]
    raw = json.loads(path.read_text(encoding="utf-8"))
    place(raw)
    path.write_text(json.dumps(raw).replace(SPOT, literal, 1), encoding="utf-8")
    return field


@pytest.mark.parametrize("case", sorted(CHOKES))
def test_a_capture_a_parser_chokes_on_is_one_line_naming_file_and_field(captured, tmp_path, case):
    root = book(captured, tmp_path / "book")
    field = choke(root / HELLO, case)
    status = run_cli("status", "--json", root=root)
    assert status.returncode == 0 and "Traceback" not in status.stderr, status.stderr
    record = next(r for r in json.loads(status.stdout) if r["device"] == "cpu")
    assert record["state"] == "unreadable" and HELLO in record["reason"] and field in record["reason"], record
    one_line(run_cli("kernels", str(root / HELLO), root=root), HELLO, field)
    shard = tmp_path / "shard/snippets/ch01/captures"
    shard.mkdir(parents=True)
    shutil.copy(root / HELLO, shard / "hello.cpu.json")
    one_line(run_cli("merge", str(tmp_path / "shard"), root=root), "hello.cpu.json", field)
    one_line(run_cli("diff", str(captured / "snippets"), str(root / "snippets"), root=root), "hello.cpu.json", field)


@pytest.mark.parametrize("command", [["notebooks"], ["build", "--no-capture"]], ids=" ".join)
def test_the_site_commands_name_a_capture_a_parser_chokes_on(tmp_path, command):
    root = copy_project(tmp_path / "book")
    field = choke(root / "snippets/ch01/captures/first_call.cpu.json", "wall_time_s")
    one_line(run_cli(*command, root=root, timeout=300, **MKDOCS_ENV), "first_call.cpu.json", field)


# ---------------------------------------------------------------- merge


def test_merge_refuses_output_over_the_capture_cap(captured, tmp_path):
    root = book(captured, tmp_path / "book")
    shard = tmp_path / "shard/snippets/ch01/captures"
    shutil.copytree(root / "snippets/ch01/captures", shard)
    edit(shard / "hello.cpu.json", lambda raw: raw.__setitem__("stdout", ["x" * 1000] * 2000))
    one_line(run_cli("merge", "--allow-stale", str(tmp_path / "shard"), root=root), "hello.cpu.json", "stdout", "256 KB")
    assert json.loads((root / HELLO).read_text(encoding="utf-8"))["stdout"] == ["hello"]


def test_merge_refuses_to_write_through_a_symlinked_captures_folder(captured, tmp_path):
    root = book(captured, tmp_path / "book")
    shard = tmp_path / "shard/snippets/ch01/captures"
    shutil.copytree(root / "snippets/ch01/captures", shard)
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(root / "snippets/ch01/captures")
    (root / "snippets/ch01/captures").symlink_to(outside)
    one_line(run_cli("merge", str(tmp_path / "shard"), root=root), "snippets/ch01/captures", "link")
    assert list(outside.iterdir()) == []


# ---------------------------------------------------------------- the lock

HOLD = """
import sys, time
from pathlib import Path
from kernelbook.capture.store import tree_lock
with tree_lock(Path(sys.argv[1]), sys.stderr, sys.argv[2]):
    print("held", flush=True)
    time.sleep(float(sys.argv[3]))
"""


def test_deleting_the_lock_file_lets_no_second_run_in(tmp_path):
    import sys
    import time

    from conftest import cli_env

    root = make_project(tmp_path / "book")
    hold = lambda name, seconds: subprocess.Popen(  # noqa: E731
        [sys.executable, "-c", HOLD, str(root), name, str(seconds)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=cli_env())
    first = hold("first", 4)
    assert first.stdout.readline() == "held\n"
    (root / ".kernelbook/capture.lock").unlink()  # what a snippet could do
    started = time.monotonic()
    second = hold("second", 0)
    out, err = second.communicate(timeout=60)
    waited = time.monotonic() - started
    first.communicate(timeout=60)
    assert out == "held\n" and "waiting for" in err, err
    assert first.returncode == 0 and second.returncode == 0
    assert waited > 1.5, f"the second run got the lock after {waited:.1f}s, while the first still held it"


# ---------------------------------------------------------------- a snippet writing under .kernelbook/

POISONER = """
from pathlib import Path
state = Path(__file__).parents[2] / ".kernelbook"
(state / "cache/figures/roofline.en.0123456789abcdef.json").write_text('{"svgs": ["<img src=x onerror=alert(1)>"]}')
(state / "cache/figures/new.en.0123456789abcdef.json").write_text("{}")
(state / "capture.lock").unlink()
(state / "failures").mkdir(exist_ok=True)
(state / "failures/other.txt").write_text("made up")
print("poisoned")
"""


def test_a_snippet_that_writes_under_kernelbook_fails_and_leaves_nothing_a_build_reads(tmp_path):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/poisoner.py", POISONER)
    entry = write(root / ".kernelbook/cache/figures/roofline.en.0123456789abcdef.json", '{"made": "by a build"}')
    kept = write(root / ".kernelbook/cache/notebooks/kept.json", "{}")
    done = run_cli("capture", "--device", "cpu", root=root)
    assert done.returncode == 1, done.stderr
    for word in ("FAILED ch01/poisoner (cpu)", ".kernelbook/", ".kernelbook/cache/figures/roofline.en.0123456789abcdef.json (changed)",
                 ".kernelbook/cache/figures/new.en.0123456789abcdef.json (added)", ".kernelbook/capture.lock (removed)",
                 ".kernelbook/failures/other.txt (added)"):
        assert word in done.stderr, (word, done.stderr)
    assert not entry.exists() and not (root / ".kernelbook/cache/figures/new.en.0123456789abcdef.json").exists()
    assert kept.read_text() == "{}"  # what the snippet did not touch stays
    assert "capture" in (root / ".kernelbook/capture.lock").read_text()
    assert sorted(p.name for p in (root / ".kernelbook/failures").iterdir()) == ["ch01__poisoner.cpu.txt"]
    assert not (root / "snippets/ch01/captures/poisoner.cpu.json").exists()


def test_a_figure_cache_entry_is_validated_on_read(tmp_path):
    from kernelbook.site.book import load_book
    from kernelbook.site.caches.figures import cached_figure
    from kernelbook.site.settings import load

    from conftest import ROOT

    _, settings = load(ROOT)
    captures = {sid: e.shown for sid, e in load_book(settings.root, settings.snippets_dir).items() if e.shown is not None}
    fig, drawn = cached_figure(tmp_path, "timeline", "en", captures)
    assert drawn
    again, drawn = cached_figure(tmp_path, "timeline", "en", captures)
    assert not drawn and again == fig  # a sound entry is read back
    (path,) = (tmp_path / "figures").glob("timeline.en.*.json")
    good = json.loads(path.read_text(encoding="utf-8"))
    for poison in ({"svgs": ['<img src=x onerror="alert(1)">']},
                   {"svgs": [good["svgs"][0].replace("<g ", '<g onmouseover="alert(1)" ', 1)]},
                   {"svgs": [good["svgs"][0].replace("</svg>", "<foreignObject><p>x</p></foreignObject></svg>")]},
                   {"svgs": [good["svgs"][0].replace("</svg>", "<style>@import url(//x)</style></svg>")]},
                   {"name": "other"}, {"caption": 3}, {"extra": 1}):
        path.write_text(json.dumps({**good, **poison}), encoding="utf-8")
        shown, drawn = cached_figure(tmp_path, "timeline", "en", captures)
        assert drawn and shown == fig, poison  # never shown: redrawn from the captures


def test_a_malformed_notebook_cache_entry_is_converted_again(tmp_path):
    from types import SimpleNamespace

    from kernelbook.site.caches import notebooks as notebook_cache

    notebook = write(tmp_path / "nb.ipynb", "{}")
    converted = []

    def convert(config, files):
        converted.append(True)
        page.content, page.toc = "<p>converted</p>", []
    page = SimpleNamespace(render=convert, file=SimpleNamespace(abs_src_path=str(notebook), src_uri="nb.ipynb"),
                           content=None, toc=None)
    folder = tmp_path / "cache"
    path = folder / f"{notebook_cache.key(notebook.read_bytes(), {}, {})}.json"
    for entry in ({"content": "<p>x</p>"}, {"content": 1, "toc": [], "title": None},
                  {"content": "", "toc": [{"level": "x"}], "title": None}):
        write(path, json.dumps(entry))
        notebook_cache.cache_render(page, folder, {}, {}, lambda *a: None)
        page.render(None, None)
        assert converted and page.content == "<p>converted</p>", entry
        converted.clear()
        page.render = convert


def test_a_notebook_page_converted_once_comes_from_the_cache_and_a_tampered_file_does_not(tmp_path):
    """What cache_render writes, read_entry takes back (a warm build converts no notebook); a file whose name
    is not its content's, or a name outside the notebook assets folder, is a miss."""
    import base64
    from types import SimpleNamespace

    from kernelbook.site.notebooks import assets as notebook_assets
    from kernelbook.site.caches import notebooks as notebook_cache

    notebook = write(tmp_path / "nb.ipynb", "{}")
    converted = []

    def convert(config, files):
        converted.append(True)
        page.content, page.toc = '<style>.jp-Cell{color:red}</style><div class="jp-Cell">x</div>', []

    def fresh_page():
        return SimpleNamespace(render=convert, file=SimpleNamespace(abs_src_path=str(notebook), src_uri="nb.ipynb"),
                               content=None, toc=None)

    folder = tmp_path / "cache"
    for _ in range(2):
        page = fresh_page()
        notebook_cache.cache_render(page, folder, {}, {}, lambda *a: None)
        page.render(None, None)
    assert converted == [True], "the second render must come from the cache"
    (path,) = folder.glob("*.json")
    entry = json.loads(path.read_text(encoding="utf-8"))
    assert entry["files"] and all(notebook_assets.NAME.fullmatch(name) for name in entry["files"])
    name = next(iter(entry["files"]))
    for files in ({name: base64.b64encode(b"tampered").decode()}, {"../../../etc/x.css": entry["files"][name]}):
        path.write_text(json.dumps({**entry, "files": files}), encoding="utf-8")
        assert notebook_cache.read_entry(path) is None, files


# ---------------------------------------------------------------- a snippet outliving its capture

ESCAPER = """
import os, time
from pathlib import Path
pids = Path(os.environ["KB_TEST_PIDS"])
child = os.fork()
if child == 0:  # a double fork, the grandchild in a session of its own: PPID 1, out of capture's process group
    os.setsid()
    if os.fork() == 0:
        pids.write_text(str(os.getpid()))
        while True:
            time.sleep(0.2)
    os._exit(0)
os.waitpid(child, 0)
while not pids.exists() or not pids.read_text():
    time.sleep(0.05)
print("done" + os.environ.get("KB_TEST_SLEEP", ""))
time.sleep(float(os.environ.get("KB_TEST_SLEEP", "0")))
"""


@pytest.mark.parametrize("how", ["finished", "timed out"])
def test_a_process_that_left_the_snippets_session_does_not_outlive_capture(tmp_path, how):
    import time

    from conftest import process_gone

    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/escaper.py", ESCAPER)
    pids = tmp_path / "pids.txt"
    options = ["--timeout", "30"] if how == "timed out" else []
    done = run_cli("capture", "--device", "cpu", *options, root=root, KB_TEST_PIDS=str(pids),
                   **({"KB_TEST_SLEEP": "300"} if how == "timed out" else {}))
    left = int(pids.read_text())
    try:
        assert done.returncode == 1, done.stderr
        assert "FAILED ch01/escaper (cpu)" in done.stderr
        assert "left process(es) running outside its process group" in done.stderr and f"pid {left} " in done.stderr, done.stderr
        deadline = time.monotonic() + 10
        while not process_gone(left) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert process_gone(left), "the grandchild outlived capture"
        assert not (root / "snippets/ch01/captures/escaper.cpu.json").exists()
    finally:
        if not process_gone(left):
            os.kill(left, signal.SIGKILL)


def test_a_build_waits_for_a_capture_so_it_never_reads_what_a_snippet_writes_meanwhile(tmp_path):
    """The build holds the book's lock shared (``locks``): while a capture holds it, `notebooks` waits."""
    import sys
    import time

    from conftest import cli_env

    root = copy_project(tmp_path / "book")
    first = subprocess.Popen([sys.executable, "-c", HOLD, str(root), "kernelbook capture", "4"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=cli_env())
    assert first.stdout.readline() == "held\n"
    started = time.monotonic()
    done = run_cli("notebooks", "--check", root=root, timeout=300, **MKDOCS_ENV)
    first.communicate(timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "waiting for `kernelbook capture`" in done.stderr, done.stderr[-2000:]
    assert time.monotonic() - started > 2
