"""Notebook pages converted ahead, in a forked child, while the build renders everything else.

A build converts each notebook page whose entry is not in ``notebook_cache`` yet (a fresh
clone, CI, an edited chapter): nbconvert, one core, about a quarter of a second a page, and
MkDocs renders pages one after another. So the plugin forks a child when the first build of
a run starts (``on_pre_build`` of the first language: before the notebooks are planned, so
the committed ones can start at once) and hands it notebooks to convert (:meth:`Ahead.ask`):
the committed notebooks first, then those the build changed. The child converts them in
that order through the very code a page uses (mkdocs-jupyter's render wrapped by
``notebook_cache.cache_render``) and writes their cache entries, while the build renders the
chapter pages on the other core; a notebook page whose entry the child is converting waits for
it (:meth:`Ahead.wait_for`), then reads it like any cached page. A page the child has not come
to yet (it is still on an earlier one: a book of many chapters, whose notebooks take longer
than their pages) is converted by the build itself, as without the child, and the child skips
it once its entry is written; and while a page waits for the one the child is on, the build
converts the last the child has not come to (the child takes them from the front, the build
from the back): both cores convert notebooks, instead of one converting while the other waits.

Under ``mkdocs serve`` the child forked for the first build stays: each rebuild hands it
the notebooks an edit changed, and the server stops it when it stops. Only that first
build forks; the server's threads start after it (a process with threads never forks).

Nothing depends on the child: a job it fails or never gets to, or a child that died, is
converted in the build's own process, as without it. Forked only where that is safe and
worth it: on Linux, with two cores or more, from a process running one thread. The child
writes no log, takes its jobs from a pipe, tells which are done on another, exits when the
job pipe closes (the build is over, or the server or the whole process is gone), and leaves
with ``os._exit``, running none of the build's own cleanup.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

POLL_SECONDS = 0.01


@dataclass
class Ahead:
    """A child converting notebook pages: its pid, its pipes, what was asked of it and what it has answered."""

    pid: int
    jobs: int | None  # write end of the job pipe; None once closed (the child finishes what it has, then exits)
    done: int  # read end of the answers (one line per job: its entry's path)
    options: dict  # the mkdocs-jupyter settings its conversions use
    asked: set[Path] = field(default_factory=set)  # entries asked for that no page has waited for yet
    order: list[Path] = field(default_factory=list)  # every entry asked for, in the order the child takes them
    answered: set[Path] = field(default_factory=set)  # entries the child is done with (written, or failed)
    status: int | None = None  # its exit status once reaped
    convert: Callable[[Path], None] | None = None  # what the child does with a job: the build does the same with one it takes
    sources: dict[Path, Path] = field(default_factory=dict)  # each entry asked for: its notebook
    _partial: bytes = b""

    def ask(self, work: Iterable[tuple[Path, Path]]) -> None:
        """Have the child convert each ``(source, entry)`` whose entry is not written (after what it has)."""
        todo = [(source, entry) for source, entry in work if not entry.exists() and entry not in self.asked]
        if not todo or self.jobs is None or self.exited():
            return
        lines = "".join(f"{source}\t{entry}\n" for source, entry in todo).encode("utf-8", "surrogateescape")
        try:
            os.write(self.jobs, lines)  # far below the pipe's buffer: never blocks
        except OSError:  # the child is gone: the pages convert themselves
            return
        self.asked.update(entry for _, entry in todo)
        self.order += [entry for _, entry in todo]
        self.sources.update((entry, source) for source, entry in todo)
        self.answered.difference_update(entry for _, entry in todo)

    def wait_for(self, entry: Path) -> bool:
        """Wait until the child is done with ``entry`` (or has exited); False when it was not asked for it,
        or when the child has not come to it yet (the page converts itself; the child then skips it)."""
        if entry not in self.asked:
            return False
        self._read_answers()
        if not entry.exists() and entry not in self.answered and self._current() not in (entry, None):
            # the child is on an earlier page: this one is converted here
            self.asked.discard(entry)
            return False
        while not entry.exists() and entry not in self.answered and not self.exited():
            if not self._read_answers() and not self._take_last():
                time.sleep(POLL_SECONDS)
        self.asked.discard(entry)
        return True

    def _take_last(self) -> bool:
        """Convert here the last job the child has not come to; False when there is none, or when it is the
        next after the one the child is on (the child would reach it while it is converted here: done twice).
        Its page finds the entry written; the child skips it. One that fails is left to the child."""
        self._current()
        pending = [i for i, e in enumerate(self.order) if e not in self.answered and not e.exists()]
        if len(pending) < 3 or self.convert is None:
            return False
        taken = self.order.pop(pending[-1])
        if taken in self.sources:
            with contextlib.suppress(Exception):  # the child converts it then, or its page
                self.convert(self.sources[taken])
        return True

    def _current(self) -> Path | None:
        """The entry the child is on (the first asked that it has not answered and that is not written), if any."""
        while self.order and (self.order[0] in self.answered or self.order[0].exists()):
            self.order.pop(0)
        return self.order[0] if self.order else None

    def _read_answers(self) -> bool:
        """Take in the child's answers so far; False when there were none."""
        try:
            data = os.read(self.done, 65536)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        self.answered.update(Path(line.decode("utf-8", "surrogateescape")) for line in lines)
        return bool(lines)

    def exited(self) -> bool:
        if self.status is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped by someone else: gone all the same
                pid, status = self.pid, -1
            if pid == self.pid:
                self.status = status
        return self.status is not None

    def finish(self, kill: bool = False) -> None:
        """No more jobs; reap the child once it has done those it has (``kill``: stop it at once)."""
        if self.jobs is not None:
            os.close(self.jobs)
            self.jobs = None
        if not self.exited():
            if kill:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                self.status = os.waitpid(self.pid, 0)[1]
            except ChildProcessError:
                self.status = -1
        if self.done >= 0:
            os.close(self.done)
            self.done = -1


def can_fork() -> bool:
    """A fork is safe (Linux, this thread alone) and can run beside the build (two cores or more)."""
    if sys.platform != "linux" or not hasattr(os, "fork") or threading.active_count() != 1:
        return False
    return len(os.sched_getaffinity(0)) >= 2


def start(convert: Callable[[Path], None], options: dict, close: Iterable[int | None] = ()) -> Ahead | None:
    """Fork a child that calls ``convert(source)`` for each job :meth:`Ahead.ask` hands it, in order;
    None (nothing forked) when :func:`can_fork` says no. ``close``: descriptors the child must not keep
    (the book's lock: a child that outlives a build under ``mkdocs serve`` would hold it)."""
    if not can_fork():
        return None
    jobs_read, jobs_write = os.pipe()
    done_read, done_write = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # else the child's copy of their buffers is written again when it exits
    pid = os.fork()
    if pid == 0:  # the child: convert, write the entries, leave without running the build's cleanup
        status = 0
        try:
            for fd in (jobs_write, done_read, *(fd for fd in close if fd is not None)):
                os.close(fd)  # the job pipe's write end only the parent's: gone with it, the child sees the end
            logging.disable(logging.CRITICAL)  # the build reports its pages; nothing is said twice
            with os.fdopen(jobs_read, "rb") as jobs:
                for line in jobs:
                    source, entry = line.rstrip(b"\n").split(b"\t")
                    try:
                        if not Path(os.fsdecode(entry)).exists():
                            convert(Path(os.fsdecode(source)))
                    except Exception:  # this one is converted by its page
                        pass
                    os.write(done_write, entry + b"\n")
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(jobs_read)
    os.close(done_write)
    os.set_blocking(done_read, False)
    return Ahead(pid, jobs_write, done_read, options, convert=convert)
