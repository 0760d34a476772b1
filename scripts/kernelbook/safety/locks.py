"""The book's lock: captures written by one run at a time, and never while a build reads them or its cache. Stdlib.

``kernelbook capture`` and ``merge`` hold it exclusively while they decide what to write and
write it (``capture.store.tree_lock``); a build (the MkDocs plugin, ``kernelbook notebooks``)
holds it shared while it reads the captures and reads or writes ``.kernelbook/cache/``. So a
build never reads a cache entry while a snippet runs (the capture's guard removes whatever a
snippet wrote there before anyone reads it), and a build's own cache writes are never taken
for a snippet's.

The lock is ``flock`` on an open descriptor of the book's folder itself, not the existence of
a file: a snippet can delete ``.kernelbook/capture.lock`` (which only says who holds the
lock), never the lock. Without ``fcntl`` (not POSIX) there is no lock.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable
from pathlib import Path

from .files import InputError, read_bounded

NOTE = Path(".kernelbook") / "capture.lock"  # who holds the lock: for the message of a run that waits


def acquire(root: Path, exclusive: bool, who: str, on_wait: Callable[[str], None], note: Path = NOTE) -> int | None:
    """Take the lock on ``root`` (waiting for it, after telling ``on_wait`` who holds it); its descriptor, for :func:`release`.

    ``note``: where, under ``root``, the holder says who it is (another lock on another folder: another note).
    """
    try:
        import fcntl
    except ImportError:
        return None
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            on_wait(holder(root, note))
            fcntl.flock(fd, mode)  # Ctrl-C still interrupts the wait
        _note(root / note, f"`{who}` (pid {os.getpid()}, since {time.strftime('%H:%M:%S')})\n")
    except BaseException:
        os.close(fd)
        raise
    return fd


def release(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing the descriptor releases the lock


def holder(root: Path, note: Path = NOTE) -> str:
    """Who holds the lock, as its holder noted it."""
    try:
        return read_bounded(root / note, 4096, gzipped=False).decode("utf-8", errors="replace").strip() or "another run"
    except InputError:
        return "another run"


def _note(path: Path, text: str) -> None:
    from ..common.records import write_atomic

    try:
        write_atomic(path, text.encode("utf-8"))
    except OSError:  # a read-only tree: the lock holds without its note
        pass
