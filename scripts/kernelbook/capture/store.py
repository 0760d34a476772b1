"""The tree's captures folders, written safely: one writer at a time, each capture whole. Stdlib only.

* :func:`tree_lock`: ``kernelbook capture`` and ``merge`` hold ``.kernelbook/capture.lock``
  while they decide what to write and write it; a second one waits, saying for whom.
* :func:`install`: a capture and its trace sidecars as one unit: every file written under
  a temporary name first, then renamed into place, traces first and the capture JSON last
  (so a capture only ever names traces that exist), then the sidecars it no longer names
  removed.
* :class:`Guard`: the captures folders as kernelbook last left them; a snippet that changed
  them while it ran is caught, and what it changed is put back.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..records import temp_beside
from ..snippets import CAPTURE_DIR

LOCK = Path(".kernelbook") / "capture.lock"


@contextmanager
def tree_lock(root: Path, log: TextIO, what: str) -> Iterator[None]:
    """Hold the tree's capture lock while inside; wait (saying so) while another run holds it."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock (kernelbook capture itself needs POSIX process groups)
        yield
        return
    path = root / LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            holder = os.pread(fd, 200, 0).decode("utf-8", errors="replace").strip() or "another run"
            print(f"waiting for {holder} to finish: it holds {path}", file=log, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)  # Ctrl-C still interrupts the wait
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"`{what}` (pid {os.getpid()}, since {time.strftime('%H:%M:%S')})\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def install(folder: Path, files: list[tuple[str, bytes]], sidecars: Iterable[Path] = (), guard: Guard | None = None) -> bool:
    """Put ``files`` (traces first, the capture JSON last) into ``folder`` as one unit; True when anything changed.

    ``sidecars``: the trace files of this snippet × device there now; those not among
    ``files`` are removed, after the capture that stopped naming them is in place.
    """
    keep = {name for name, _ in files}
    changed = [(name, data) for name, data in files if not _holds(folder / name, data)]
    stale = [p for p in sidecars if p.name not in keep]
    with guard.lock if guard else _nothing():
        written: list[tuple[Path, Path]] = []
        try:
            for name, data in changed:
                written.append((temp_beside(folder / name, data), folder / name))
            for temp, target in written:
                os.replace(temp, target)
        except BaseException:
            for temp, _ in written:
                temp.unlink(missing_ok=True)
            raise
        for old in stale:
            old.unlink(missing_ok=True)
        if guard is not None:
            guard.expect([folder / name for name, _ in changed], stale)
    return bool(changed or stale)


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and path.read_bytes() == data
    except OSError:
        return False


@contextmanager
def _nothing() -> Iterator[None]:
    yield


# ---------------------------------------------------------------- the captures folders while snippets run


@dataclass(frozen=True)
class _Seen:
    signature: tuple[int, int, int, int]  # size, inode, mtime, ctime: any write or rename changes one
    data: bytes


class Guard:
    """Every file in ``snippets/*/captures/`` as kernelbook last left it, to catch a snippet writing there."""

    def __init__(self, root: Path):
        self.root = root
        self.lock = threading.RLock()
        self.files = {path: _Seen(_signature(path), path.read_bytes()) for path in self._present()}

    def _present(self) -> list[Path]:
        return sorted(p for p in (self.root / "snippets").glob(f"*/{CAPTURE_DIR}/*") if p.is_file() or p.is_symlink())

    def expect(self, written: list[Path], removed: list[Path]) -> None:
        """What kernelbook itself just wrote and removed (called by :func:`install`)."""
        with self.lock:
            for path in written:
                self.files[path] = _Seen(_signature(path), path.read_bytes())
            for path in removed:
                self.files.pop(path, None)

    def restore(self) -> list[str]:
        """Put back every file changed, added or removed since; what was put back, e.g. "x.cpu.json (changed)"."""
        with self.lock:
            found = []
            present = set(self._present())
            for path in sorted(present - set(self.files)):
                path.unlink(missing_ok=True)
                found.append((path, "added"))
            for path, seen in self.files.items():
                if path not in present:
                    found.append((path, "removed"))
                elif path.is_symlink() or _signature(path) != seen.signature:
                    found.append((path, "changed"))
                else:
                    continue
                if path.is_symlink():
                    path.unlink()
                path.parent.mkdir(parents=True, exist_ok=True)
                os.replace(temp_beside(path, seen.data), path)
                self.files[path] = _Seen(_signature(path), seen.data)
            return [f"{path.relative_to(self.root)} ({how})" for path, how in found]


def _signature(path: Path) -> tuple[int, int, int, int]:
    info = path.stat()
    return info.st_size, info.st_ino, info.st_mtime_ns, info.st_ctime_ns
