"""``kernelbook merge DIR...``: bring captures made elsewhere into this tree. Pure stdlib.

Each DIR holds captures in the tree's own layout (``DIR/snippets/<chapter>/captures/``),
e.g. one CI shard's artifact. Every capture is validated and checked against this
tree before anything is written; then each is installed like ``capture`` installs
one: its trace sidecars first, the capture file last, every file atomically, and
sidecars of the same snippet × device that the new capture does not name are removed.

Two DIRs carrying different captures of the same snippet × device are a conflict.
Shards split snippets by a stable hash, so correct shards never conflict.

A capture never goes over a fresher one already in the tree: one of another version of
the snippet (its source hash is not the snippet's, while the tree's is), or one taken
earlier than the tree's, is refused naming both files, unless ``--allow-stale``. A capture
that replaces another records it in brief as its ``previous`` (``store.replacing``), as
``capture`` does; one the tree already holds (but for ``previous``) is left as it is. The
tree is locked while merge writes (``store.tree_lock``), as ``capture`` locks it.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ..safety.errors import KernelbookError, shown
from ..safety.files import InputError, link_on_the_way, read_bounded
from ..common.freshness import brought_problem
from ..common.records import MAX_CAPTURE_BYTES, Capture, CaptureError, dumps, load
from ..common import gpus
from ..common.snippets import CAPTURE_DIR, Snippet, discover, source_hash
from . import store
from .kernels import MAX_TRACE_BYTES

_CAPTURE_NAME = re.compile(r"^(?P<stem>[^/.]+)\.(?P<device>" + gpus.SLOT.pattern + r")\.json$")


@dataclass(frozen=True)
class Incoming:
    """One validated capture from a DIR, with the bytes to install."""

    snippet: Snippet
    device: str
    source: Path  # the capture file in its DIR
    capture: Capture
    files: tuple[tuple[str, bytes], ...]  # (name in the captures folder, content): traces first, capture last

    def same_as(self, other: "Incoming") -> bool:
        return self.files == other.files


@dataclass(frozen=True)
class Merged:
    incoming: Incoming
    changed: bool  # False: the tree already had exactly these files


def collect(root: Path, dirs: list[Path]) -> list[Incoming]:
    """Every capture in ``dirs``, validated; a problem raises a one-line KernelbookError."""
    known = {s.id: s for s in discover(root)}
    chosen: dict[tuple[str, str], Incoming] = {}
    for folder in dirs:
        if folder.exists() and not folder.is_dir():
            raise KernelbookError(f"{folder}: not a folder nor a .tar.gz archive (kernelbook pack writes NAME.tar.gz); "
                                  "give a folder laid out like the tree (DIR/snippets/...) or an archive")
        if not folder.is_dir():
            raise KernelbookError(f"{folder}: no such folder")
        for path in sorted((folder / "snippets").glob(f"*/{CAPTURE_DIR}/*.json")):
            _no_link(folder, path)
            incoming = _read(path, known)
            key = (incoming.snippet.id, incoming.device)
            earlier = chosen.get(key)
            if earlier is None:
                chosen[key] = incoming
            elif not earlier.same_as(incoming):
                raise KernelbookError(
                    f"conflict: {earlier.source} and {incoming.source} carry different captures of "
                    f"{incoming.snippet.id} ({incoming.device}); shards must not overlap"
                )
    return [chosen[key] for key in sorted(chosen)]


def _no_link(folder: Path, path: Path) -> None:
    """``path`` is a real file of ``folder``: a link in a contributed folder would have merge read (and install) a file from elsewhere."""
    found = link_on_the_way(folder, path)
    if found is not None:
        raise KernelbookError(f"{found} is a link or not a folder; merge reads only the real files of the folders it is given: "
                              "copy the captures there instead of linking them")


def _read(path: Path, known: dict[str, Snippet]) -> Incoming:
    chapter = path.parent.parent.name
    match = _CAPTURE_NAME.match(path.name)
    if not match:
        raise KernelbookError(f"{path}: not a capture file name (expected NAME.cuda-GPU.json, NAME.cuda.json or NAME.cpu.json)")
    snippet_id, device = f"{chapter}/{match['stem']}", match["device"]
    try:
        capture = load(path)
    except CaptureError as exc:
        raise KernelbookError(str(exc)) from None
    if capture.snippet != snippet_id or capture.device != gpus.device_of(device):
        raise KernelbookError(f"{path}: records {capture.snippet} ({capture.device}), but its name says {snippet_id} ({device})")
    key, env = gpus.key_of(device), capture.environment
    if key is not None and gpus.gpu_key(env.device_name, env.compute_capability) != key:
        raise KernelbookError(f"{path}: unknown GPU key {key}: the capture records {env.device_name} "
                              f"(key {gpus.gpu_key(env.device_name, env.compute_capability)})")
    snippet = known.get(snippet_id)
    if snippet is None:
        raise KernelbookError(f"{path}: snippet {snippet_id} is not in this tree (no snippets/{snippet_id}.py)")
    files = []
    for index, name in enumerate(capture.trace_files):
        expected = f"{match['stem']}.{device}.trace{index}.json.gz"
        if name != expected:
            raise KernelbookError(f"{path}: names trace {name!r}, expected {expected!r}")
        trace = path.parent / name
        _no_link(path.parent, trace)
        try:
            data = read_bounded(trace, MAX_TRACE_BYTES, gzipped=False)
        except InputError as exc:
            raise KernelbookError(f"{path}: its trace {exc}") from None
        if not data.startswith(b"\x1f\x8b"):
            raise KernelbookError(f"{trace}: not a gzip file")
        files.append((name, data))
    data = read_bounded(path, MAX_CAPTURE_BYTES, gzipped=False)
    if capture.previous is not None:  # what it replaced elsewhere is no history of this tree's: history is made here (settle)
        capture = dataclasses.replace(capture, previous=None)
        data = dumps(capture).encode("utf-8")
    files.append((path.name, data))
    return Incoming(snippet, device, path, capture, tuple(files))


def stale_over_fresh(incoming: Incoming, root: Path) -> str | None:
    """Why ``incoming`` would replace a fresher capture in the tree, or None when it would not."""
    target = incoming.snippet.capture_path(incoming.device)
    if not target.exists():
        return None
    try:
        there = load(target)
    except CaptureError:
        return None  # a broken capture in the tree: any valid one is better
    current = source_hash(incoming.snippet.path)
    mine, theirs = incoming.capture, there
    if theirs.freshness.source_hash == current and mine.freshness.source_hash != current:
        why = (f"{incoming.source} was captured from another version of the snippet than {shown(target, root)} "
               f"and snippets/{incoming.snippet.id}.py")
    elif (mine.freshness.source_hash == current) == (theirs.freshness.source_hash == current) and \
            mine.environment.captured_at < theirs.environment.captured_at:
        why = (f"{incoming.source} ({mine.environment.captured_at}) is older than {shown(target, root)} "
               f"({theirs.environment.captured_at})")
    else:
        return None
    return f"{why}; not putting a stale capture over a fresh one (--allow-stale does)"


def settle(incoming: Incoming) -> Incoming:
    """``incoming`` as it would go into the tree: recording what it replaces, or the tree's own file when it holds this run."""
    target = incoming.snippet.capture_path(incoming.device)
    there = store.installed(target)
    if there is None:
        return incoming
    *traces, (name, _) = incoming.files
    if store.same_run(there, incoming.capture):
        capture, data = there, read_bounded(target, MAX_CAPTURE_BYTES, gzipped=False)  # just read as a capture: a regular file
    else:
        capture = store.replacing(incoming.capture, there)
        data = dumps(capture).encode("utf-8")
    return dataclasses.replace(incoming, capture=capture, files=(*traces, (name, data)))


def install(incoming: Incoming) -> bool:
    """Write one capture and its traces into the tree as one unit; True when anything changed."""
    folder = incoming.snippet.capture_path(incoming.device).parent
    stem = incoming.snippet.path.stem
    sidecars = sorted(folder.glob(f"{stem}.{incoming.device}.trace*.json.gz")) if folder.is_dir() else []
    return store.install(folder, list(incoming.files), sidecars)


def merge(root: Path, dirs: list[Path], allow_stale: bool = False) -> list[Merged]:
    """Validate everything in ``dirs`` first, then install: a bad or stale input writes nothing."""
    with store.tree_lock(root, sys.stderr, "kernelbook merge"):
        incoming = collect(root, dirs)
        for item in incoming:  # what the build could never show, or dated after this machine's clock: refused outright
            if why := brought_problem(item.capture):
                target = item.snippet.capture_path(item.device)
                over = f" (over {shown(target, root)})" if target.exists() else ""
                raise KernelbookError(f"{item.source}{over}: {why}")
        for item in incoming:  # before anything is written, nor read through a link
            store.check_folder(root, item.snippet.capture_path(item.device).parent)
        incoming = [settle(item) for item in incoming]
        if not allow_stale:
            for item in incoming:
                if item.files != _tree_files(item) and (why := stale_over_fresh(item, root)):
                    raise KernelbookError(why)
        merged = []
        for item in incoming:
            try:
                merged.append(Merged(item, install(item)))
            except OSError as exc:  # a full disk, a read-only tree: what is installed stays whole (store.install)
                folder = item.snippet.capture_path(item.device).parent
                raise KernelbookError(f"{shown(folder, root)}: cannot write ({exc.strerror or exc}); {len(merged)} of "
                                      f"{len(incoming)} capture(s) merged, each whole: free space or fix permissions, then merge again") from None
        return merged


def _tree_files(incoming: Incoming) -> tuple[tuple[str, bytes], ...] | None:
    folder = incoming.snippet.capture_path(incoming.device).parent
    try:
        return tuple((name, read_bounded(folder / name, MAX_TRACE_BYTES, gzipped=False)) for name, _ in incoming.files)
    except InputError:  # missing, or not a regular file (never waited on): not the incoming files
        return None


def summary(merged: list[Merged], dirs: list[Path], root: Path) -> str:
    if not merged:
        return f"nothing to merge: no snippets/<chapter>/{CAPTURE_DIR}/*.json in {', '.join(map(str, dirs))}"
    changed = [m for m in merged if m.changed]
    traces = sum(len(m.incoming.files) - 1 for m in changed)
    lines = [f"merged {len(changed)} capture(s) with {traces} trace file(s) from {len(dirs)} folder(s);"
             f" {len(merged) - len(changed)} already identical"]
    for m in merged:
        env = m.incoming.capture.environment
        where = m.incoming.snippet.capture_path(m.incoming.device)
        try:
            where = where.relative_to(root)
        except ValueError:
            pass
        status = "updated  " if m.changed else "identical"
        lines.append(f"  {status} {where}  ({env.device_name}, torch {env.torch}, {env.captured_at}) from {m.incoming.source}")
    return "\n".join(lines)
