"""A contributed archive of one GPU's captures: ``kernelbook pack`` writes it, ``merge`` reads it. Stdlib only.

``NAME.tar.gz`` holds ``manifest.json`` and the captures in the tree's layout
(``snippets/<chapter>/captures/<name>.cuda-<key>.json`` and their traces). The manifest
names the GPU (its key, ``gpus.gpu_key``), the environment every capture records (GPU,
compute capability, driver, CUDA, torch, triton), each snippet's source hash, and the
sha256 of every file. :func:`unpack` checks all of that before :mod:`merge` validates the
captures as it validates any folder: each refusal is one line saying what and where.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import tarfile
import zlib
from pathlib import Path, PurePosixPath

from ..common import gpus
from ..safety.errors import KernelbookError
from ..common.freshness import brought_problem
from ..safety.files import InputError, check_regular_target, open_regular, parse_json, read_bounded
from ..common.records import MAX_CAPTURE_BYTES, Capture, CaptureError, from_json, load, write_atomic
from ..common.snippets import CAPTURE_DIR, Snippet, discover, source_hash
from .kernels import MAX_TRACE_BYTES

MANIFEST = "manifest.json"
FORMAT = 1
ENVIRONMENT = ("device_name", "compute_capability", "driver", "cuda", "torch", "triton")
_MEMBER = re.compile(r"snippets/[a-z0-9_]+/" + CAPTURE_DIR + r"/[a-z0-9_]+\.cuda-[a-z0-9_]+(\.trace\d+\.json\.gz|\.json)")
MAX_ARCHIVE_BYTES = 2 * 1024 ** 3  # inflated, all members together (and the archive's own size)
MAX_MEMBERS = 4096  # a book's captures and traces, many times over
MAX_HEADER_BYTES = 64 * 1024  # a pax or GNU long-name header: a name and a few fields
_EXTENDED = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE, tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def environment_of(capture: Capture) -> dict[str, str | None]:
    env = capture.environment
    return {name: (capture.freshness.torch if name == "torch" else getattr(env, name)) for name in ENVIRONMENT}


# ---------------------------------------------------------------- pack


def pack(root: Path, out: Path, key: str, snippets: list[Snippet] | None = None, commit: str | None = None) -> dict:
    """Write ``out`` with every fresh ``cuda-<key>`` capture of ``snippets`` (all by default); the manifest it holds.

    A capture of another version of its snippet, or captures that disagree on their
    environment, are refused: an archive is one GPU's run of one commit.
    """
    chosen = discover(root) if snippets is None else snippets
    files: dict[str, bytes] = {}
    hashes: dict[str, str] = {}
    environment: dict | None = None
    for snippet in chosen:
        path = snippet.capture_path(gpus.slot(key))
        if not path.is_file():
            continue
        try:
            capture = load(path)
        except CaptureError as exc:
            raise KernelbookError(f"{exc}; re-capture it before packing") from None
        current = source_hash(snippet.path)
        if capture.freshness.source_hash != current:
            raise KernelbookError(f"{path}: captured from another version of snippets/{snippet.id}.py; "
                                  f"re-run `kernelbook capture --device cuda {snippet.id}` before packing")
        if why := brought_problem(capture):
            raise KernelbookError(f"{path}: {why}, before packing")
        env = environment_of(capture)
        if environment is None:
            environment = env
        elif env != environment:
            raise KernelbookError(f"{path}: records another environment than the other captures ({env} != {environment}); "
                                  "pack the captures of one run")
        hashes[snippet.id] = current
        rel = path.parent.relative_to(root).as_posix()
        try:
            for name in capture.trace_files:
                files[f"{rel}/{name}"] = read_bounded(path.parent / name, MAX_TRACE_BYTES, gzipped=False)
            files[f"{rel}/{path.name}"] = read_bounded(path, MAX_CAPTURE_BYTES, gzipped=False)
        except InputError as exc:
            raise KernelbookError(f"{path}: its files cannot be packed: {exc}; re-capture it before packing") from None
    if environment is None:
        raise KernelbookError(f"no cuda-{key} capture to pack under {root / 'snippets'}; run `kernelbook capture --device cuda` first")
    manifest = {"kernelbook_archive": FORMAT, "gpu": key, "commit": commit, "environment": environment,
                "snippets": dict(sorted(hashes.items())), "files": {name: sha256(data) for name, data in sorted(files.items())}}
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as tar:
        for name, data in [(MANIFEST, json.dumps(manifest, indent=1).encode("utf-8")), *sorted(files.items())]:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    try:
        if not out.parent.exists():
            out.parent.mkdir(parents=True)
        check_regular_target(out)  # never a folder, a device (/dev/full) or a link
        write_atomic(out, packed.getvalue())
    except InputError as exc:
        raise KernelbookError(f"pack -o {exc}; name a new .tar.gz file") from None
    except OSError as exc:
        raise KernelbookError(f"pack -o {out}: cannot write ({exc.strerror or exc}); name a new .tar.gz file") from None
    return manifest


def pack_command(root: Path, key: str | None, patterns: list[str], out: Path) -> str:
    """``kernelbook pack``: the captures of GPU ``key`` (default: this machine's) into ``out``; what it did, in one line."""
    from ..common.freshness import this_gpu_key
    from ..common.snippets import select
    from .runner import git_commit

    key = key or this_gpu_key()
    if not key:
        raise KernelbookError("no GPU is visible to name the captures to pack; give --gpu KEY (e.g. t4)")
    if not gpus.KEY.fullmatch(key):
        raise KernelbookError(f"--gpu {key!r}: a GPU key is lower-case letters, digits and _ (e.g. t4, a100_80gb)")
    manifest = pack(root, out, key, select(discover(root), patterns), git_commit(root))
    return f"packed {len(manifest['snippets'])} capture(s) of GPU {key} with {len(manifest['files'])} file(s) into {out}"


# ---------------------------------------------------------------- unpack and check


def is_archive(path: Path) -> bool:
    return path.name.lower().endswith((".tar.gz", ".tgz")) and not path.is_dir()


def shorten(name: str, limit: int = 120) -> str:
    """A member name as a message quotes it: a name may be as long as a header allows."""
    return repr(name) if len(name) <= limit else repr(name[:limit]) + f"... ({len(name)} characters)"


def as_archives(text: str, unpacked: dict[Path, Path]) -> str:
    """``text`` naming each archive's file as ``ARCHIVE:snippets/...``, not where merge unpacked it (a folder gone by then)."""
    for folder, archive in unpacked.items():
        text = text.replace(f"{folder}/", f"{archive}:")
    return text


def unpack(root: Path, archive: Path, into: Path) -> Path:
    """Check ``archive`` against its manifest and this tree, then write its files under ``into``; ``into``."""
    where = str(archive)
    members = _read_members(archive)
    if MANIFEST not in members:
        raise KernelbookError(f"{where}: no {MANIFEST}; pack captures with `kernelbook pack` (the capture kit does)")
    manifest = _manifest(members.pop(MANIFEST), where)
    environment = manifest.get("environment")
    if not isinstance(environment, dict) or not all(isinstance(environment.get(n), str) and environment.get(n)
                                                     for n in ("device_name", "driver", "cuda", "torch")):
        raise KernelbookError(f"{where}: {MANIFEST} has no environment (GPU, driver, CUDA, torch); "
                              "pack it again with `kernelbook pack`")
    key = manifest.get("gpu")
    named = gpus.gpu_key(environment["device_name"], environment.get("compute_capability"))
    if not isinstance(key, str) or not gpus.KEY.fullmatch(key) or key != named:
        raise KernelbookError(f"{where}: unknown GPU key {key!r}: its environment names {environment['device_name']} "
                              f"(key {named}); pack it again with `kernelbook pack`")
    listed = manifest.get("files")
    if not isinstance(listed, dict) or set(listed) != set(members):
        extra = sorted(set(members) - set(listed or {})) + sorted(set(listed or {}) - set(members))
        raise KernelbookError(f"{where}: its files and {MANIFEST} disagree ({', '.join(extra[:3])}); "
                              "a file was added or removed after packing")
    for name, data in sorted(members.items()):
        if listed[name] != sha256(data):
            raise KernelbookError(f"{where}: {name} does not match its sha256 in {MANIFEST}: "
                                  "it was changed after packing; pack it again from the capture run")
        if f".cuda-{key}." not in name.rsplit("/", 1)[-1]:
            raise KernelbookError(f"{where}: {name} is not a capture of GPU {key} (unknown GPU key); an archive holds one GPU's captures")
    _check_versions(root, members, manifest.get("snippets"), key, where, environment)
    try:
        for name, data in members.items():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except OSError as exc:
        raise KernelbookError(f"{where}: cannot unpack it into {into.parent} ({exc.strerror or exc}); "
                              "free space there (or set TMPDIR to a folder with room) and merge again") from None
    return into


def _read_members(archive: Path) -> dict[str, bytes]:
    """Every member, bounded; only plain files at the names an archive may hold (no link, no ``..``)."""
    where = str(archive)
    found: dict[str, bytes] = {}
    total = 0
    try:
        with open_regular(archive, MAX_ARCHIVE_BYTES) as handle:
            _scan(handle, where)
            handle.seek(0)
            with tarfile.open(fileobj=handle, mode="r:gz") as tar:
                for member in tar:
                    name = member.name.removeprefix("./")
                    if not member.isfile() or PurePosixPath(name).is_absolute() or ".." in PurePosixPath(name).parts:
                        raise KernelbookError(f"{where}: member {shorten(member.name)} is not a plain file inside the archive; refused")
                    if name != MANIFEST and not _MEMBER.fullmatch(name):
                        raise KernelbookError(f"{where}: member {shorten(name)} is neither {MANIFEST} nor a GPU capture or trace "
                                              f"(snippets/<chapter>/{CAPTURE_DIR}/<name>.cuda-<gpu>.json)")
                    limit = MAX_TRACE_BYTES if name.endswith(".gz") else MAX_CAPTURE_BYTES
                    total += member.size
                    if member.size > limit or total > MAX_ARCHIVE_BYTES:
                        raise KernelbookError(f"{where}: {name} is too large ({member.size} bytes)")
                    if name in found:
                        raise KernelbookError(f"{where}: {name} appears twice")
                    content = tar.extractfile(member)
                    found[name] = content.read(limit + 1) if content else b""
    except InputError as exc:
        raise KernelbookError(f"{exc}; give the .tar.gz that `kernelbook pack` wrote") from None
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise KernelbookError(f"{where}: not a readable .tar.gz ({shorten(str(exc))})") from None
    return found


def _scan(handle, where: str) -> None:
    """The raw tar stream, header by header, before ``tarfile`` reads it: at most MAX_MEMBERS members, every extended
    header (pax, GNU long name) at most MAX_HEADER_BYTES, every member within its bound, the whole within MAX_ARCHIVE_BYTES.

    ``tarfile`` holds and parses an extended header whole before any check of ours could run (a 1 MB archive
    took 17 s and 3 GB); each block here is read and dropped.
    """
    stream = gzip.GzipFile(fileobj=handle, mode="rb")
    members = total = 0
    while True:
        block = stream.read(tarfile.BLOCKSIZE)
        if len(block) < tarfile.BLOCKSIZE or block == tarfile.NUL * tarfile.BLOCKSIZE:
            return  # the end (tarfile then says whether it is a proper one)
        size, kind = tarfile.nti(block[124:136]), block[156:157]
        if kind in _EXTENDED:
            if size > MAX_HEADER_BYTES:
                raise KernelbookError(f"{where}: a tar header of {size} bytes (over the {MAX_HEADER_BYTES // 1024} KiB an "
                                      "archive's names need); not an archive `kernelbook pack` writes")
        else:
            members += 1
            if members > MAX_MEMBERS:
                raise KernelbookError(f"{where}: more than {MAX_MEMBERS} members; not an archive `kernelbook pack` writes "
                                      "(pack the captures of one GPU's run)")
        total += size
        if size < 0 or size > MAX_TRACE_BYTES or total > MAX_ARCHIVE_BYTES:
            raise KernelbookError(f"{where}: a member of {size} bytes, or {total} in all, is over what an archive may hold")
        left = -(-size // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE
        while left:
            chunk = stream.read(min(left, 1 << 20))
            if not chunk:
                return  # truncated: tarfile says so
            left -= len(chunk)


def _manifest(data: bytes, where: str) -> dict:
    try:
        manifest = parse_json(data, f"{where}:{MANIFEST}")
    except InputError as exc:
        raise KernelbookError(f"{exc}; pack it again with `kernelbook pack`") from None
    if not isinstance(manifest, dict) or manifest.get("kernelbook_archive") != FORMAT:
        raise KernelbookError(f"{where}: {MANIFEST} is not a kernelbook archive manifest of format {FORMAT}")
    return manifest


def _check_versions(root: Path, members: dict[str, bytes], hashes, key: str, where: str, environment: dict) -> None:
    """Every capture is a valid capture of this tree's version of its snippet, recording the manifest's environment."""
    known = {s.id: s for s in discover(root)}
    if not isinstance(hashes, dict):
        raise KernelbookError(f"{where}: {MANIFEST} lists no snippet source hashes")
    stated = {name: environment.get(name) for name in ENVIRONMENT}
    for name, data in members.items():
        if not name.endswith(".json"):
            continue
        parts = name.split("/")
        sid = f"{parts[1]}/{parts[3].split('.', 1)[0]}"
        snippet = known.get(sid)
        if snippet is None:
            raise KernelbookError(f"{where}: {name}: snippet {sid} is not in this tree (no snippets/{sid}.py)")
        try:
            capture = from_json(parse_json(data, f"{where}:{name}"), f"{where}:{name}")
        except (InputError, CaptureError) as exc:  # the contributor packs again; nobody here can re-capture it
            said = str(exc).split("; re-run `kernelbook capture", 1)[0]
            raise KernelbookError(f"{said}; ask its contributor to pack it again with `kernelbook pack`") from None
        current = source_hash(snippet.path)
        if capture.freshness.source_hash != current or hashes.get(sid) != current:
            raise KernelbookError(f"{where}: {name} was captured from another version of snippets/{sid}.py than this tree's; "
                                  "capture it again at this tree's commit")
        recorded = environment_of(capture)
        if recorded != stated:
            field = next(n for n in ENVIRONMENT if recorded[n] != stated[n])
            raise KernelbookError(f"{where}:{name}: records another environment than {MANIFEST} ({field}: "
                                  f"{shorten(str(recorded[field]))} != {shorten(str(stated[field]))}); pack it again with `kernelbook pack`")
