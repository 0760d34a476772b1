"""One snippet's child process: its scratch folder, its output, its whole process group. Stdlib only.

* The child leads its own process group and holds a lifeline to this process
  (``processes.hold_lifeline``): if ``kernelbook capture`` dies, even by SIGKILL, the
  group is killed. Ctrl-C or SIGTERM here kills every running group at once (:class:`Running`).
* Output is read until the child (the harness running the snippet) exits, then the
  group is killed: a process the snippet left behind holding the pipes neither keeps
  the capture waiting nor turns a finished run into a timeout. The processes below the
  child are listed while it runs; any of them that left its group and still runs at the
  end (where the harness's own sweep could not stop it: a timeout, macOS) is killed and
  returned, and the run fails naming it.
* What is kept of stdout and stderr is capped (:data:`OUTPUT_CAP` each): the first and
  last lines, with a line saying how many were cut between them.
* Each run works in a scratch folder ``kernelbook-capture-*`` in the temporary folder,
  marked with its owner's pid; one left behind by a killed run is removed by the next
  (:func:`remove_stale_scratch`), never a folder some other process still owns.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..safety.processes import Proc, descendants, kill_all, kill_group, process_table
from ..common.records import OUTPUT_CAP  # bytes of stdout, and of stderr, a capture keeps (checked again on every read)
SCRATCH_PREFIX = "kernelbook-capture-"
OWNER = ".kernelbook-owner"  # in each scratch folder: "PID START" of the process that made it
POLL_S = 0.05
LOOK_S = 0.5  # how often the processes below a running child are listed


class Capped:
    """One output stream, read to its end, keeping its first and last ``cap / 2`` bytes."""

    def __init__(self, cap: int = OUTPUT_CAP):
        self.half = cap // 2
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.cut_bytes = 0
        self.cut_lines = 0

    def feed(self, chunk: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self.tail.append(chunk)
        self.tail_size += len(chunk)
        while self.tail_size - len(self.tail[0]) >= self.half:  # whole chunks no longer needed
            self._cut(self.tail.popleft())
        if self.tail_size > self.half:
            first = self.tail[0]
            extra = self.tail_size - self.half
            self._cut(first[:extra])
            self.tail[0] = first[extra:]

    def _cut(self, piece: bytes) -> None:
        self.cut_bytes += len(piece)
        self.cut_lines += piece.count(b"\n")
        self.tail_size -= len(piece)

    def text(self) -> str:
        tail = b"".join(self.tail)
        if not self.cut_bytes:
            return (bytes(self.head) + tail).decode("utf-8", errors="replace")
        head = bytes(self.head)
        # whole lines on both sides of the cut where there are lines, else whole characters
        end = head.rfind(b"\n") + 1 or _char_end(head)
        start = tail.find(b"\n") + 1
        start = start if 0 < start < len(tail) else _char_start(tail)
        self._cut(head[end:] + tail[:start])
        head, tail = head[:end], tail[start:]
        cut = f"… {self.cut_lines} lines cut …" if self.cut_lines else f"… {self.cut_bytes} bytes cut …"
        joint = b"" if head.endswith(b"\n") or not head else b"\n"
        return (head + joint).decode("utf-8", errors="replace") + cut + "\n" + tail.decode("utf-8", errors="replace")


def _char_end(data: bytes) -> int:
    """Where the last whole UTF-8 character of ``data`` ends."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return len(data)
        if byte >= 0xC0:  # a lead byte: is its sequence complete?
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) if back >= need else len(data) - back
    return len(data)


def _char_start(data: bytes) -> int:
    """Where the first whole UTF-8 character of ``data`` starts."""
    for i, byte in enumerate(data[:4]):
        if not 0x80 <= byte < 0xC0:
            return i
    return 0


class Running:
    """The children running now, so that an interrupt can kill them all at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.groups: set[int] = set()
        self.stopping = False

    def add(self, pgid: int) -> None:
        with self.lock:
            self.groups.add(pgid)
            if self.stopping:  # started just as the interrupt came
                kill_group(pgid)

    def discard(self, pgid: int) -> None:
        with self.lock:
            self.groups.discard(pgid)

    def stop_all(self) -> None:
        with self.lock:
            self.stopping = True
            for pgid in self.groups:
                kill_group(pgid)


class TimedOut(Exception):
    def __init__(self, escaped: list[Proc]):
        super().__init__("timed out")
        self.escaped = escaped  # processes that had left the child's group, killed


def run(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float, running: Running,
        heartbeat: Callable[[float], None], every: float = 30.0) -> tuple[str, str, int, list[Proc]]:
    """Run ``cmd`` as the leader of a new process group; (stdout, stderr, exit code, escaped), output capped.

    ``escaped``: processes seen below the child that had left its group and were still running
    when it ended (the harness stops those itself; these escaped it), now killed. Raises
    TimedOut (the group and the escaped killed) after ``timeout`` seconds; calls
    ``heartbeat(elapsed)`` every ``every`` seconds meanwhile.
    """
    lifeline, keep = os.pipe()  # the child reads EOF on `lifeline` when this process dies
    env = dict(env, KERNELBOOK_LIFELINE=f"{os.getpid()}:{lifeline}")
    try:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True, pass_fds=(lifeline,))
    except BaseException:
        os.close(keep)
        raise
    finally:
        os.close(lifeline)
    running.add(proc.pid)
    streams = [Capped(), Capped()]
    readers = [threading.Thread(target=_drain, args=(pipe, out), daemon=True) for pipe, out in zip((proc.stdout, proc.stderr), streams)]
    for reader in readers:
        reader.start()
    seen: dict[int, Proc] = {}  # every process seen below the child: the sweep's list where no subreaper catches them
    timed_out = False
    try:
        started = time.monotonic()
        beat, look = started + every, started
        while not _exited(proc):
            now = time.monotonic()
            if now - started >= timeout:
                timed_out = True
                break
            if now >= beat:
                heartbeat(now - started)
                beat = now + every
            if now >= look:
                seen.update((p.pid, p) for p in descendants(process_table(), proc.pid))
                look = now + LOOK_S
            time.sleep(POLL_S)
    finally:
        kill_group(proc.pid)  # what the snippet left running, or everything on a timeout or an interrupt
        # ...and what left the group (setsid) before the harness could stop it (a timeout, an os._exit)
        escaped = [p for p in kill_all(list(seen.values())) if p.pgid != proc.pid]
        running.discard(proc.pid)
        os.close(keep)
        proc.wait()
        for reader in readers:
            reader.join(timeout=5)  # a process that left the group may still hold a pipe: stop reading it
    if timed_out:
        raise TimedOut(escaped)
    return streams[0].text(), streams[1].text(), proc.returncode, escaped


def _exited(proc: subprocess.Popen) -> bool:
    """Whether the child exited, without reaping it: its group id stays valid for kill_group."""
    if hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True
    return proc.poll() is not None


def _drain(pipe, out: Capped) -> None:
    with pipe:
        for chunk in iter(lambda: pipe.read1(65536), b""):
            out.feed(chunk)


# ---------------------------------------------------------------- scratch folders


@contextmanager
def scratch() -> Iterator[Path]:
    """A fresh scratch folder for one run, marked as this process's, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
    try:
        (folder / OWNER).write_text(f"{os.getpid()} {_start_time(os.getpid())}\n", encoding="utf-8")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def remove_stale_scratch(base: Path | None = None) -> list[Path]:
    """Scratch folders whose owner is gone (a killed run's), removed; the folders removed.

    Only folders named ``kernelbook-capture-*``, really folders (not links), owned by this
    user, holding an owner mark whose process is not running: anything else is left alone.
    """
    base = Path(base or tempfile.gettempdir())
    removed = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return []
    for folder in entries:
        if not folder.name.startswith(SCRATCH_PREFIX):
            continue
        try:
            info = folder.lstat()
            mark = (folder / OWNER).read_text(encoding="utf-8").split()
            pid, start = int(mark[0]), mark[1]
        except (OSError, ValueError, IndexError):
            continue  # not ours, or not ours to judge
        if not _is_dir(info) or info.st_uid != os.getuid() or _alive(pid, start):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _is_dir(info: os.stat_result) -> bool:
    return stat.S_ISDIR(info.st_mode)


def _alive(pid: int, start: str) -> bool:
    """Process ``pid`` runs and is the one that wrote the mark (not a later process given the same pid)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    now = _start_time(pid)
    return now == "?" or start == "?" or now == start


def _start_time(pid: int) -> str:
    """When ``pid`` started, in clock ticks since boot (Linux); "?" where that cannot be told."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return "?"
