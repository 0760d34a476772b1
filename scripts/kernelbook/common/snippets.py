"""Finding snippets and hashing what affects their output. Pure: never imports torch."""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from ..safety.errors import KernelbookError, shown
from .gpus import cuda_slots

CAPTURE_DIR = "captures"
DEVICES = ("cuda", "cpu")
# Chapter folders and snippet names: they become ids, file names, URLs, HTML ids and
# titles, notebook cells and shard keys, so they hold nothing that needs quoting anywhere.
NAME = re.compile(r"[a-z0-9_]+")


@dataclass(frozen=True)
class Snippet:
    """One executable example: ``snippets/<chapter>/<name>.py``."""

    id: str  # "ch01/eager_profile"
    path: Path

    @property
    def chapter(self) -> str:
        return self.id.split("/", 1)[0]

    def capture_path(self, device: str) -> Path:
        """``device``: a slot, ``cpu``, ``cuda-<gpu key>`` or (a capture from before keys) ``cuda``."""
        return self.path.parent / CAPTURE_DIR / f"{self.path.stem}.{device}.json"

    def cuda_slots(self) -> list[str]:
        """The CUDA captures on disk, one slot each (``gpus.cuda_slots``)."""
        return cuda_slots(self.path.parent / CAPTURE_DIR, self.path.stem)


def discover(root: Path, folder: str = "snippets") -> list[Snippet]:
    """Every ``<folder>/<chapter>/<name>.py`` under ``root``; files starting with ``_`` are helpers.

    A chapter or snippet name outside :data:`NAME` is a KernelbookError naming the file.
    """
    base = root / folder
    if not base.is_dir():
        return []
    found = [Snippet(id=f"{p.parent.name}/{p.stem}", path=p) for p in sorted(base.glob("*/*.py")) if not p.name.startswith("_")]
    for snippet in found:
        if not all(NAME.fullmatch(part) for part in snippet.id.split("/")):
            raise KernelbookError(f"{shown(snippet.path, root)}: chapter and snippet names must match {NAME.pattern} "
                                  "(lower-case ASCII letters, digits, _); rename it")
    return found


def read_source(path: Path) -> str:
    """A snippet's (or helper's) text; a file that is not UTF-8 is a KernelbookError naming it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KernelbookError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KernelbookError(f"{path}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                              "save it as UTF-8") from None


def select(snippets: list[Snippet], patterns: list[str]) -> list[Snippet]:
    """Keep snippets whose id or path contains any pattern (all when none given).

    The path is matched as ``snippets/<chapter>/<name>.py`` (or as the same file given
    in full), never the folders above the checkout: where a checkout lives must not
    change what a pattern selects.
    """
    if not patterns:
        return list(snippets)
    return [s for s in snippets if any(_matches(s, p) for p in patterns)]


def _matches(snippet: Snippet, pattern: str) -> bool:
    if pattern in snippet.id or pattern.removeprefix("./") in f"snippets/{snippet.id}.py":
        return True
    return Path(pattern).resolve() == snippet.path.resolve()


def local_imports(path: Path, source: str) -> list[Path]:
    """Modules a snippet imports that live beside it (their edits change its output)."""
    found = []
    for name in imported_names(source, str(path)):
        for candidate in (path.parent / f"{name}.py", path.parent / name / "__init__.py"):
            if candidate.is_file():
                found.append(candidate)
    return found


@functools.lru_cache(maxsize=1024)
def imported_names(source: str, filename: str) -> tuple[str, ...]:
    """The top-level names a module's ``import`` statements name (absolute imports only), sorted;
    none when it is not Python. Kept by the source and the file's name (which a warning of the parse
    names): a build reads each snippet for its hash, for the captures' freshness and for both
    languages' notebooks, and parsing it is most of that."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError:
        return ()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return tuple(sorted(names))


def sources(path: Path) -> list[tuple[Path, str]]:
    """The snippet and, transitively, the local modules it imports, each with its text (breadth first)."""
    found: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    todo = [path]
    while todo:
        current = todo.pop(0)
        if current in seen:
            continue
        seen.add(current)
        text = read_source(current)
        found.append((current, text))
        todo.extend(local_imports(current, text))
    return found


def source_hash(path: Path) -> str:
    """sha256 over the snippet and, transitively, the local modules it imports."""
    digest = hashlib.sha256()
    for current, text in sources(path):
        digest.update(current.name.encode() + b"\0" + text.encode() + b"\0")
    return digest.hexdigest()


# A clock or a benchmark helper named anywhere in a snippet or the modules beside it that it
# imports: it times something, so `capture --jobs` runs it alone. Conservative on purpose: a
# mention counts, in a comment too; a snippet wrongly taken for timed only costs minutes.
CLOCKS = re.compile(r"perf_counter|monotonic|process_time|time\.time|time_ns|do_bench|elapsed_time|enable_timing|"
                    r"benchmark|timeit|Timer\b")


def times_itself(snippet: Snippet) -> bool:
    """Whether the snippet measures time itself (and so must not share the machine while it runs)."""
    return any(CLOCKS.search(text) for _, text in sources(snippet.path))


def shard(snippets: list[Snippet], k: int, n: int) -> list[Snippet]:
    """Shard k of n (1-based): a split by hash of the snippet id, stable as snippets come and go."""
    if n < 1 or not 1 <= k <= n:
        raise ValueError(f"shard {k}/{n}: expected 1 <= K <= N")
    return [s for s in snippets if int(hashlib.sha256(s.id.encode()).hexdigest(), 16) % n == k - 1]
