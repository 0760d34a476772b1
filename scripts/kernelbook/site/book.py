"""Which capture each page shows, and what is wrong with the captures. Reads files; no torch.

A page shows the CUDA capture of a snippet when it is fresh, else the CPU capture under
a notice. A capture stale against its snippet's source is never shown: a stale CPU
capture is a build error (any machine can re-run it); a stale CUDA capture is left out
and reported, since only a GPU runner can refresh it (``status --strict`` guards that).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..files import fingerprint
from ..freshness import State, assess, installed_torch, runnable_devices
from ..records import Capture
from ..snippets import Snippet, discover


@dataclass(frozen=True)
class Entry:
    snippet: Snippet
    cuda: Capture | None  # fresh CUDA capture, if any
    cpu: Capture | None  # fresh CPU capture, if any
    problems: tuple[str, ...]  # build errors: nothing fit to show
    notes: tuple[str, ...]  # not errors: e.g. a CUDA capture left out as stale

    @property
    def shown(self) -> Capture | None:
        return self.cuda or self.cpu

    @property
    def fresh(self) -> tuple[Capture, ...]:
        return tuple(c for c in (self.cuda, self.cpu) if c is not None)


def entry(root: Path, snippet: Snippet, runnable: tuple[str, ...], torch_now: str | None) -> Entry:
    states = {d: assess(root, snippet, d, runnable, torch_now, failures=False) for d in ("cuda", "cpu")}
    usable = {d: _usable(st) for d, st in states.items()}
    problems, notes = [], []
    cpu = states["cpu"]
    if usable["cpu"] is None and usable["cuda"] is None:
        problems.append(_why(cpu) + "; run `kernelbook capture " + snippet.id + "`")
    elif usable["cpu"] is None and cpu.state not in ("missing",):
        problems.append(_why(cpu) + "; run `kernelbook capture --device cpu " + snippet.id + "`")
    cuda = states["cuda"]
    if cuda.state == "unreadable":  # a committed file that is broken is a problem, not a fallback
        problems.append(_why(cuda))
    elif cuda.state != "missing" and usable["cuda"] is None:
        notes.append(_why(cuda) + "; not shown (refresh it on a GPU runner)")
    return Entry(snippet, usable["cuda"], usable["cpu"], tuple(problems), tuple(notes))


def _usable(state: State) -> Capture | None:
    """Fresh, or stale only because this machine (torch, GPU, driver...) differs: still true of its source."""
    return state.capture if state.true_of_source else None


def _why(state: State) -> str:
    path = state.snippet.capture_path(state.device)
    return f"{state.device} capture {path.name} is {state.state}" + (f" ({state.reason})" if state.reason else "")


def load_book(root: Path, folder: str = "snippets") -> dict[str, Entry]:
    """Every snippet under ``root/folder`` and the captures its pages show, by snippet id."""
    runnable, torch_now = runnable_devices(), installed_torch()
    key = (str(root), folder, runnable, torch_now, fingerprint(root / folder))
    if key not in _LOADED:  # each language build of a site, and a `mkdocs serve` reload of prose, read the same files
        _LOADED.clear()
        _LOADED[key] = {s.id: entry(root, s, runnable, torch_now) for s in discover(root, folder)}
    return dict(_LOADED[key])


_LOADED: dict[tuple, dict[str, Entry]] = {}  # the last book read, by its files (entries are frozen)
