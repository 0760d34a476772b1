"""Notebook pages converted ahead, in a forked process, while the build renders everything else.

A build converts each notebook page whose entry is not in ``notebook_cache`` yet (a fresh
clone, CI, a changed chapter): nbconvert, one core, about a quarter of a second a page, and
MkDocs renders pages one after another. So when a ``mkdocs build`` starts (the first
language's ``on_pre_build``: every chapter notebook of every language is planned by then),
the plugin forks a child that converts the missing ones, the default language's first,
through the very code a page uses (mkdocs-jupyter's render wrapped by
``notebook_cache.cache_render``) and writes their cache entries. The build meanwhile
renders the chapter pages on the other core; a notebook page whose entry the child has not
written yet waits for it (:meth:`Ahead.wait_for`), then reads it like any cached page.

Nothing depends on the child: should it fail or be killed, the page whose entry is missing
is converted in the build's own process, as without it. Forked only where that is safe and
worth it: on Linux, with two cores or more, from a process running one thread (never under
``mkdocs serve``, whose server and watcher are threads: there a rebuild converts only the
edited chapter's notebook anyway). The child writes no log and exits with ``os._exit``,
running none of the build's own cleanup; the build reaps it when it ends, or kills it when
the build fails.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

POLL_SECONDS = 0.01


@dataclass
class Ahead:
    """A child converting notebook pages: its pid and the cache entries it writes."""

    pid: int
    entries: frozenset[Path]
    status: int | None = None  # its exit status once reaped

    def wait_for(self, entry: Path) -> bool:
        """Wait until the child has written ``entry`` or exited; False when ``entry`` is not the child's work."""
        if entry not in self.entries:
            return False
        while not entry.exists() and not self.exited():
            time.sleep(POLL_SECONDS)
        return True

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
        """Reap the child (it has little or nothing left to do once the pages are built); ``kill``: stop it first."""
        if self.exited():
            return
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self.status = -1 if kill else 0


def can_fork() -> bool:
    """A fork is safe (Linux, this thread alone) and can run beside the build (two cores or more)."""
    if sys.platform != "linux" or not hasattr(os, "fork") or threading.active_count() != 1:
        return False
    return len(os.sched_getaffinity(0)) >= 2


def start(work: Iterable[tuple[Path, Path]], convert: Callable[[Path], None]) -> Ahead | None:
    """Fork a child that calls ``convert(source)`` for each ``(source, entry)`` of ``work`` whose entry
    is not written yet, in that order; None (nothing forked) when there is none or :func:`can_fork` says no."""
    todo = [(source, entry) for source, entry in work if not entry.exists()]
    if not todo or not can_fork():
        return None
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # else the child's copy of their buffers is written again when it exits
    pid = os.fork()
    if pid == 0:  # the child: convert, write the entries, leave without running the build's cleanup
        status = 0
        try:
            logging.disable(logging.CRITICAL)  # the build reports its pages; nothing is said twice
            for source, _ in todo:
                convert(source)
        except BaseException:  # the build converts whatever is missing itself
            status = 1
        finally:
            os._exit(status)
    return Ahead(pid, frozenset(entry for _, entry in todo))
