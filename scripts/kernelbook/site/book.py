"""Which capture each page shows, and what is wrong with the captures. Reads files; no torch.

A page shows the CUDA capture of a snippet when it is fresh, else the CPU capture under
a notice. A capture stale against its snippet's source is never shown: a stale CPU
capture is a build error (any machine can re-run it); a stale CUDA capture is left out
and reported, since only a GPU runner can refresh it (``status --strict`` guards that).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..safety.files import fingerprint
from ..common.freshness import State, assess, installed_torch, runnable_devices
from ..common.records import Capture
from ..common.snippets import Snippet, discover
from ..common import gpus


@dataclass(frozen=True)
class Entry:
    snippet: Snippet
    cuda: Capture | None  # the fresh CUDA capture a page shows first: the reference GPU's, else another GPU's
    cpu: Capture | None  # fresh CPU capture, if any
    problems: tuple[str, ...]  # build errors: nothing fit to show
    notes: tuple[str, ...]  # not errors: e.g. a CUDA capture left out as stale
    gpus: tuple[tuple[str, Capture], ...] = ()  # every fresh CUDA capture by GPU key, the reference GPU first
    reference: str | None = None  # the book's reference GPU key (mkdocs.yml's reference_gpu)

    @property
    def shown(self) -> Capture | None:
        return self.cuda or self.cpu

    @property
    def fresh(self) -> tuple[Capture, ...]:
        """Every fresh capture: each GPU's (the reference GPU's first), then the CPU's."""
        cudas = tuple(c for _, c in self.gpus) or ((self.cuda,) if self.cuda else ())
        return cudas + ((self.cpu,) if self.cpu else ())


def entry(root: Path, snippet: Snippet, runnable: tuple[str, ...], torch_now: str | None,
          reference: str | None = None) -> Entry:
    cpu = assess(root, snippet, "cpu", runnable, torch_now, failures=False)
    cudas = [assess(root, snippet, d, runnable, torch_now, failures=False) for d in snippet.cuda_slots()]
    problems, notes = [], []
    shown: dict[str, Capture] = {}
    for st in cudas:
        usable = _usable(st)
        if st.state == "unreadable":  # a committed file that is broken is a problem, not a fallback
            problems.append(_why(st))
        elif usable is None:
            notes.append(_why(st) + "; not shown (refresh it on a GPU runner)")
        else:
            key = gpus.key_of(st.device) or gpus.gpu_key(usable.environment.device_name, usable.environment.compute_capability) or "cuda"
            shown.setdefault(key, usable)  # a keyed capture (sorted after the unkeyed one) never hides behind it
            if gpus.key_of(st.device):
                shown[key] = usable
    usable_cpu = _usable(cpu)
    if usable_cpu is None and not shown:
        problems.append(_why(cpu) + "; run `kernelbook capture " + snippet.id + "`")
    elif usable_cpu is None and cpu.state not in ("missing",):
        problems.append(_why(cpu) + "; run `kernelbook capture --device cpu " + snippet.id + "`")
    ordered = tuple(sorted(shown.items(), key=lambda kv: (kv[0] != reference, kv[0])))
    return Entry(snippet, ordered[0][1] if ordered else None, usable_cpu, tuple(problems), tuple(notes), ordered, reference)


def _usable(state: State) -> Capture | None:
    """Fresh, or stale only because this machine (torch, GPU, driver...) differs: still true of its source."""
    return state.capture if state.true_of_source else None


def _why(state: State) -> str:
    path = state.snippet.capture_path(state.device)
    return f"{state.device} capture {path.name} is {state.state}" + (f" ({state.reason})" if state.reason else "")


def load_book(root: Path, folder: str = "snippets", reference: str | None = None) -> dict[str, Entry]:
    """Every snippet under ``root/folder`` and the captures its pages show, by snippet id.

    ``reference``: the book's reference GPU key (shown first); by default mkdocs.yml's.
    """
    runnable, torch_now = runnable_devices(), installed_torch()
    reference = reference or gpus.reference_gpu(root)
    key = (str(root), folder, runnable, torch_now, reference, fingerprint(root / folder))
    if key not in _LOADED:  # each language build of a site, and a `mkdocs serve` reload of prose, read the same files
        _LOADED.clear()
        _LOADED[key] = {s.id: entry(root, s, runnable, torch_now, reference) for s in discover(root, folder)}
    return dict(_LOADED[key])


_LOADED: dict[tuple, dict[str, Entry]] = {}  # the last book read, by its files (entries are frozen)
