"""Bad input never crashes a command: one line naming the file and the problem, exit 2.

Across the commands: a capture or a snippet that is not UTF-8, a snippet or chapter named
outside ``[a-z0-9_]+``; ``kernelbook serve`` on a busy port and under SIGTERM and SIGKILL;
and the top-level guard that keeps a traceback for kernelbook's own bugs only.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import MKDOCS_ENV, ROOT, cli_env, copy_project, make_project, run_cli, write

CAPTURE = "snippets/ch01/captures/first_call.cpu.json"
SNIPPET = "snippets/ch01/first_call.py"


def one_line(done: subprocess.CompletedProcess, *words: str, code: int = 2) -> str:
    """The command failed with ``code``, saying one line (kernelbook: ...) holding every word."""
    assert done.returncode == code, (done.returncode, done.stdout[-2000:], done.stderr[-3000:])
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelbook: "), done.stderr[-3000:]
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def not_utf8(path: Path) -> Path:
    """A byte that is not UTF-8 in the middle of the file (test data in a throwaway copy)."""
    data = path.read_bytes()
    middle = data.index(b"\n", len(data) // 2)
    path.write_bytes(data[:middle] + b"\n# \xff\xfe\n" + data[middle:] if path.suffix == ".py"
                     else data.replace(b'"cpu"', b'"c\xe9pu"', 1))
    return path


@pytest.fixture(scope="module")
def bad_capture_book(tmp_path_factory) -> Path:
    book = copy_project(tmp_path_factory.mktemp("bad-capture") / "book")
    not_utf8(book / CAPTURE)
    return book


@pytest.fixture(scope="module")
def bad_snippet_book(tmp_path_factory) -> Path:
    book = copy_project(tmp_path_factory.mktemp("bad-snippet") / "book")
    not_utf8(book / SNIPPET)
    return book


# ---------------------------------------------------------------- a capture that is not UTF-8


def test_status_shows_a_capture_that_is_not_utf8_as_unreadable(bad_capture_book):
    done = run_cli("status", "--json", root=bad_capture_book)
    assert done.returncode == 0, done.stderr
    record = next(r for r in json.loads(done.stdout) if r["snippet"] == "ch01/first_call" and r["device"] == "cpu")
    assert record["state"] == "unreadable" and "not UTF-8" in record["reason"] and CAPTURE in record["reason"]
    text = run_cli("status", root=bad_capture_book)
    assert text.returncode == 0 and "Traceback" not in text.stderr
    assert any(line.startswith("unreadable") and "ch01/first_call" in line for line in text.stdout.splitlines())


@pytest.mark.parametrize("command", [["notebooks"], ["notebooks", "--check"], ["build", "--no-capture"], ["serve", "--dev-addr", "127.0.0.1:1"]],
                         ids=" ".join)
def test_a_capture_that_is_not_utf8_stops_the_rendering_commands_in_one_line(bad_capture_book, command):
    docs = {p: p.read_bytes() for p in (bad_capture_book / "docs").rglob("*") if p.is_file()}
    done = run_cli(*command, root=bad_capture_book, timeout=300, **MKDOCS_ENV)
    one_line(done, CAPTURE, "not UTF-8")
    assert {p: p.read_bytes() for p in (bad_capture_book / "docs").rglob("*") if p.is_file()} == docs


def test_kernels_names_a_capture_that_is_not_utf8(bad_capture_book):
    one_line(run_cli("kernels", str(bad_capture_book / CAPTURE)), CAPTURE, "not UTF-8")


def test_capture_re_runs_a_capture_that_is_not_utf8(tmp_path):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/hello.py", 'print("hello")\n')
    assert run_cli("capture", "--device", "cpu", root=root).returncode == 0
    path = not_utf8(root / "snippets/ch01/captures/hello.cpu.json")
    done = run_cli("capture", "--device", "cpu", root=root)
    assert done.returncode == 0 and "capturing 1 of 1" in done.stderr, done.stderr
    assert json.loads(path.read_text(encoding="utf-8"))["stdout"] == ["hello"]


def test_a_bad_capture_in_a_folder_to_merge_is_named(tmp_path):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/hello.py", 'print("hello")\n')
    assert run_cli("capture", "--device", "cpu", root=root).returncode == 0
    incoming = tmp_path / "shard/snippets/ch01/captures/hello.cpu.json"
    incoming.parent.mkdir(parents=True)
    incoming.write_bytes((root / "snippets/ch01/captures/hello.cpu.json").read_bytes())
    not_utf8(incoming)
    one_line(run_cli("merge", str(tmp_path / "shard"), root=root), str(incoming), "not UTF-8")


# ---------------------------------------------------------------- a snippet that is not UTF-8


def test_status_shows_a_snippet_that_is_not_utf8_as_unreadable(bad_snippet_book):
    done = run_cli("status", "--json", root=bad_snippet_book)
    assert done.returncode == 0, done.stderr
    rows = [r for r in json.loads(done.stdout) if r["snippet"] == "ch01/first_call"]
    assert [r["state"] for r in rows] == ["unreadable", "unreadable"]
    assert all(SNIPPET in r["reason"] and "not UTF-8" in r["reason"] for r in rows)


@pytest.mark.parametrize("command", [["capture", "--device", "cpu"], ["capture", "--device", "cpu", "first_call"],
                                     ["notebooks"], ["build"], ["build", "--no-capture"],
                                     ["serve", "--dev-addr", "127.0.0.1:1"]], ids=" ".join)
def test_a_snippet_that_is_not_utf8_is_one_line_for_every_command(bad_snippet_book, command):
    captures = {p: p.read_bytes() for p in (bad_snippet_book / "snippets").rglob("captures/*")}
    done = run_cli(*command, root=bad_snippet_book, timeout=300, **MKDOCS_ENV)
    one_line(done, SNIPPET, "not UTF-8")
    assert {p: p.read_bytes() for p in (bad_snippet_book / "snippets").rglob("captures/*")} == captures


def test_merge_names_a_snippet_that_is_not_utf8(bad_snippet_book, tmp_path):
    incoming = tmp_path / "shard" / CAPTURE
    incoming.parent.mkdir(parents=True)
    incoming.write_bytes((ROOT / CAPTURE).read_bytes())
    raw = json.loads(incoming.read_text(encoding="utf-8"))
    raw["environment"]["captured_at"] = "2001-01-01T00:00:00Z"  # older than the tree's: merge must look at the snippet
    incoming.write_text(json.dumps(raw), encoding="utf-8")
    one_line(run_cli("merge", str(tmp_path / "shard"), root=bad_snippet_book), SNIPPET, "not UTF-8")


# ---------------------------------------------------------------- names


@pytest.mark.parametrize("rel", ['ch01/say"hi.py', "ch01/with space.py", "ch01/Dots.In.py", "ch 2/fine.py"])
@pytest.mark.parametrize("command", [["status"], ["capture", "--device", "cpu"]], ids=" ".join)
def test_a_bad_name_is_one_line_at_discovery(tmp_path, rel, command):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/fine.py", "print(1)\n")
    write(root / "snippets" / rel, "print(2)\n")
    one_line(run_cli(*command, root=root), f"snippets/{rel}", "[a-z0-9_]+")
    assert not list(root.glob("snippets/*/captures"))


@pytest.mark.parametrize("command", [["build", "--no-capture"], ["notebooks"], ["serve", "--dev-addr", "127.0.0.1:1"]], ids=" ".join)
def test_a_bad_name_stops_the_rendering_commands_in_one_line(tmp_path, command):
    book = copy_project(tmp_path / "book")
    write(book / 'snippets/ch01/say"hi.py', "print(2)\n")
    one_line(run_cli(*command, root=book, timeout=300, **MKDOCS_ENV), 'snippets/ch01/say"hi.py', "[a-z0-9_]+")


def test_plain_mkdocs_build_names_a_bad_name_without_a_traceback(tmp_path):
    from conftest import mkdocs_build

    book = copy_project(tmp_path / "book")
    write(book / "snippets/ch01/with space.py", "print(2)\n")
    done = mkdocs_build(book, tmp_path / "site")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "snippets/ch01/with space.py: chapter and snippet names must match [a-z0-9_]+" in done.stderr


# ---------------------------------------------------------------- a config MkDocs refuses

# The child hides the kernelbook entry point of the MkDocs plugins, as a Python the book was never
# installed into has it (`PYTHONPATH=scripts` alone), before mkdocs or kernelbook looks it up.
WITHOUT_THE_PLUGIN = """
import importlib.metadata as metadata
import sys
found = metadata.entry_points
def entry_points(**selection):
    entries = found(**selection)
    return [e for e in entries if e.name != "kernelbook"] if selection.get("group") == "mkdocs.plugins" else entries
metadata.entry_points = entry_points
from kernelbook.cli import main
sys.exit(main(sys.argv[1:]))
"""


def refused(done: subprocess.CompletedProcess, *words: str) -> str:
    """Exit 2; MkDocs' own ERROR line(s), then one line of kernelbook's holding every word; no traceback, no 'internal error'."""
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr[-3000:]
    ours = [line for line in done.stderr.splitlines() if line.startswith("kernelbook: ")]
    assert len(ours) == 1, done.stderr[-3000:]
    for word in words:
        assert word in ours[0], (word, ours[0])
    return ours[0]


@pytest.mark.parametrize("command", [["build", "--no-capture"], ["notebooks"]], ids=" ".join)
def test_a_plugin_mkdocs_cannot_find_is_named_with_the_config(tmp_path, command):
    book = make_project(tmp_path / "book")
    write(book / "mkdocs.yml", "site_name: t\nplugins:\n  - kernelbook\n  - no_such_plugin_here\n")
    done = run_cli(*command, root=book, timeout=300, **MKDOCS_ENV)
    refused(done, f"{book / 'mkdocs.yml'}: MkDocs refused this config", "ERROR line")
    assert "no_such_plugin_here" in done.stderr  # MkDocs' line, above ours
    assert not (book / "site").exists()


def test_a_config_that_is_not_yaml_is_one_line_with_the_parsers_reason(tmp_path):
    book = make_project(tmp_path / "book")
    write(book / "mkdocs.yml", "site_name: t\nplugins:\n  - kernelbook\n nav: [\n")
    line = one_line(run_cli("build", "--no-capture", root=book, timeout=300, **MKDOCS_ENV), f"{book / 'mkdocs.yml'}: ")
    assert "line" in line and "ERROR line" not in line  # the parser's place, not a pointer to lines that are not there


@pytest.mark.parametrize("command", [["build", "--no-capture"], ["notebooks"]], ids=" ".join)
def test_a_python_without_the_book_installed_is_told_how_to_install_it(command):
    done = subprocess.run([sys.executable, "-c", WITHOUT_THE_PLUGIN, *command], cwd=ROOT, env=cli_env(**MKDOCS_ENV),
                          capture_output=True, text=True, timeout=300)
    refused(done, "the kernelbook MkDocs plugin is not installed in this Python", f'"{sys.executable}" -m pip install -e {ROOT}', "make .venv/.installed")


# ---------------------------------------------------------------- kernelbook serve


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def test_serve_on_a_busy_port_is_one_line_naming_it():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        line = one_line(run_cli("serve", "--dev-addr", f"127.0.0.1:{port}", timeout=60), f"port {port}", "127.0.0.1", "--dev-addr")
    assert "not free" in line


@pytest.mark.parametrize("addr", ["8000", "localhost:http", "127.0.0.1:99999", ":8000"])
def test_serve_with_a_bad_address_is_one_line(addr):
    one_line(run_cli("serve", "--dev-addr", addr, timeout=60), "--dev-addr")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_stopping_serve_frees_the_port(tmp_path, signum):
    """No `mkdocs serve` keeps the port once `kernelbook serve` is gone, however it went."""
    book = copy_project(tmp_path / "book")
    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "kernelbook", "serve", "--dev-addr", f"127.0.0.1:{port}"], cwd=book,
                                env=cli_env(**MKDOCS_ENV), stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and _port_free(port) and proc.poll() is None:
            time.sleep(0.5)
        assert not _port_free(port), f"mkdocs serve did not come up:\n{log.read_text()[-3000:]}"
        proc.send_signal(signum)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not _port_free(port):
            time.sleep(0.2)
        assert _port_free(port), f"a mkdocs serve child still holds port {port}"
        if signum == signal.SIGTERM:
            assert proc.returncode == 143, log.read_text()[-2000:]
            assert "Traceback" not in log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()


# ---------------------------------------------------------------- the top-level guard


def test_an_internal_error_is_one_line_and_its_traceback_is_one_switch_away(monkeypatch, capsys):
    from kernelbook import cli

    def broken(args):
        raise RuntimeError("a bug in kernelbook itself")

    monkeypatch.setattr(cli, "cmd_status", broken)
    monkeypatch.delenv("KERNELBOOK_TRACEBACK", raising=False)
    assert cli.main(["status"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "internal error" in err[0] and "a bug in kernelbook itself" in err[0] and "KERNELBOOK_TRACEBACK=1" in err[0]
    monkeypatch.setenv("KERNELBOOK_TRACEBACK", "1")
    with pytest.raises(RuntimeError, match="a bug in kernelbook itself"):
        cli.main(["status"])


def test_status_prints_no_control_characters_from_a_capture(tmp_path):
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/hello.py", 'print("hello")\n')
    assert run_cli("capture", "--device", "cpu", root=root).returncode == 0
    path = root / "snippets/ch01/captures/hello.cpu.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["environment"]["device_name"] = "CPU \x1b[2J\x1b]0;owned\x07"
    path.write_text(json.dumps(raw), encoding="utf-8")
    done = run_cli("status", root=root)
    assert done.returncode == 0 and "\x1b" not in done.stdout and "\x07" not in done.stdout and "\\x1b[2J" in done.stdout

