"""Reading input files that may be hostile: regular files only, bounded, strict JSON. Pure stdlib.

Captures and traces come from other machines (CI artifacts, a colleague's run) and from
whatever a snippet printed; a file to read may be a FIFO with no writer, a gzip that
inflates to gigabytes, or JSON nested a hundred thousand levels deep. Each of those is
one :class:`InputError` naming the file and the problem, never a hang, a memory blow-up
or a traceback.
"""

from __future__ import annotations

import json
import math
import os
import stat
import zlib
from pathlib import Path
from typing import Any, BinaryIO

MiB = 2**20
MAX_INT_DIGITS = 300  # within a float's range (about 1.8e308): any integer read can be compared with a float


class InputError(ValueError):
    """A file that cannot be read as asked; the message names the file and the problem."""


def read_bounded(path: Path, limit: int, *, gzipped: bool | None = None) -> bytes:
    """The bytes of the regular file ``path``, inflated if it is a gzip; at most ``limit`` bytes either way.

    ``gzipped``: None decides by the gzip magic number.
    """
    with open_regular(path, limit) as handle:
        try:
            raw = handle.read(limit + 1)
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(raw) > limit:
        raise InputError(f"{path}: over the {limit / MiB:.0f} MiB kernelbook reads")
    if gzipped or (gzipped is None and raw[:2] == b"\x1f\x8b"):
        return inflate(raw, limit, str(path))
    return raw


def open_regular(path: Path, limit: int) -> BinaryIO:
    """``path`` open for reading, when it is a regular file of at most ``limit`` bytes; else InputError.

    Never waits: a FIFO (or a file swapped for one since the check) is refused, not opened for a writer that never comes.
    """
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: cannot read: {_kind(info.st_mode)}, not a regular file")
    if info.st_size > limit:
        raise InputError(f"{path}: {info.st_size / MiB:.1f} MiB, over the {limit / MiB:.0f} MiB kernelbook reads")
    try:
        # O_NONBLOCK: if the file was swapped for a FIFO since the stat, opening it never waits for a writer
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    handle = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        handle.close()
        raise InputError(f"{path}: cannot read: not a regular file")
    return handle


def inflate(data: bytes, limit: int, where: str) -> bytes:
    """A gzip stream inflated piece by piece, refused as soon as it passes ``limit`` bytes."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip header and trailer
    out = bytearray()
    try:
        pending = data
        while pending:
            out += inflater.decompress(pending, limit + 1 - len(out))
            if len(out) > limit:
                raise InputError(f"{where}: inflates to more than the {limit / MiB:.0f} MiB kernelbook reads (a damaged or hostile gzip?)")
            pending = inflater.unconsumed_tail
            if inflater.eof:
                break
        out += inflater.flush()
    except zlib.error as exc:
        raise InputError(f"{where}: damaged gzip ({exc})") from None
    if not inflater.eof:
        raise InputError(f"{where}: damaged gzip (truncated)")
    if len(out) > limit:
        raise InputError(f"{where}: inflates to more than the {limit / MiB:.0f} MiB kernelbook reads")
    return bytes(out)


def parse_json(data: bytes, where: str) -> Any:
    """Strict JSON from UTF-8 bytes: no NaN or Infinity (nor numbers too large for a float)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: not usable JSON: nested too deeply") from None
    except _NotFinite as exc:
        raise InputError(f"{where}: not valid JSON: {exc}") from None


def finite_number(value: Any) -> bool:
    """A JSON number (not a boolean) that is finite."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class _NotFinite(ValueError):
    pass


def _no_constant(name: str) -> float:
    raise _NotFinite(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(f"{text} is too large for a number")
    return value


def _bounded_int(text: str) -> int | float:
    """An integer; one too long for a float is read as an infinity, which every reader refuses naming its field.

    (Python's own limit on digits would raise a bare ValueError, naming nothing.)
    """
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        return -math.inf if text.startswith("-") else math.inf
    return int(text)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def fingerprint(*folders: Path) -> tuple[tuple[str, int, int], ...]:
    """Every file under ``folders`` with its modification time and size: equal fingerprints, the same
    files (as far as a build can tell without reading them). A memo keyed by it is dropped on any edit."""
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
            try:
                stat = path.stat()
            except OSError:
                continue
            if path.is_file():
                found.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(found)


# ---------------------------------------------------------------- writing where a link may wait


def link_on_the_way(base: Path, path: Path) -> Path | None:
    """The first link (or a non-folder where a folder must be) between ``base`` and ``path``, ``path`` included; None: none.

    A write below ``base`` goes only into real folders of it: a link left there (``OUT/en -> the book's docs``)
    would have the write land wherever it points.
    """
    rel = path.relative_to(base)
    for depth in range(1, len(rel.parts) + 1):
        part = base.joinpath(*rel.parts[:depth])
        if part.is_symlink():
            return part
        if depth < len(rel.parts) and part.exists() and not part.is_dir():
            return part
    return None


def check_regular_target(path: Path) -> None:
    """``path`` may be (re)written as a regular file: absent, or a regular file itself (never a device, FIFO, folder or link)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        if not path.parent.is_dir():
            raise InputError(f"{path}: cannot write: {path.parent} is not a folder") from None
        return
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    if stat.S_ISLNK(info.st_mode):
        raise InputError(f"{path}: cannot write: a link (to {os.readlink(path)}); remove it or name another file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: cannot write: {_kind(info.st_mode)}, not a regular file; name a new file")
