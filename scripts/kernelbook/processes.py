"""Child processes that never outlive kernelbook, and signals that stop it at once. Pure stdlib.

``kernelbook capture`` runs each snippet in a child that leads its own process group
(the snippet may start processes of its own); ``kernelbook serve`` runs ``mkdocs serve``.
Whatever happens to the parent (Ctrl-C, SIGTERM, even SIGKILL, which nothing can catch),
those children must not go on running, holding a GPU, a port or the output pipes:

* the parent kills a child's whole group when it is interrupted (:func:`kill_group`);
* a child asks Linux to signal it when its parent dies (``PR_SET_PDEATHSIG``, through
  ``prctl``), and a capture child also watches a pipe from the parent, whose end closes
  when the parent dies however it dies (:func:`hold_lifeline`), and then kills its group.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
