"""Child processes that never outlive kernelbook, and signals that stop it at once. Pure stdlib.

``kernelbook capture`` runs each snippet in a child that leads its own process group
(the snippet may start processes of its own); ``kernelbook serve`` runs ``mkdocs serve``.
Whatever happens to the parent (Ctrl-C, SIGTERM, even SIGKILL, which nothing can catch),
those children must not go on running, holding a GPU, a port or the output pipes:

* the parent kills a child's whole group when it is interrupted (:func:`kill_group`);
* a child asks Linux to signal it when its parent dies (``PR_SET_PDEATHSIG``, through
  ``prctl``), and a capture child also watches a pipe from the parent, whose end closes
  when the parent dies however it dies (:func:`hold_lifeline`), and then kills its group;
* what leaves the group (a double fork and ``setsid``) is found by ancestry: the capture
  child is a Linux subreaper (:func:`become_subreaper`), so orphans stay below it, and
  :func:`process_table` / :func:`descendants` / :func:`kill_all` find and stop them
  (``ps`` where there is no /proc).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PR_SET_PDEATHSIG = 1  # linux/prctl.h


class Stopped(KeyboardInterrupt):
    """SIGTERM (or SIGHUP) received: stop as Ctrl-C stops, with that signal's exit status."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_status(exc: KeyboardInterrupt) -> int:
    """128 + the signal number, as a shell reports a process a signal stopped."""
    return 128 + (exc.signum if isinstance(exc, Stopped) else signal.SIGINT)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """While inside (main thread only), SIGTERM and SIGHUP raise :class:`Stopped` like Ctrl-C raises KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Stopped(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def parent_death_signal(signum: int) -> bool:
    """Ask the kernel to send ``signum`` to this process when its parent dies (Linux); False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent() -> None:
    """For ``preexec_fn``: this child gets SIGTERM when the process that started it dies."""
    parent_death_signal(signal.SIGTERM)


def kill_group(pgid: int) -> None:
    """SIGKILL every process in group ``pgid``; nothing to do when it is already gone."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def hold_lifeline(parent: int, fd: int, kill: Callable[[], None] | None = None) -> None:
    """In a capture child leading its own group: kill the group as soon as the parent is gone.

    ``fd`` is the read end of a pipe whose write end only the parent holds; it reads EOF
    when the parent exits, however it exits. The parent's death also sends SIGTERM here
    (``PR_SET_PDEATHSIG``), handled the same way. Processes forked later get SIGTERM's
    usual meaning back.
    """
    me = os.getpid()
    kill = kill or (lambda: kill_group(os.getpgrp()))

    def on_term(signum, frame):
        if os.getpid() == me:
            kill()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked process: die as SIGTERM means
        os.kill(os.getpid(), signal.SIGTERM)

    def watch() -> None:
        try:
            while os.read(fd, 1024):
                pass
        except OSError:
            pass
        kill()

    signal.signal(signal.SIGTERM, on_term)
    parent_death_signal(signal.SIGTERM)
    threading.Thread(target=watch, name="kernelbook-lifeline", daemon=True).start()
    if os.getppid() != parent:  # the parent died before the lifeline was in place
        kill()


# ---------------------------------------------------------------- what a snippet left running

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def become_subreaper() -> bool:
    """Linux: orphans among this process's descendants become its children (not init's), so it can
    find and stop them, however they left its process group or session. False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgid: int
    start: str  # when it started, so that a pid given to a later process is never mistaken for it
    command: str


def process_table() -> dict[int, Proc]:
    """Every process this user can see: /proc on Linux, ``ps`` elsewhere (macOS); {} when neither answers."""
    if os.path.isdir("/proc/self"):
        table = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                found = _proc_entry(int(name))
                if found is not None:
                    table[found.pid] = found
        return table
    try:
        out = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,pgid=,lstart=,comm="], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    table = {}
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[0].isdigit():
            rest = parts[3].split(None, 5)  # lstart is five words: "Tue Dec  1 22:31:03 2026"
            table[int(parts[0])] = Proc(int(parts[0]), int(parts[1]), int(parts[2]), " ".join(rest[:5]), " ".join(rest[5:]))
    return table


def _proc_entry(pid: int) -> Proc | None:
    """Linux: one process from /proc (its command: the name in ``stat``; see :func:`descendants`)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name, fields = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
    if fields[0] == "Z":  # exited, waiting to be reaped: not running
        return None
    return Proc(pid, int(fields[1]), int(fields[2]), fields[19], name)


def _command_line(proc: Proc) -> Proc:
    try:
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", errors="replace")
    except OSError:
        return proc
    return Proc(proc.pid, proc.ppid, proc.pgid, proc.start, cmdline.strip() or proc.command)


def descendants(table: dict[int, Proc], ancestor: int) -> list[Proc]:
    """Every process in ``table`` below ``ancestor``, parents before children, with its whole command line where known."""
    children: dict[int, list[Proc]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc)
    found, todo = [], [ancestor]
    while todo:
        for proc in children.get(todo.pop(), []):
            found.append(proc)
            todo.append(proc.pid)
    return [_command_line(p) for p in found] if os.path.isdir("/proc/self") else found


def kill_all(procs: list[Proc]) -> list[Proc]:
    """SIGKILL each process that still is the one recorded (same start time); those killed.

    Reaps nothing: the caller may have children whose exit status is theirs to collect (:func:`reap`)."""
    killed = []
    for proc in procs:
        now = _proc_entry(proc.pid) if os.path.isdir("/proc/self") else process_table().get(proc.pid)
        if now is None or now.start != proc.start:
            continue
        try:
            os.kill(proc.pid, signal.SIGKILL)
            killed.append(proc)
        except (ProcessLookupError, PermissionError):
            pass
    return killed


def reap() -> None:
    """Collect every child of this process that has exited (a subreaper inherits other processes' children)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def described(procs: list[Proc]) -> str:
    """"pid 123 (sleep 300), ..." for a message; long commands cut."""
    def short(command: str) -> str:
        command = " ".join(command.split())
        return command if len(command) <= 60 else command[:57] + "..."
    return ", ".join(f"pid {p.pid} ({short(p.command)})" for p in procs)


def stop_server(proc: subprocess.Popen, interrupted: bool) -> None:
    """Stop ``mkdocs serve`` as Ctrl-C stops it, so that it finishes what it writes when it stops
    (the notebooks its builds changed, site/plugin.py); killed if it hangs.

    ``interrupted``: a Ctrl-C at the terminal, which the server had too: it is given a moment to
    stop by itself first (a second interrupt could cut that writing short)."""
    if interrupted:
        try:
            proc.wait(timeout=3)
            return
        except subprocess.TimeoutExpired:
            pass
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
