"""Hardening, round 4 (issue 41, part A): `render`, `merge`, `pack` and `diff` on contributed captures and archives.

Each test here failed before its fix: `render` writing through links in OUT into the book or
deleting a user's file there; `merge` putting an unshowable capture over a fresh one, keeping a
forged `previous` or a far-future date; `diff --gpu` comparing a capture with itself; archives
whose headers, member count or JSON nesting were unbounded; `pack -o` somewhere it cannot write;
messages naming a deleted temporary folder; control characters reaching pages and `--json`.

The CUDA captures are crafted in temporary trees (``test_gpus.gpu_capture``); none is committed.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from conftest import write
from test_gpus import A100, T4, contributed, gpu_capture, kb, rewrite, tree
from test_hardening3 import one_line  # the same contract: exit 2, one line

from kernelbook import CAPTURE_FORMAT
from kernelbook.capture.archive import MANIFEST

A_T4 = "snippets/ch01/captures/a.cuda-t4.json"


def edit(path: Path, change) -> Path:
    raw = json.loads(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return path


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink() and ".kernelbook" not in p.parts}


# ---------------------------------------------------------------- High 1: render OUT


def small_book(tmp_path: Path) -> Path:
    root = tree(tmp_path / "book", snippets=("ch01/a",))
    write(root / "docs" / "index.md", "# A page\n\nIt ran [[kb:launches ch01/a]] kernels.\n")
    gpu_capture(root, "ch01/a", A100)
    return root


def render(root: Path, out: Path) -> subprocess.CompletedProcess:
    return kb(root, "render", str(out))


@pytest.mark.parametrize("link", ["language folder", "config", "folder inside"])
def test_render_never_writes_through_a_link_in_out(tmp_path, link):
    root = small_book(tmp_path)
    out = tmp_path / "out"
    if link == "folder inside":  # a tree rendered before, one of its folders then replaced by a link into the book
        assert render(root, out).returncode == 0
        shutil.rmtree(out / "en" / "assets")
        (out / "en" / "assets").symlink_to(root / "docs")
    else:
        out.mkdir()
        if link == "language folder":
            (out / "en").symlink_to(root / "docs")
        else:
            (out / "mkdocs.en.yml").symlink_to(root / "mkdocs.yml")
    before = files_of(root)
    one_line(render(root, out), "link", "nothing written")
    assert files_of(root) == before  # the book's pages and mkdocs.yml untouched


@pytest.mark.parametrize("where", ["OUT", "OUT/en"])
def test_render_into_a_file_is_one_line(tmp_path, where):
    root = small_book(tmp_path)
    out = tmp_path / "out"
    if where == "OUT":
        out.write_text("mine\n")
    else:
        out.mkdir()
        (out / "en").write_text("mine\n")
    one_line(render(root, out), "not a folder")
    assert (tmp_path / where.replace("OUT", "out")).read_text() == "mine\n"


def test_render_never_deletes_a_file_it_did_not_write(tmp_path):
    root = small_book(tmp_path)
    out = tmp_path / "out"
    (out / "en").mkdir(parents=True)
    (out / "en" / "notes.txt").write_text("mine\n")
    one_line(render(root, out), "en/notes.txt", "kernelbook render did not write")
    assert (out / "en" / "notes.txt").read_text() == "mine\n"
    (out / "en" / "notes.txt").unlink()
    assert render(root, out).returncode == 0
    assert render(root, out).returncode == 0  # its own tree is replaced without a word
    (out / "en" / "notes.txt").write_text("mine\n")
    one_line(render(root, out), "en/notes.txt")
    assert (out / "en" / "notes.txt").read_text() == "mine\n"


# ---------------------------------------------------------------- High 2: a capture the build cannot show


def other_format(raw: dict) -> None:
    raw["freshness"]["format"] = CAPTURE_FORMAT - 1
    raw["environment"]["captured_at"] = "2026-06-01T00:00:00Z"  # later than the tree's


def test_merge_refuses_a_capture_of_another_format_naming_both(tmp_path):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    gpu_capture(book, "ch01/a", T4)
    theirs = tree(tmp_path / "theirs", snippets=("ch01/a",))
    edit(gpu_capture(theirs, "ch01/a", T4), other_format)
    before = (book / A_T4).read_bytes()
    one_line(kb(book, "merge", str(theirs)), str(theirs / A_T4), A_T4, f"capture format {CAPTURE_FORMAT - 1}")
    assert (book / A_T4).read_bytes() == before
    (book / A_T4).unlink()  # and over nothing: the build could not show it either
    one_line(kb(book, "merge", str(theirs)), f"capture format {CAPTURE_FORMAT - 1}")
    assert not (book / A_T4).exists()


def test_pack_refuses_a_capture_the_build_cannot_show(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    edit(gpu_capture(root, "ch01/a", T4), other_format)
    one_line(kb(root, "pack", "--gpu", "t4", "-o", str(tmp_path / "x.tar.gz")), A_T4, f"capture format {CAPTURE_FORMAT - 1}")
    assert not (tmp_path / "x.tar.gz").exists()


# ---------------------------------------------------------------- Medium: what a contributed capture may carry


def forged_previous(raw: dict) -> None:
    raw["previous"] = {"device_name": "Tesla T4", "torch": "2.13.0", "captured_at": "2026-01-01T00:00:00Z",
                       "sessions": [{"launches": 40, "kernel_time_us": 1.0, "kernels": [{"name": "FORGED_slow_kernel", "count": 40}]}]}


def test_merge_drops_a_contributed_previous(tmp_path):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    theirs = tree(tmp_path / "theirs", snippets=("ch01/a",))
    edit(gpu_capture(theirs, "ch01/a", T4), forged_previous)
    done = kb(book, "merge", str(theirs))
    assert done.returncode == 0, done.stderr
    merged = json.loads((book / A_T4).read_text())
    assert "previous" not in merged and "FORGED" not in (book / A_T4).read_text()
    gpu_capture(theirs, "ch01/a", T4, captured_at="2026-03-01T00:00:00Z")  # a later run over the merged one: history made here
    edit(theirs / A_T4, forged_previous)
    assert kb(book, "merge", str(theirs)).returncode == 0
    merged = json.loads((book / A_T4).read_text())
    assert merged["previous"]["captured_at"] == "2026-01-02T03:04:05Z" and "FORGED" not in (book / A_T4).read_text()


@pytest.mark.parametrize("when, says", [("9999-12-31T23:59:59Z", "in the future"), ("2026-02-30T00:00:00Z", "not a date"),
                                        ("2026-13-01T00:00:00Z", "not a date")])
def test_merge_refuses_an_impossible_or_future_captured_at(tmp_path, when, says):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    theirs = tree(tmp_path / "theirs", snippets=("ch01/a",))
    edit(gpu_capture(theirs, "ch01/a", T4), lambda raw: raw["environment"].update(captured_at=when))
    one_line(kb(book, "merge", str(theirs)), "captured_at", says)
    assert not (book / A_T4).exists()
    gpu_capture(book, "ch01/a", T4)  # a real, later merge still goes in
    assert kb(book, "merge", str(tree(tmp_path / "t2", snippets=("ch01/a",)))).returncode == 0


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True, timeout=60)


@pytest.mark.parametrize("args", [("--gpu", "a100_80gb"), ("--gpu", "t4", "--against", "t4")])
def test_diff_of_one_gpu_with_itself_compares_head_with_the_working_tree(tmp_path, args):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", A100)
    gpu_capture(root, "ch01/a", T4)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    assert kb(root, "diff", *args).returncode == 0  # nothing changed since HEAD
    key = args[1]
    gpu_capture(root, "ch01/a", A100 if key == "a100_80gb" else T4, rename=True)  # the contribution under review
    done = kb(root, "diff", *args, "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["old"] == f"{key} (HEAD)" and report["new"] == f"{key} (working tree)"


def test_diff_of_one_gpu_with_itself_outside_git_is_one_line(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", A100)
    one_line(kb(root, "diff", "--gpu", "a100_80gb"), "a100_80gb")


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes]], fmt=tarfile.PAX_FORMAT) -> Path:
    with tarfile.open(path, "w:gz", format=fmt) as tar:
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_an_archive_with_a_huge_pax_header_is_refused_before_it_is_parsed(tmp_path):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    info = tarfile.TarInfo(MANIFEST)
    info.pax_headers = {"comment": "x" * (2 * 1024 * 1024)}
    archive = _tar(tmp_path / "big.tar.gz", [(info, b"{}")])
    one_line(kb(book, "merge", str(archive)), str(archive), "header")


def test_an_archive_of_too_many_members_is_refused(tmp_path):
    from kernelbook.capture import archive as module

    MAX_MEMBERS = getattr(module, "MAX_MEMBERS", 4096)
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    members = [(tarfile.TarInfo(f"snippets/ch01/captures/a.cuda-t4.trace{i}.json.gz"), b"") for i in range(MAX_MEMBERS + 1)]
    archive = _tar(tmp_path / "many.tar.gz", members, tarfile.USTAR_FORMAT)
    one_line(kb(book, "merge", str(archive)), str(archive), "members")


def _deep_member(members, manifest):
    name = A_T4
    members[name] = b"[" * 200_000 + b"]" * 200_000
    manifest["files"][name] = hashlib.sha256(members[name]).hexdigest()


def test_deeply_nested_json_in_an_archive_is_one_line(tmp_path):
    book, archive = contributed(tmp_path)
    bad = rewrite(archive, tmp_path / "deep.tar.gz", _deep_member)
    one_line(kb(book, "merge", str(bad)), "nested too deeply")
    info = tarfile.TarInfo(MANIFEST)
    deep = _tar(tmp_path / "deep-manifest.tar.gz", [(info, b"[" * 200_000 + b"]" * 200_000)], tarfile.USTAR_FORMAT)
    one_line(kb(book, "merge", str(deep)), MANIFEST, "nested too deeply")


@pytest.mark.parametrize("target", ["folder", "under a file", "/dev/full", "missing trace"])
def test_pack_anywhere_it_cannot_write_or_without_a_trace_is_one_line(tmp_path, target):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    capture = gpu_capture(root, "ch01/a", T4)
    out = tmp_path / "x.tar.gz"
    if target == "folder":
        out.mkdir()
    elif target == "under a file":
        (tmp_path / "f").write_text("")
        out = tmp_path / "f" / "x.tar.gz"
    elif target == "/dev/full":
        if not Path("/dev/full").exists():
            pytest.skip("no /dev/full on this machine")
        out = Path("/dev/full")
    else:
        edit(capture, lambda raw: raw.update(trace_files=["a.cuda-t4.trace0.json.gz"]))
    done = kb(root, "pack", "--gpu", "t4", "-o", str(out))
    one_line(done, "a.cuda-t4.trace0.json.gz" if target == "missing trace" else str(out))
    if target == "/dev/full":
        assert Path("/dev/full").is_char_device()


# ---------------------------------------------------------------- Low


def test_the_manifests_environment_must_be_its_captures(tmp_path):
    book, archive = contributed(tmp_path)
    bad = rewrite(archive, tmp_path / "env.tar.gz", lambda m, f: f["environment"].update(driver="999.1"))
    one_line(kb(book, "merge", str(bad)), str(bad), "environment", "driver")
    assert not (book / A_T4).exists()


def _unknown_field(members, manifest):
    raw = json.loads(members[A_T4])
    raw["bogus"] = 1
    members[A_T4] = json.dumps(raw).encode()
    manifest["files"][A_T4] = hashlib.sha256(members[A_T4]).hexdigest()


def test_merge_of_an_archive_names_the_archive_not_its_temporary_folder_nor_capture_advice(tmp_path):
    book, archive = contributed(tmp_path)
    bad = rewrite(archive, tmp_path / "odd.tar.gz", _unknown_field)
    line = one_line(kb(book, "merge", str(bad)), f"{bad}:{A_T4}", "unknown field")
    assert "kernelbook-merge-" not in line and "kernelbook capture" not in line and "kernelbook pack" in line
    gpu_capture(book, "ch01/a", T4, captured_at="2026-09-01T00:00:00Z")  # newer in the tree than the archive's
    line = one_line(kb(book, "merge", str(archive)), f"{archive}:{A_T4}", "older than")
    assert "kernelbook-merge-" not in line
    done = kb(book, "merge", "--allow-stale", str(archive))
    assert done.returncode == 0 and "kernelbook-merge-" not in done.stdout and f"{archive}:" in done.stdout, done.stdout


@pytest.mark.parametrize("length", [50_000, 20_000_000])
def test_a_huge_member_name_is_not_printed_whole(tmp_path, length):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    info = tarfile.TarInfo("snippets/" + "x" * length)
    archive = _tar(tmp_path / "name.tar.gz", [(info, b"")], tarfile.GNU_FORMAT)
    line = one_line(kb(book, "merge", str(archive)), str(archive))
    assert len(line) < 1000, len(line)


def test_merge_knows_an_archive_by_its_name_in_any_case_and_says_what_else_it_is(tmp_path):
    book, archive = contributed(tmp_path)
    upper = tmp_path / "T4.TAR.GZ"
    shutil.copy(archive, upper)
    done = kb(book, "merge", str(upper))
    assert done.returncode == 0, done.stderr
    (tmp_path / "notes.txt").write_text("x")
    one_line(kb(book, "merge", str(tmp_path / "notes.txt")), "notes.txt", "not a folder", ".tar.gz")


HOSTILE = "NVIDIA\u202eH200\x1b[31m"


def test_control_characters_reach_neither_pages_nor_json(tmp_path):
    root = small_book(tmp_path)
    edit(root / "snippets/ch01/captures/a.cuda-a100_80gb.json",
         lambda raw: (raw.update(stdout=[f"out {HOSTILE}"]), raw["sessions"][0]["kernels"][0].update(name=f"k{HOSTILE}"),
                      raw["environment"].update(torch=f"2.13{HOSTILE}")))
    write(root / "docs" / "index.md", "# A page\n\n[[kb:run ch01/a]]\n")
    done = render(root, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "en" / "index.md").read_text(encoding="utf-8")
    assert "\u202e" not in page and "\x1b" not in page and "202e" in page
    for args in (("status", "--json"), ("kernels", "--json", "snippets/ch01/captures/a.cuda-a100_80gb.json")):
        out = kb(root, *args).stdout
        assert "\u202e" not in out and "\x1b" not in out and "202e" in out, out[:2000]
        json.loads(out)


def test_a_mis_keyed_capture_is_as_unreadable_to_diff_as_to_status(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", T4, slot="cuda-bogus")
    empty = tmp_path / "empty"
    (empty / "snippets").mkdir(parents=True)
    one_line(kb(root, "diff", str(empty), str(root)), "a.cuda-bogus.json", "bogus")


def test_diff_gpu_empty_is_a_usage_error(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", A100)
    one_line(kb(root, "diff", "--gpu", ""), "--gpu ''")
    one_line(kb(root, "diff", "--gpu", "t4", "--against", ""), "--against ''")


@pytest.mark.parametrize("what", ["capture", "captures folder"])
def test_merge_reads_no_link_out_of_the_folder_it_is_given(tmp_path, what):
    book = tree(tmp_path / "book", snippets=("ch01/a",))
    elsewhere = tree(tmp_path / "elsewhere", snippets=("ch01/a",))
    gpu_capture(elsewhere, "ch01/a", T4)
    given = tmp_path / "given"
    if what == "capture":
        (given / "snippets/ch01/captures").mkdir(parents=True)
        (given / A_T4).symlink_to(elsewhere / A_T4)
    else:
        (given / "snippets/ch01").mkdir(parents=True)
        (given / "snippets/ch01/captures").symlink_to(elsewhere / "snippets/ch01/captures")
    one_line(kb(book, "merge", str(given)), "link", str(given))
    assert not (book / A_T4).exists()


def test_diff_reads_no_link_out_of_a_folder(tmp_path):
    elsewhere = tree(tmp_path / "elsewhere", snippets=("ch01/a",))
    gpu_capture(elsewhere, "ch01/a", T4)
    given = tmp_path / "given"
    (given / "snippets/ch01/captures").mkdir(parents=True)
    (given / A_T4).symlink_to(elsewhere / A_T4)
    one_line(kb(elsewhere, "diff", str(elsewhere), str(given)), "a.cuda-t4.json", "link")
