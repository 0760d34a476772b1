"""What `kernelbook merge` refuses before it writes anything (issue 47's audit): two different captures
of one snippet × device, a capture whose name says another GPU or device than it records, a trace
sidecar misnamed or not gzip."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kernelbook.capture import merge
from kernelbook.safety.errors import KernelbookError
from test_gpus import T4, gpu_capture, tree

H200 = ("NVIDIA H200", "9.0", "h200")


def _shard(root: Path, gpu=T4, slot: str | None = None, **env) -> Path:
    """A folder in the tree's layout holding one CUDA capture of ch01/a."""
    tree(root, snippets=("ch01/a",))
    return gpu_capture(root, "ch01/a", gpu, slot=slot, **env)


def _refused(book: Path, dirs: list[Path], words: str) -> None:
    with pytest.raises(KernelbookError, match=words):
        merge.merge(book, dirs)
    assert not list((book / "snippets/ch01").glob("captures/*"))  # validated first: nothing written


def test_one_good_shard_merges(tmp_path):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    _shard(tmp_path / "s1")
    (done,) = merge.merge(book, [tmp_path / "s1"])
    assert done.changed and (book / "snippets/ch01/captures/a.cuda-t4.json").is_file()


def test_two_different_captures_of_one_snippet_and_gpu_are_a_conflict(tmp_path):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    _shard(tmp_path / "s1")
    _shard(tmp_path / "s2", captured_at="2026-02-03T04:05:06Z")
    _refused(book, [tmp_path / "s1", tmp_path / "s2"], r"conflict: .* carry different captures of ch01/a \(cuda-t4\)")
    _shard(tmp_path / "s3")  # the very same capture twice: no conflict
    assert len(merge.collect(book, [tmp_path / "s1", tmp_path / "s3"])) == 1


def test_a_capture_whose_name_says_another_gpu_is_refused(tmp_path):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    _shard(tmp_path / "s1", gpu=H200, slot="cuda-t4")  # an H200's capture in a T4's file
    _refused(book, [tmp_path / "s1"], r"unknown GPU key t4: the capture records NVIDIA H200 \(key h200\)")


def test_a_capture_whose_name_says_another_device_is_refused(tmp_path):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    path = _shard(tmp_path / "s1")
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["device"], raw["environment"]["device_kind"] = "cpu", "cpu"
    for session in raw["sessions"]:
        session["device_kind"] = "cpu"
    path.write_text(json.dumps(raw), encoding="utf-8")
    _refused(book, [tmp_path / "s1"], r"records ch01/a \(cpu\), but its name says ch01/a \(cuda-t4\)")


@pytest.mark.parametrize("name, data, words", [
    ("a.cuda-t4.trace7.json.gz", gzip.compress(b"{}"), r"names trace 'a\.cuda-t4\.trace7\.json\.gz', expected 'a\.cuda-t4\.trace0\.json\.gz'"),
    ("a.cuda-t4.trace0.json.gz", b"{}", "not a gzip file"),
], ids=["misnamed", "not-gzip"])
def test_a_trace_sidecar_misnamed_or_not_gzip_is_refused(tmp_path, name, data, words):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    path = _shard(tmp_path / "s1")
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["trace_files"] = [name]
    path.write_text(json.dumps(raw), encoding="utf-8")
    (path.parent / name).write_bytes(data)
    _refused(book, [tmp_path / "s1"], words)
