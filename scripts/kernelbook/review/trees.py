"""The captures on one side of ``kernelbook diff``: the working tree, a git ref, or a folder.

Every capture file is read and validated; each one that cannot be used is one line
naming it and what to do, and all of them are reported together (exit 2), never a
traceback. A ref is read with ``git ls-tree`` and ``git cat-file --batch``: nothing is
checked out, so a shallow clone (CI) with the ref's commit is enough.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..safety.errors import KernelbookError, shown
from ..safety.files import InputError, link_on_the_way, parse_json, read_bounded
from ..common.records import MAX_CAPTURE_BYTES, Capture, CaptureError, from_json
from ..common import gpus
from ..common.snippets import CAPTURE_DIR

# snippets/<chapter>/captures/<name>.<device>.json, relative to the folder laid out like snippets/
CAPTURE_PATH = re.compile(r"(?P<chapter>[^/]+)/" + CAPTURE_DIR + r"/(?P<name>[^/.]+)\.(?P<device>" + gpus.SLOT.pattern + r")\.json")
Key = tuple[str, str]  # (snippet id, device)


@dataclass(frozen=True)
class Side:
    """The captures of one side, by snippet × device, and the files that could not be used."""

    label: str  # "HEAD", "working tree", a folder
    captures: dict[Key, Capture] = field(default_factory=dict)
    bad: tuple[str, ...] = ()  # one line each


def _add(found: dict[Key, Capture], bad: list[str], rel: str, where: str, read, advice: str | None = None) -> None:
    """Read one capture file (``read()`` gives its bytes); a problem is one line in ``bad``, ending in ``advice`` if given."""
    match = CAPTURE_PATH.fullmatch(rel)
    if not match:
        return
    key = (f"{match['chapter']}/{match['name']}", match["device"])
    try:
        capture = from_json(parse_json(read(), where), where)
    except (InputError, CaptureError) as exc:
        said = str(exc)
        if advice:
            bad.append(said.split("; re-run `kernelbook capture", 1)[0] + f"; {advice}")
        else:
            bad.append(said + ("" if "kernelbook capture" in said else f"; re-run `kernelbook capture --force {key[0]}`"))
        return
    if (capture.snippet, capture.device) != (key[0], gpus.device_of(key[1])):
        bad.append(f"{where}: records {capture.snippet} ({capture.device}), but its path says {key[0]} ({key[1]}); "
                   f"re-run `kernelbook capture --force {key[0]}`")
        return
    named, env = gpus.key_of(key[1]), capture.environment
    recorded = gpus.gpu_key(env.device_name, env.compute_capability)
    if named is not None and recorded != named:  # as status and the build read it (freshness.assess): unreadable
        bad.append(f"{where}: records GPU {env.device_name} (key {recorded}), but its name says {named}; "
                   "re-capture it, or rename it to its GPU's key")
        return
    found[key] = capture


def folder(path: Path, label: str | None = None, root: Path | None = None) -> Side:
    """A folder laid out like ``snippets/`` (``DIR/<chapter>/captures/``), or a tree holding ``DIR/snippets/``."""
    if not path.is_dir():
        raise KernelbookError(f"{path}: no such folder (give two folders laid out like snippets/, or a git ref)")
    base = path / "snippets" if (path / "snippets").is_dir() else path
    found: dict[Key, Capture] = {}
    bad: list[str] = []
    for file in sorted(base.glob(f"*/{CAPTURE_DIR}/*.json")):
        where = shown(file, root) if root else str(file)
        if (link := link_on_the_way(base, file)) is not None and CAPTURE_PATH.fullmatch(file.relative_to(base).as_posix()):
            bad.append(f"{where}: {shown(link, root) if root else link} is a link; diff reads only the real files of a folder: "
                       "put the file itself there")
            continue
        _add(found, bad, file.relative_to(base).as_posix(), where,
             lambda file=file: read_bounded(file, MAX_CAPTURE_BYTES, gzipped=False))
    return Side(label or str(path), found, tuple(bad))


def gpu_side(side: Side, key: str) -> Side:
    """The CUDA captures of GPU ``key`` on ``side``, as device ``cuda``: one GPU compared with another like two trees.

    An unkeyed ``cuda`` capture (from before keys) counts for the GPU it records, unless a keyed one is there.
    """
    found: dict[Key, Capture] = {}
    for (sid, slot), capture in sorted(side.captures.items(), key=lambda kv: kv[0][1] != "cuda"):
        if _gpu_of(slot, capture) == key:
            found[(sid, "cuda")] = capture
    return Side(f"{key} ({side.label})", found, side.bad)


def _gpu_of(slot: str, capture: Capture) -> str | None:
    """The GPU key a capture in ``slot`` stands for: its slot's, or an unkeyed ``cuda`` capture's recorded GPU; None: the CPU."""
    env = capture.environment
    return gpus.key_of(slot) or (gpus.gpu_key(env.device_name, env.compute_capability) if slot == "cuda" else None)


def gpu_sides(root: Path, sides: list[str], gpu: str | None, against: str | None) -> tuple[Side, Side]:
    """``diff --gpu``: the reference GPU's captures (or ``against``'s), and ``gpu``'s, of the tree or one folder.

    A KEY that has no capture there is a usage error naming the GPUs that have one: a diff
    against nothing would list every snippet as added or removed.
    """
    for flag, key in (("--gpu", gpu), ("--against", against)):
        if key is not None and not gpus.KEY.fullmatch(key):  # `--gpu ''` (an unset variable) was a plain diff
            raise KernelbookError(f"{flag} {key!r}: a GPU key is lower-case letters, digits and _ (e.g. t4, a100_80gb; guide/gpu.md#gpu-keys)")
    if gpu is None:
        raise KernelbookError("--against KEY names the GPU that --gpu KEY is compared with: give --gpu KEY too "
                              "(kernelbook diff --gpu KEY [--against KEY])")
    against = against or gpus.reference_gpu(root)
    if not against or len(sides) > 1:
        raise KernelbookError("--gpu KEY compares one tree's GPUs: give at most one folder, and --against KEY "
                              "where mkdocs.yml names no reference_gpu")
    if against == gpu:  # one GPU against itself says "no difference" of anything: its captures at HEAD against the tree's
        if sides:
            raise KernelbookError(f"--gpu {gpu} --against {gpu} with a folder compares its captures with themselves; "
                                  "give another --against KEY, or run it in the tree (HEAD against the working tree)")
        try:
            head = at_ref(root, "HEAD")
        except KernelbookError as exc:
            raise KernelbookError(f"--gpu {gpu} is the GPU it is compared with, so HEAD's {gpu} captures are compared "
                                  f"with the working tree's, but {exc}") from None
        old, side = gpu_side(head, gpu), working_tree(root)
        new = gpu_side(side, gpu)
    else:
        side = folder(Path(sides[0])) if sides else working_tree(root)
        old, new = gpu_side(side, against), gpu_side(side, gpu)
    have = sorted(gpu_keys(side))
    checked = [("--gpu", gpu, new)] + ([("--against", against, old)] if against != gpu else [])  # HEAD may hold none yet
    for flag, key, found in checked:
        if not found.captures and not side.bad:  # a file that could not be read is reported instead (exit 2)
            what = (f"give the key of a GPU with captures there ({', '.join(have)}; guide/gpu.md#gpu-keys)" if have else
                    "it holds no GPU's captures: merge some first (kernelbook merge ARCHIVE)")
            raise KernelbookError(f"{flag} {key}: no capture of that GPU in {side.label}; {what}")
    return old, new


def gpu_keys(side: Side) -> set[str]:
    """The keys of the GPUs ``side`` holds CUDA captures of (an unkeyed capture: the GPU it records)."""
    return {key for (_, slot), capture in side.captures.items() if (key := _gpu_of(slot, capture))}


def working_tree(root: Path) -> Side:
    return folder(root / "snippets", "working tree", root)


def at_ref(root: Path, ref: str) -> Side:
    """The captures committed at ``ref`` (a commit, branch or tag), read from git's objects."""
    commit = _git(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], ref).strip()
    listing = _git(root, ["ls-tree", "-r", "-z", "--name-only", commit, "--", "snippets"], ref)
    paths = [p for p in listing.split("\0") if p.startswith("snippets/") and p.endswith(".json")]
    blobs = _cat(root, commit, paths, ref)
    found: dict[Key, Capture] = {}
    bad: list[str] = []
    for path in paths:
        data = blobs.get(path)
        if data is None or len(data) > MAX_CAPTURE_BYTES:
            if CAPTURE_PATH.fullmatch(path.removeprefix("snippets/")):
                bad.append(f"{ref}:{path}: not a readable file at {ref} (over 64 MiB, or not a file); compare with another ref")
            continue
        _add(found, bad, path.removeprefix("snippets/"), f"{ref}:{path}", lambda data=data: data,
             f"this kernelbook cannot read the captures at {ref}: compare with a later ref")
    return Side(ref, found, tuple(bad))


def files_at(root: Path, ref: str, folder: str, suffix: str) -> dict[str, bytes]:
    """The files under ``folder`` whose names end in ``suffix`` at ``ref``, read from git's objects."""
    commit = _git(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], ref).strip()
    listing = _git(root, ["ls-tree", "-r", "-z", "--name-only", commit, "--", folder], ref)
    paths = [p for p in listing.split("\0") if p.endswith(suffix)]
    return {path: data for path, data in _cat(root, commit, paths, ref).items() if data is not None}


def _git(root: Path, args: list[str], ref: str, stdin: bytes | None = None) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True, timeout=120)
    except FileNotFoundError:
        raise KernelbookError("git is not installed: compare two folders instead (kernelbook diff DIR_A DIR_B)") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        if "not a git repository" in " ".join(said).lower():
            raise KernelbookError(f"{root} is not in a git repository: compare two folders instead (kernelbook diff DIR_A DIR_B)")
        raise KernelbookError(f"{ref!r} is not a commit in the repository at {root}"
                              f"{' (' + said[-1] + ')' if said else ''}; give a branch, tag or commit, e.g. HEAD or main")
    return done.stdout.decode("utf-8", "surrogateescape")


def _cat(root: Path, commit: str, paths: list[str], ref: str, limit: int = MAX_CAPTURE_BYTES) -> dict[str, bytes | None]:
    """The blobs at ``commit:path``, through ``git cat-file``: sizes first (``--batch-check``), then only the blobs of at
    most ``limit`` bytes in one ``--batch`` (a huge committed file is never read into memory); None for one too large."""
    paths = [p for p in paths if "\n" not in p]  # one request per line: a name holding a newline would be two
    if not paths:
        return {}
    sizes: dict[str, int | None] = {}
    checked = _batch(root, "--batch-check", [f"{commit}:{p}" for p in paths])
    for path, line in zip(paths, checked.split(b"\n")):
        header = line.split()
        if len(header) == 3 and header[1] == b"blob":  # else "missing", or a submodule / link: not a capture file
            sizes[path] = int(header[2]) if int(header[2]) <= limit else None
    wanted = [p for p, size in sizes.items() if size is not None]
    out, at, blobs = _batch(root, "--batch", [f"{commit}:{p}" for p in wanted]) if wanted else b"", 0, {}
    for path in wanted:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue
        size = int(header[2])
        blobs[path] = out[at:at + size]
        at += size + 1
    return {path: blobs.get(path) for path in sizes}


def _batch(root: Path, mode: str, requests: list[str]) -> bytes:
    request = "".join(f"{r}\n" for r in requests).encode("utf-8", "surrogateescape")
    try:
        done = subprocess.run(["git", "-C", str(root), "cat-file", mode], input=request, capture_output=True, timeout=300)
    except FileNotFoundError:
        raise KernelbookError("git is not installed: compare two folders instead (kernelbook diff DIR_A DIR_B)") from None
    return done.stdout
