"""What unpacking a contributed archive refuses: another GPU's capture, another snippet version (issue 47)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from kernelbook.capture import archive
from kernelbook.safety.errors import KernelbookError
from test_gpus import T4, gpu_capture, rewrite, tree

H200 = ("NVIDIA H200", "9.0", "h200")
A = "snippets/ch01/captures/a.cuda-t4.json"


@pytest.fixture
def packed(tmp_path) -> tuple[Path, Path]:
    """The book's tree, and a T4 archive packed from a checkout of it (both snippets)."""
    book, theirs = tree(tmp_path / "book"), tree(tmp_path / "theirs")
    for sid in ("ch01/a", "ch01/b"):
        gpu_capture(theirs, sid, T4)
    out = tmp_path / "t4.tar.gz"
    archive.pack(theirs, out, "t4", commit="abc123")
    return book, out


def _refused(book: Path, bad: Path, into: Path, words: str) -> None:
    with pytest.raises(KernelbookError, match=words):
        archive.unpack(book, bad, into)
    assert not into.exists() or not any(into.rglob("*.json"))  # nothing written


def test_a_good_archive_unpacks(packed, tmp_path):
    book, out = packed
    archive.unpack(book, out, tmp_path / "into")
    assert sorted(p.name for p in (tmp_path / "into").rglob("*.json")) == ["a.cuda-t4.json", "b.cuda-t4.json"]


def test_a_t4_archive_carrying_the_reference_gpus_capture_is_refused(packed, tmp_path):
    book, out = packed
    h200 = json.loads(gpu_capture(book, "ch01/a", H200).read_text())
    (book / "snippets/ch01/captures/a.cuda-h200.json").unlink()  # the book's tree stays without it

    def smuggle(members, manifest):
        name = "snippets/ch01/captures/a.cuda-h200.json"
        members[name] = json.dumps(h200).encode()
        manifest["files"][name] = hashlib.sha256(members[name]).hexdigest()

    bad = rewrite(out, tmp_path / "bad.tar.gz", smuggle)
    _refused(book, bad, tmp_path / "into", r"a\.cuda-h200\.json is not a capture of GPU t4")


def test_a_capture_of_another_snippet_version_is_refused_when_only_its_own_hash_differs(packed, tmp_path):
    book, out = packed

    def other_version(members, manifest):  # the manifest still gives this tree's hash of ch01/a
        raw = json.loads(members[A])
        raw["freshness"]["source_hash"] = "1" * 64
        members[A] = json.dumps(raw).encode()
        manifest["files"][A] = hashlib.sha256(members[A]).hexdigest()

    bad = rewrite(out, tmp_path / "bad.tar.gz", other_version)
    _refused(book, bad, tmp_path / "into", r"a\.cuda-t4\.json was captured from another version of snippets/ch01/a\.py")


def test_a_manifest_giving_another_snippet_version_is_refused(packed, tmp_path):
    book, out = packed
    bad = rewrite(out, tmp_path / "bad.tar.gz", lambda members, manifest: manifest["snippets"].update({"ch01/a": "1" * 64}))
    _refused(book, bad, tmp_path / "into", "was captured from another version")
