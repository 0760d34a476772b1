"""``kernelbook merge DIR...``: bring captures made elsewhere into this tree. Pure stdlib.

Each DIR holds captures in the tree's own layout (``DIR/snippets/<chapter>/captures/``),
e.g. one CI shard's artifact. Every capture is validated and checked against this
tree before anything is written; then each is installed like ``capture`` installs
one: its trace sidecars first, the capture file last, every file atomically, and
sidecars of the same snippet × device that the new capture does not name are removed.

Two DIRs carrying different captures of the same snippet × device are a conflict.
Shards split snippets by a stable hash, so correct shards never conflict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import KernelbookError
from ..records import Capture, CaptureError, load, write_atomic
from ..snippets import CAPTURE_DIR, DEVICES, Snippet, discover

_CAPTURE_NAME = re.compile(r"^(?P<stem>[^/]+)\.(?P<device>" + "|".join(DEVICES) + r")\.json$")


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
        if not folder.is_dir():
            raise KernelbookError(f"{folder}: no such folder")
        for path in sorted((folder / "snippets").glob(f"*/{CAPTURE_DIR}/*.json")):
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


def _read(path: Path, known: dict[str, Snippet]) -> Incoming:
    chapter = path.parent.parent.name
    match = _CAPTURE_NAME.match(path.name)
    if not match:
        raise KernelbookError(f"{path}: not a capture file name (expected NAME.cuda.json or NAME.cpu.json)")
    snippet_id, device = f"{chapter}/{match['stem']}", match["device"]
    try:
        capture = load(path)
    except CaptureError as exc:
        raise KernelbookError(str(exc)) from None
    if capture.snippet != snippet_id or capture.device != device:
        raise KernelbookError(f"{path}: records {capture.snippet} ({capture.device}), but its name says {snippet_id} ({device})")
    snippet = known.get(snippet_id)
    if snippet is None:
        raise KernelbookError(f"{path}: snippet {snippet_id} is not in this tree (no snippets/{snippet_id}.py)")
    files = []
    for index, name in enumerate(capture.trace_files):
        expected = f"{match['stem']}.{device}.trace{index}.json.gz"
        if name != expected:
            raise KernelbookError(f"{path}: names trace {name!r}, expected {expected!r}")
        trace = path.parent / name
        try:
            data = trace.read_bytes()
        except OSError as exc:
            raise KernelbookError(f"{path}: its trace {trace} cannot be read ({exc.strerror})") from None
        if not data.startswith(b"\x1f\x8b"):
            raise KernelbookError(f"{trace}: not a gzip file")
        files.append((name, data))
    files.append((path.name, path.read_bytes()))
    return Incoming(snippet, device, path, capture, tuple(files))


def install(incoming: Incoming) -> bool:
    """Write one capture and its traces into the tree; True when anything changed."""
    folder = incoming.snippet.capture_path(incoming.device).parent
    stem = incoming.snippet.path.stem
    keep = {name for name, _ in incoming.files}
    changed = False
    for old in sorted(folder.glob(f"{stem}.{incoming.device}.trace*.json.gz")) if folder.is_dir() else []:
        if old.name not in keep:
            old.unlink()
            changed = True
    for name, data in incoming.files:  # traces first, capture last: it only ever names traces that exist
        target = folder / name
        if target.is_file() and target.read_bytes() == data:
            continue
        write_atomic(target, data)
        changed = True
    return changed


def merge(root: Path, dirs: list[Path]) -> list[Merged]:
    """Validate everything in ``dirs`` first, then install: a bad input writes nothing."""
    return [Merged(incoming, install(incoming)) for incoming in collect(root, dirs)]


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
