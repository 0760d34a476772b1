"""Finding, selecting, sharding and hashing snippets (pure; no torch)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, make_project, write
from kernelbook.common.snippets import Snippet, discover, select, shard, source_hash


@pytest.fixture
def tree(tmp_path) -> Path:
    # The checkout lives in folders whose names contain the patterns used below.
    root = make_project(tmp_path / "first_kernel-ch01-home")
    for rel in ("ch01/first_kernel.py", "ch01/eager_profile.py", "ch01/_helpers.py", "ch02/fusion.py", "ch02/notes.md"):
        write(root / "snippets" / rel, f"# {rel}\n")
    write(root / "snippets" / "ch01" / "captures" / "first_kernel.cpu.json", "{}\n")
    return root


def test_discover(tree):
    found = discover(tree)
    assert [s.id for s in found] == ["ch01/eager_profile", "ch01/first_kernel", "ch02/fusion"]
    by_id = {s.id: s for s in found}
    assert by_id["ch02/fusion"].path == tree / "snippets/ch02/fusion.py"
    assert by_id["ch02/fusion"].chapter == "ch02"
    assert by_id["ch01/first_kernel"].capture_path("cuda") == tree / "snippets/ch01/captures/first_kernel.cuda.json"
    assert discover(tree / "nowhere") == []


def test_discover_real_tree():
    ids = [s.id for s in discover(ROOT)]
    assert "ch01/eager_profile" in ids and "ch01/compiled_profile" in ids
    assert ids == sorted(ids)
    assert not any(i.split("/")[1].startswith("_") for i in ids)


def test_select(tree):
    found = discover(tree)
    assert select(found, []) == found
    assert [s.id for s in select(found, ["ch02"])] == ["ch02/fusion"]
    assert [s.id for s in select(found, ["eager"])] == ["ch01/eager_profile"]
    assert [s.id for s in select(found, ["eager", "fusion"])] == ["ch01/eager_profile", "ch02/fusion"]
    assert [s.id for s in select(found, ["snippets/ch01/first_kernel.py"])] == ["ch01/first_kernel"]
    assert [s.id for s in select(found, ["./snippets/ch01/first_kernel.py"])] == ["ch01/first_kernel"]
    assert [s.id for s in select(found, [str(tree / "snippets/ch02/fusion.py")])] == ["ch02/fusion"]
    assert select(found, ["nothing-like-this"]) == []


def test_select_ignores_where_the_checkout_lives(tree):
    """The checkout's own folder name contains 'first_kernel' and 'ch01': it must not select everything."""
    found = discover(tree)
    assert [s.id for s in select(found, ["first_kernel"])] == ["ch01/first_kernel"]
    assert [s.id for s in select(found, ["home"])] == []


def _many(n: int) -> list[Snippet]:
    return [Snippet(id=f"ch{c:02d}/snippet_{i}", path=Path(f"/x/ch{c:02d}/snippet_{i}.py")) for c in range(1, 6) for i in range(n)]


def test_shard_disjoint_and_covering():
    snippets = _many(12)
    for n in (1, 2, 3, 4, 7):
        parts = [shard(snippets, k, n) for k in range(1, n + 1)]
        ids = [s.id for part in parts for s in part]
        assert sorted(ids) == sorted(s.id for s in snippets), n  # covering, nothing twice
        assert len(ids) == len(set(ids))
    assert shard(snippets, 1, 1) == snippets
    assert all(len(shard(snippets, k, 4)) > 0 for k in range(1, 5))  # 60 snippets: no empty shard


def test_shard_stable_and_independent_of_other_snippets():
    snippets = _many(12)
    first = {k: [s.id for s in shard(snippets, k, 4)] for k in range(1, 5)}
    assert first == {k: [s.id for s in shard(list(snippets), k, 4)] for k in range(1, 5)}  # stable
    # Remove some snippets, add others, shuffle: a snippet that stays keeps its shard.
    others = [s for i, s in enumerate(reversed(snippets)) if i % 3] + [Snippet("ch09/new", Path("/x/ch09/new.py"))]
    for k in range(1, 5):
        kept = {s.id for s in shard(others, k, 4)}
        assert kept - {"ch09/new"} == set(first[k]) & {s.id for s in others}


@pytest.mark.parametrize("k,n", [(0, 2), (3, 2), (1, 0)])
def test_shard_rejects_bad_k_n(k, n):
    with pytest.raises(ValueError):
        shard(_many(1), k, n)


def test_source_hash_follows_local_helpers(tmp_path):
    folder = tmp_path / "snippets" / "ch01"
    helper = write(folder / "_helpers.py", "SCALE = 2\n")
    deep = write(folder / "_deep.py", "X = 1\n")
    write(folder / "_helpers.py", "from _deep import X\nSCALE = 2\n")
    a = write(folder / "a.py", "import torch\nfrom _helpers import SCALE\nprint(SCALE)\n")
    b = write(folder / "b.py", "import _helpers\nprint(_helpers.SCALE)\n")
    plain = write(folder / "plain.py", "print(1)\n")
    before = {p: source_hash(p) for p in (a, b, plain)}
    assert len(set(before.values())) == 3
    assert source_hash(a) == before[a]  # deterministic

    helper.write_text("from _deep import X\nSCALE = 3\n", encoding="utf-8")
    assert source_hash(a) != before[a] and source_hash(b) != before[b]
    assert source_hash(plain) == before[plain]

    mid = {p: source_hash(p) for p in (a, b)}
    deep.write_text("X = 2\n", encoding="utf-8")  # imported by the helper: transitively part of a and b
    assert source_hash(a) != mid[a] and source_hash(b) != mid[b]


def test_source_hash_ignores_unrelated_files(tmp_path):
    root = make_project(tmp_path)
    folder = root / "snippets" / "ch01"
    snippet = write(folder / "a.py", "import os\nfrom _helpers import SCALE\nprint(SCALE)\n")
    write(folder / "_helpers.py", "SCALE = 2\n")
    before = source_hash(snippet)
    write(folder / "_other.py", "UNUSED = 1\n")
    write(folder / "b.py", "print('another snippet')\n")
    write(folder / "captures" / "a.cpu.json", "{}\n")
    write(root / "docs" / "index.md", "# edited prose\n")
    write(folder / "notes.md", "notes\n")
    assert source_hash(snippet) == before
    snippet.write_text(snippet.read_text() + "# a comment is an edit too\n", encoding="utf-8")
    assert source_hash(snippet) != before


def test_a_helper_written_after_its_snippet_was_read_is_followed(tmp_path):
    """What a snippet imports is kept by its source; which of those are files beside it is looked up each time."""
    folder = tmp_path / "snippets" / "ch01"
    snippet = write(folder / "a.py", "from _helpers import SCALE\nprint(SCALE)\n")
    before = source_hash(snippet)
    write(folder / "_helpers.py", "SCALE = 2\n")
    assert source_hash(snippet) != before


def test_source_hash_survives_a_syntax_error(tmp_path):
    bad = write(tmp_path / "bad.py", "def broken(:\n")
    assert len(source_hash(bad)) == 64


# ---------------------------------------------------------------- names: [a-z0-9_]+ for chapters and snippets

BAD_NAMES = ['ch01/bad"name.py', "ch01/has space.py", "ch01/dot.ted.py", "ch01/Upper.py", "ch01/hyphen-ated.py",
             "ch01/ünï.py", "ch01/<b>.py", "ch01/back`tick.py", "Ch01/fine.py", "ch 1/fine.py", 'ch"1/fine.py',
             "ch.1/fine.py"]


@pytest.mark.parametrize("rel", BAD_NAMES)
def test_a_name_outside_the_pattern_is_refused_at_discovery(tree, rel):
    from kernelbook.safety.errors import KernelbookError

    bad = write(tree / "snippets" / rel, "print('hi')\n")
    with pytest.raises(KernelbookError) as caught:
        discover(tree)
    message = str(caught.value)
    assert "\n" not in message and str(bad.relative_to(tree)) in message and "[a-z0-9_]+" in message, message


def test_helpers_and_other_files_are_not_names_to_check(tree):
    write(tree / "snippets/ch01/_My Helper.py", "X = 1\n")
    write(tree / "snippets/ch01/Notes about it.md", "prose\n")
    assert [s.id for s in discover(tree)] == ["ch01/eager_profile", "ch01/first_kernel", "ch02/fusion"]


def test_a_snippet_that_is_not_utf8_is_named(tmp_path):
    from kernelbook.safety.errors import KernelbookError
    from kernelbook.common.snippets import read_source

    path = tmp_path / "latin.py"
    path.write_bytes(b"print('caf\xe9')\n")
    for read in (source_hash, read_source):
        with pytest.raises(KernelbookError, match=rf"^{path}: not UTF-8 \(byte 0xe9 at offset 10\)"):
            read(path)
    helper = tmp_path / "_words.py"
    helper.write_bytes(b"WORD = '\xff'\n")
    user = write(tmp_path / "user.py", "from _words import WORD\n")
    with pytest.raises(KernelbookError, match=rf"^{helper}: not UTF-8"):
        source_hash(user)
