"""The tree's captures folders, written safely: one writer at a time, each capture whole. Stdlib only.

* :func:`tree_lock`: ``kernelbook capture`` and ``merge`` hold a lock on the book's folder
  while they decide what to write and write it; a second one waits, saying for whom
  (``.kernelbook/capture.lock`` says who holds it).
* :func:`install`: a capture and its trace sidecars as one unit: every file written under
  a temporary name first, then renamed into place, traces first and the capture JSON last
  (so a capture only ever names traces that exist), then the sidecars it no longer names
  removed.
* :func:`replacing`: a capture about to replace another records it in brief, as its
  ``previous`` (``changes.Summary``), so each example can show how its capture changed.
* :class:`Guard`: the captures folders and ``.kernelbook/`` as kernelbook last left them; a
  snippet that changed them while it ran is caught, and what it changed is undone.
* :func:`check_folder`: a captures folder reached through a link is refused before anything is written.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..safety import locks
from ..common.changes import summarize
from ..safety.errors import KernelbookError
from ..common.records import Capture, CaptureError, load, temp_beside
from ..common.snippets import CAPTURE_DIR

STATE_DIR = Path(".kernelbook")  # kernelbook's own: the lock's note, failure reports, the build's caches
CACHE_DIR = STATE_DIR / "cache"  # the plugin's default cache_dir
LOCK = locks.NOTE


@contextmanager
def tree_lock(root: Path, log: TextIO, what: str) -> Iterator[None]:
    """Hold the book's lock exclusively while inside (``locks``); wait, saying for whom, while another holds it.

    ``flock`` on the book's folder itself: a snippet deleting ``.kernelbook/capture.lock``
    (which only says who holds it) cannot let a second run in beside this one.
    """
    def waiting(holder: str) -> None:
        print(f"waiting for {holder} to finish: it holds the lock on {root}", file=log, flush=True)

    fd = locks.acquire(root, True, what, waiting)
    try:
        yield
    finally:
        locks.release(fd)


def check_folder(root: Path, folder: Path) -> None:
    """``folder`` (a captures folder) is a real folder of this tree, reached through no link: else KernelbookError.

    A committed link (``snippets/ch01/captures -> /tmp/...``) would have kernelbook write outside the tree.
    """
    try:
        rel = folder.relative_to(root)
    except ValueError:
        raise KernelbookError(f"{folder} is outside the book's folder {root}") from None
    for depth in range(1, len(rel.parts) + 1):
        part = root.joinpath(*rel.parts[:depth])
        if part.is_symlink():
            raise KernelbookError(f"{part.relative_to(root)} is a link (to {os.readlink(part)}): "
                                  "kernelbook writes captures only into real folders of the tree; replace the link with a folder")
    if folder.exists() and not folder.is_dir():
        raise KernelbookError(f"{rel} is not a folder; remove it so that kernelbook can write captures there")


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


def installed(target: Path) -> Capture | None:
    """The capture at ``target`` now; None when there is none, or none readable (anything valid replaces it)."""
    try:
        return load(target)
    except CaptureError:
        return None


def replacing(capture: Capture, there: Capture | None) -> Capture:
    """``capture`` recording, as its ``previous``, the capture ``there`` that it replaces (None: nothing to record)."""
    return capture if there is None else dataclasses.replace(capture, previous=summarize(there))


def same_run(a: Capture, b: Capture) -> bool:
    """Two captures of one run: equal in everything but what each records it replaced."""
    return dataclasses.replace(a, previous=None) == dataclasses.replace(b, previous=None)


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
    signature: tuple[int, int, int, int, int]  # type, size, inode, mtime, ctime: any write or rename changes one
    data: bytes | None  # a regular file's bytes, to put back


class Guard:
    """Everything in ``snippets/*/captures/`` and under ``.kernelbook/`` as kernelbook last left it, to catch a
    snippet writing there.

    What is put back: the captures, and ``.kernelbook``'s own files (the lock's note, failure reports), byte
    for byte. Under ``.kernelbook/cache/`` (drawn figures, rendered notebooks: derived, and rebuilt when
    missing) only each entry's signature is kept, and whatever a snippet added or changed there is removed,
    so that nothing it wrote is ever read by a build.
    """

    def __init__(self, root: Path):
        self.root = root
        self.lock = threading.RLock()
        self.state = root / STATE_DIR
        self.derived = root / CACHE_DIR
        self.entries = {path: self._seen(path) for path in self._present()}

    def _present(self) -> set[Path]:
        """Every entry (files, links, folders, FIFOs...) in every captures folder and under .kernelbook/; links are not followed."""
        found = set()
        for folder in (self.root / "snippets").glob(f"*/{CAPTURE_DIR}"):
            found.add(folder)
            if folder.is_dir() and not folder.is_symlink():
                found.update(folder.iterdir())
        if self.state.is_symlink() or self.state.exists():
            found.add(self.state)
        if self.state.is_dir() and not self.state.is_symlink():
            for folder, dirs, files in os.walk(self.state):  # never into a linked folder
                found.update(Path(folder) / name for name in (*dirs, *files))
        return found

    def _is_derived(self, path: Path) -> bool:
        return path != self.derived and path.is_relative_to(self.derived)

    def _seen(self, path: Path) -> _Seen:
        return _seen(path, read=not self._is_derived(path))

    def expect(self, written: list[Path], removed: list[Path]) -> None:
        """What kernelbook itself just wrote and removed (called by :func:`install`, and for failure reports)."""
        with self.lock:
            for path in written:
                self.entries[path] = self._seen(path)
                for parent in path.parents:  # folders it made for them
                    if parent == self.root or parent in self.entries:
                        break
                    self.entries[parent] = self._seen(parent)
            for path in removed:
                self.entries.pop(path, None)

    def restore(self) -> list[str]:
        """Put back everything changed, added or removed since; what was put back, e.g. "x.cpu.json (changed)"."""
        with self.lock:
            found = []
            for path in sorted(self._present() - set(self.entries), key=lambda p: len(p.parts)):
                _remove(path)
                found.append((path, "added"))
            for path, seen in sorted(self.entries.items(), key=lambda item: len(item[0].parts)):  # folders first
                try:
                    now = _seen(path, read=False).signature
                except OSError:
                    now = None
                folder = stat.S_ISDIR(seen.signature[0])
                derived = self._is_derived(path) and not folder
                if now is None:
                    found.append((path, "removed"))
                elif now != seen.signature and (seen.data is not None or derived or now[0] != seen.signature[0]):
                    found.append((path, "changed"))  # a folder's times change with its files: only its type counts
                else:
                    continue
                if seen.data is not None:
                    _remove(path)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(temp_beside(path, seen.data), path)
                elif folder:
                    if now is not None:
                        _remove(path)
                    path.mkdir(parents=True, exist_ok=True)
                else:  # a cache entry, a FIFO or the like: nothing to put back but its absence
                    if now is not None:
                        _remove(path)
                    self.entries.pop(path)
                    continue
                self.entries[path] = self._seen(path)
            return [f"{path.relative_to(self.root)} ({how})" for path, how in found]


def _seen(path: Path, read: bool = True) -> _Seen:
    info = path.lstat()
    regular = stat.S_ISREG(info.st_mode)
    data = path.read_bytes() if read and regular else None
    return _Seen((stat.S_IFMT(info.st_mode), info.st_size, info.st_ino, info.st_mtime_ns, info.st_ctime_ns), data)


def _remove(path: Path) -> None:
    """Whatever is at ``path`` (a link itself, never what it points to)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
