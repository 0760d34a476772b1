"""Several GPUs' captures of one snippet: keys and file layout, status/--strict, the book's choice,
contributed archives (`pack` / `merge ARCHIVE`) and `diff --gpu`.

The CUDA captures are crafted in temp trees from the real A100 traces in tests/fixtures/real-traces
(a second GPU model: the same kernels, renamed and slower). No GPU ran these files as such; none is committed.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from conftest import ROOT, make_project, write

from kernelbook import CAPTURE_FORMAT
from kernelbook.common import gpus
from kernelbook.capture.archive import MANIFEST, pack
from kernelbook.capture.kernels import extract, read_json, validate_trace
from kernelbook.common.records import SCHEMA, from_json
from kernelbook.site.book import load_book
from kernelbook.common.snippets import source_hash

TRACE = ROOT / "tests" / "fixtures" / "real-traces" / "benchmark_simple_add_trace.json.gz"
A100 = ("NVIDIA A100-SXM4-80GB", "8.0", "a100_80gb")
T4 = ("Tesla T4", "7.5", "t4")


@pytest.mark.parametrize("name, capability, key", [
    ("NVIDIA H200", "9.0", "h200"), ("NVIDIA A100-SXM4-80GB", "8.0", "a100_80gb"), ("NVIDIA A100 80GB PCIe", "8.0", "a100_80gb"),
    ("NVIDIA A100-SXM4-40GB MIG 1g.5gb", "8.0", "a100_40gb"), ("Tesla T4", "7.5", "t4"), ("NVIDIA L4", "8.9", "l4"),
    ("NVIDIA GeForce RTX 4090", "8.9", "rtx_4090"), ("NVIDIA H100 80GB HBM3", "9.0", "h100_80gb"), ("NVIDIA", "9.0", "sm90"),
    ("", None, None),
])
def test_gpu_keys_from_name_and_capability(name, capability, key):
    assert gpus.gpu_key(name, capability) == key


def kernels(rename: bool) -> list[dict]:
    found = extract(validate_trace(read_json(TRACE), str(TRACE)))
    out = []
    for k in found.kernels:
        name = k.name.replace("vectorized_elementwise_kernel", "unrolled_elementwise_kernel") if rename else k.name
        out.append({"name": name, "count": k.count, "time_us": k.time_us * (3.0 if rename else 1.0)})
    return out


def gpu_capture(root: Path, sid: str, gpu: tuple[str, str, str], slot: str | None = None, rename: bool = False,
                source: str | None = None, **env) -> Path:
    """A CUDA capture of ``sid`` on ``gpu`` in the layout `kernelbook capture` writes, its kernels from a real A100 trace."""
    chapter, name = sid.split("/")
    digest = source or source_hash(root / "snippets" / chapter / f"{name}.py")
    found = kernels(rename)
    environment = {"device_kind": "cuda", "device_name": gpu[0], "torch": "2.13.0", "python": "3.12.3", "platform": "Linux",
                   "captured_at": "2026-01-02T03:04:05Z", "compute_capability": gpu[1], "driver": "580.65", "cuda": "13.0",
                   "triton": "3.7.1", "git_commit": None, "settings": {}, **env}
    raw = {"schema": SCHEMA, "snippet": sid, "device": "cuda",
           "freshness": {"source_hash": digest, "format": CAPTURE_FORMAT, "torch": "2.13.0"},
           "environment": environment, "wall_time_s": 1.0, "stdout": ["hi"], "stderr": [],
           "sessions": [{"index": 0, "device_kind": "cuda", "kernels": found, "launches": sum(k["count"] for k in found)}],
           "data": None, "trace_files": []}
    from_json(raw, "crafted")
    return write(root / "snippets" / chapter / "captures" / f"{name}.{slot or gpus.slot(gpu[2])}.json", json.dumps(raw, indent=1))


def tree(root: Path, reference: str | None = "a100_80gb", snippets=("ch01/a", "ch01/b")) -> Path:
    make_project(root)
    (root / "scripts").symlink_to(ROOT / "scripts")
    write(root / "mkdocs.yml", "site_name: t\nplugins:\n  - kernelbook:\n      repository: x/y\n"
          + (f"      reference_gpu: {reference}   # the book's GPU\n" if reference else ""))
    for sid in snippets:
        chapter, name = sid.split("/")
        write(root / "snippets" / chapter / f"{name}.py", f"print({name!r})\n")
    return root


def kb(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernelbook", *args], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT / "scripts"), "PATH": "/usr/bin:/bin", "CUDA_VISIBLE_DEVICES": "",
                               "PYTHONDONTWRITEBYTECODE": "1"}, timeout=120)  # no __pycache__ in the checkout


# ---------------------------------------------------------------- layout, status, --strict, the book


def test_two_gpu_models_each_have_their_own_file_and_status_lists_both(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", A100)
    gpu_capture(root, "ch01/a", T4, rename=True)
    assert gpus.reference_gpu(root) == "a100_80gb"
    assert sorted(p.name for p in (root / "snippets/ch01/captures").iterdir()) == ["a.cuda-a100_80gb.json", "a.cuda-t4.json"]
    done = kb(root, "status", "--json")
    assert done.returncode == 0, done.stderr
    states = {(r["snippet"], r["device"]): (r["state"], r["device_name"]) for r in json.loads(done.stdout)}
    assert states == {("ch01/a", "cuda-a100_80gb"): ("fresh", A100[0]), ("ch01/a", "cuda-t4"): ("fresh", T4[0]),
                      ("ch01/a", "cpu"): ("missing", None)}
    assert {r["device"]: r["reference"] for r in json.loads(done.stdout)} == {"cuda-a100_80gb": True, "cuda-t4": False, "cpu": False}
    assert kb(root, "status", "--strict").returncode == 0


def test_strict_demands_the_reference_gpu_and_not_the_others(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", T4)
    done = kb(root, "status", "--strict")
    assert done.returncode == 1 and "1 reference GPU a100_80gb capture(s) not fresh: ch01/a (missing)" in done.stderr
    gpu_capture(root, "ch01/a", A100)
    gpu_capture(root, "ch01/a", T4, source="0" * 64)  # a contribution of an older version: stale, left out, not demanded
    done = kb(root, "status", "--strict")
    assert done.returncode == 0, done.stderr
    assert "stale      ch01/a" in done.stdout and "cuda-t4" in done.stdout


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True, timeout=60)


def test_a_pull_request_may_bring_only_captures_the_build_shows(tmp_path):
    """status --changed-since REF: a capture added or changed since REF must be readable and of this snippet's version;
    one that went stale on main meanwhile is no concern of the change."""
    root = tree(tmp_path / "t", snippets=("ch01/a", "ch01/b"))
    gpu_capture(root, "ch01/b", T4, source="0" * 64)  # stale on the base branch already: not this change's
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    assert kb(root, "status", "--changed-since", "main").returncode == 0
    gpu_capture(root, "ch01/a", T4)  # a fresh contribution
    done = kb(root, "status", "--changed-since", "main")
    assert done.returncode == 0, done.stderr
    gpu_capture(root, "ch01/a", A100, source="0" * 64)  # a contribution of another version of the snippet
    write(root / "snippets/ch01/captures/gone.cuda-t4.json", "{}")  # a capture of no snippet
    done = kb(root, "status", "--changed-since", "main")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 2, done.stderr
    assert lines[0].startswith("--changed-since main: snippets/ch01/captures/a.cuda-a100_80gb.json: stale (source")
    assert "re-capture it from this version of ch01/a" in lines[0]
    assert "gone.cuda-t4.json: no snippet of this book has a capture of that name" in lines[1]
    done = kb(root, "status", "--changed-since", "no-such-branch")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "git cannot compare with it" in done.stderr


def test_a_book_in_a_folder_of_its_repository_names_its_changed_captures_alike(tmp_path):
    repo = tmp_path / "repo"
    root = tree(repo / "book", snippets=("ch01/a",))
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    gpu_capture(root, "ch01/a", A100, source="0" * 64)  # another version's capture, added to git: found by `git diff`
    _git(repo, "add", "-A")
    done = kb(root, "status", "--changed-since", "main")
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("--changed-since main: snippets/ch01/captures/a.cuda-a100_80gb.json: stale (source"), done.stderr


def test_an_unkeyed_capture_from_before_keys_stands_for_its_gpu(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", A100, slot="cuda")
    done = kb(root, "status", "--json")
    assert [(r["device"], r["state"]) for r in json.loads(done.stdout)] == [("cuda", "fresh"), ("cpu", "missing")]
    assert kb(root, "status", "--strict").returncode == 0
    book = load_book(root)
    assert [key for key, _ in book["ch01/a"].gpus] == ["a100_80gb"]


def test_a_file_named_for_another_gpu_than_it_records_is_unreadable(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", T4, slot="cuda-l4")
    states = {r["device"]: r for r in json.loads(kb(root, "status", "--json").stdout)}
    assert states["cuda-l4"]["state"] == "unreadable" and "records GPU Tesla T4 (key t4), but its name says l4" in states["cuda-l4"]["reason"]


def test_the_book_shows_the_reference_gpu_first_then_the_others(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",), reference="t4")
    gpu_capture(root, "ch01/a", A100)
    gpu_capture(root, "ch01/a", T4, rename=True)
    entry = load_book(root)["ch01/a"]
    assert [key for key, _ in entry.gpus] == ["t4", "a100_80gb"]
    assert entry.cuda.environment.device_name == T4[0] and not entry.problems


# ---------------------------------------------------------------- contributed archives


def contributed(tmp_path: Path) -> tuple[Path, Path]:
    """The book's tree, and an archive a T4 owner packed from a checkout of it."""
    book = tree(tmp_path / "book")
    theirs = tree(tmp_path / "theirs")
    for sid in ("ch01/a", "ch01/b"):
        gpu_capture(theirs, sid, T4, rename=True)
    archive = tmp_path / "t4.tar.gz"
    manifest = pack(theirs, archive, "t4", commit="abc123")
    assert manifest["gpu"] == "t4" and manifest["environment"]["device_name"] == "Tesla T4"
    assert set(manifest["snippets"]) == {"ch01/a", "ch01/b"} and len(manifest["files"]) == 2
    return book, archive


def test_a_good_archive_is_merged_into_place(tmp_path):
    book, archive = contributed(tmp_path)
    done = kb(book, "merge", str(archive))
    assert done.returncode == 0, done.stderr
    assert "merged 2 capture(s)" in done.stdout
    assert (book / "snippets/ch01/captures/a.cuda-t4.json").is_file() and (book / "snippets/ch01/captures/b.cuda-t4.json").is_file()
    assert kb(book, "merge", str(archive)).returncode == 0  # again: identical, nothing changes


def rewrite(archive: Path, out: Path, change) -> Path:
    """``archive`` with ``change(members)`` applied (members: name -> bytes, manifest parsed)."""
    with tarfile.open(archive) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar}
    manifest = json.loads(members.pop(MANIFEST))
    change(members, manifest)
    with tarfile.open(out, "w:gz") as tar:
        for name, data in [(MANIFEST, json.dumps(manifest).encode()), *members.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out


def _tamper(members, manifest):
    name = "snippets/ch01/captures/a.cuda-t4.json"
    members[name] = members[name].replace(b'"wall_time_s": 1.0', b'"wall_time_s": 9.0')
    assert members[name].count(b'9.0')


def _other_version(members, manifest):
    import hashlib
    name = "snippets/ch01/captures/a.cuda-t4.json"
    raw = json.loads(members[name])
    raw["freshness"]["source_hash"] = "1" * 64
    members[name] = json.dumps(raw).encode()
    manifest["files"][name] = hashlib.sha256(members[name]).hexdigest()
    manifest["snippets"]["ch01/a"] = "1" * 64


def _renamed_key(members, manifest):
    for old in list(members):
        new = old.replace("cuda-t4", "cuda-l4")
        members[new] = members.pop(old)
        manifest["files"][new] = manifest["files"].pop(old)
    manifest["gpu"] = "l4"


@pytest.mark.parametrize("change, words", [
    (_tamper, "snippets/ch01/captures/a.cuda-t4.json does not match its sha256 in manifest.json"),
    (_other_version, "a.cuda-t4.json was captured from another version of snippets/ch01/a.py than this tree's"),
    (lambda m, f: f.pop("environment"), "manifest.json has no environment"),
    (_renamed_key, "unknown GPU key 'l4': its environment names Tesla T4 (key t4)"),
    (lambda m, f: f.update(gpu="t4", environment={**f["environment"], "device_name": "NVIDIA L4"}), "unknown GPU key 't4'"),
    (lambda m, f: m.update({"snippets/ch01/captures/extra.cuda-t4.json": b"{}"}), "its files and manifest.json disagree"),
])
def test_a_bad_archive_is_refused_in_one_line_and_writes_nothing(tmp_path, change, words):
    book, archive = contributed(tmp_path)
    bad = rewrite(archive, tmp_path / "bad.tar.gz", change)
    done = kb(book, "merge", str(bad))
    assert done.returncode == 2, done.stdout + done.stderr
    assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not list((book / "snippets/ch01").glob("captures/*"))


def test_an_archive_member_outside_the_captures_is_refused(tmp_path):
    book, archive = contributed(tmp_path)
    bad = rewrite(archive, tmp_path / "bad.tar.gz", lambda m, f: m.update({"../../evil.py": b"x"}))
    done = kb(book, "merge", str(bad))
    assert done.returncode == 2 and "'../../evil.py' is not a plain file inside the archive" in done.stderr


def test_pack_refuses_a_capture_of_another_version(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", T4, source="2" * 64)
    done = kb(root, "pack", "--gpu", "t4", "-o", str(tmp_path / "x.tar.gz"))
    assert done.returncode == 2 and "captured from another version of snippets/ch01/a.py" in done.stderr
    assert kb(root, "pack", "-o", str(tmp_path / "x.tar.gz")).stderr.strip().endswith("give --gpu KEY (e.g. t4)")


# ---------------------------------------------------------------- reviewing a new GPU


def test_diff_shows_a_new_gpus_kernels_against_the_reference_gpus(tmp_path):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    write(root / "docs" / "index.md", "# A page\n\nThe add ran [[kb:launches ch01/a == 4]] kernels: "
          "[[kb:kernel ch01/a ~ vectorized @cuda]] and [[kb:time ch01/a]].\n")
    gpu_capture(root, "ch01/a", A100)
    gpu_capture(root, "ch01/a", T4, rename=True)
    done = kb(root, "diff", "--gpu", "t4", "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["old"].startswith("a100_80gb") and report["new"].startswith("t4")
    claimed = {c["claim"]: c for c in report["snippets"][0]["claims"]}
    kernel = claimed["[[kb:kernel ch01/a ~ vectorized @cuda]]"]  # what the T4 contradicts, against the A100
    assert "no kernel containing 'vectorized'" in kernel["fails"] and not kernel["failed_before"]
    assert "[[kb:launches ch01/a == 4]]" not in claimed  # the same on both GPUs: no news
    assert "[[kb:time ch01/a]]" in claimed  # 3x slower on the T4
    text = kb(root, "diff", "--gpu", "t4").stdout
    assert "unrolled_elementwise_kernel" in text and "vectorized_elementwise_kernel" in text
    same = kb(root, "diff", "--gpu", "a100_80gb")  # the reference against itself: HEAD against the tree, here no git (issue 41)
    assert same.returncode == 2 and "HEAD's a100_80gb captures are compared with the working tree's" in same.stderr, same.stderr



@pytest.mark.parametrize("args, says", [
    (("--gpu", "l4"), "--gpu l4: no capture of that GPU in working tree; give the key of a GPU with captures there (a100_80gb, t4;"),
    (("--gpu", "t4", "--against", "h200"), "--against h200: no capture of that GPU in working tree; give the key of a GPU with captures there (a100_80gb, t4;"),
    (("--against", "t4"), "--against KEY names the GPU that --gpu KEY is compared with: give --gpu KEY too"),
])
def test_diff_refuses_a_gpu_with_no_capture_and_against_without_gpu_in_one_line(tmp_path, args, says):
    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", A100)
    gpu_capture(root, "ch01/a", T4, rename=True)
    done = kb(root, "diff", *args)
    assert done.returncode == 2 and not done.stdout, done.stdout + done.stderr
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("value, hint", [("H200", "did you mean h200?"), ('"A100 80GB"', "did you mean a100_80gb?"),
                                         ("a100-80gb", "did you mean a100_80gb?"), ("h200_", "did you mean h200?")])
def test_a_reference_gpu_that_is_not_a_gpu_key_is_one_line_naming_mkdocs_yml_and_the_value(tmp_path, value, hint):
    from conftest import mkdocs_build

    root = tree(tmp_path / "t", snippets=("ch01/a",), reference=value)
    gpu_capture(root, "ch01/a", A100)
    shown = value.strip('"')
    for command in (("status",), ("status", "--strict"), ("diff", "--gpu", "a100_80gb"), ("build", "--no-capture")):
        done = kb(root, *command)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        line = done.stderr.strip()
        assert len(line.splitlines()) == 1 and f"mkdocs.yml's reference_gpu {shown!r} is not a GPU key" in line and hint in line, line
    write(root / "docs/index.md", "# A\n\n[[kb:run ch01/a]]\n")
    failed = mkdocs_build(root, tmp_path / "site")
    assert failed.returncode != 0 and f"mkdocs.yml's reference_gpu {shown!r} is not a GPU key" in failed.stdout + failed.stderr
    assert "Traceback" not in failed.stdout + failed.stderr
    assert gpus.reference_gpu(tree(tmp_path / "ok", reference="'h200'")) == "h200"  # quoted, commented: still read
    assert gpus.reference_gpu(tree(tmp_path / "none", reference=None)) is None


# ---------------------------------------------------------------- claims per GPU (no build)


def entry_of(root: Path, reference: str = "a100_80gb"):
    from kernelbook.site.book import load_book as load

    return load(root, reference=reference)["ch01/a"]


@pytest.mark.parametrize("text, fails_on", [
    ("[[kb:kernel ch01/a ~ vectorized @cuda]]", "Tesla T4"),  # @cuda: every GPU, and the T4's kernel is another
    ("[[kb:kernel ch01/a ~ vectorized @reference]]", None),  # only the reference A100
    ("[[kb:kernel ch01/a ~ vectorized @sm80]]", None),  # only GPUs of compute capability 8.0
    ("[[kb:kernel ch01/a ~ unrolled @sm75]]", None),  # only the T4
    ("[[kb:launches ch01/a == 4]]", None),  # unscoped: every fresh capture, and both GPUs launched 4
])
def test_a_claim_is_checked_on_every_gpu_its_scope_covers(tmp_path, text, fails_on):
    from kernelbook.site.prose import claims

    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", A100)
    gpu_capture(root, "ch01/a", T4, rename=True)
    entry = entry_of(root)
    kind, rest = text[5:-2].split(" ", 1)
    claim = claims.parse(kind, rest, text)
    if fails_on:
        with pytest.raises(claims.ClaimError, match="cuda-t4"):
            claims.read(claim, entry.fresh, entry.shown, entry.reference)
        return
    reading = claims.read(claim, entry.fresh, entry.shown, entry.reference)
    assert reading.capture is not None and reading.checked


def test_a_claim_scoped_to_an_architecture_no_capture_has_is_unchecked(tmp_path):
    from kernelbook.site.prose import claims

    root = tree(tmp_path / "t", snippets=("ch01/a",))
    gpu_capture(root, "ch01/a", T4)
    entry = entry_of(root)
    text = "[[kb:launches ch01/a @sm90 == 4]]"
    reading = claims.read(claims.parse("launches", "ch01/a @sm90 == 4", text), entry.fresh, entry.shown, entry.reference)
    assert reading.capture is None and reading.unchecked_on == "sm90"
    with pytest.raises(claims.ClaimError, match="a scope is one @cuda or @cpu"):
        claims.parse("launches", "ch01/a @gpu == 4", "[[kb:launches ch01/a @gpu == 4]]")


# ---------------------------------------------------------------- pages: tabs per GPU, the instructors' table


def cpu_capture(root: Path, sid: str) -> Path:
    chapter, name = sid.split("/")
    environment = {"device_kind": "cpu", "device_name": "CPU (test)", "torch": "2.13.0", "python": "3.12.3", "platform": "Linux",
                   "captured_at": "2026-01-02T03:04:05Z", "compute_capability": None, "driver": None, "cuda": None,
                   "triton": None, "git_commit": None, "settings": {}}
    raw = {"schema": SCHEMA, "snippet": sid, "device": "cpu",
           "freshness": {"source_hash": source_hash(root / "snippets" / chapter / f"{name}.py"), "format": CAPTURE_FORMAT, "torch": "2.13.0"},
           "environment": environment, "wall_time_s": 1.0, "stdout": [name], "stderr": [], "sessions": [], "data": None, "trace_files": []}
    from_json(raw, "crafted")
    return write(root / "snippets" / chapter / "captures" / f"{name}.cpu.json", json.dumps(raw, indent=1))


BILINGUAL = """
site_name: GPUs side by side
site_url: https://example.org/gpus/
theme:
  name: material
  features: [content.tabs.link]
plugins:
  - i18n:
      docs_structure: folder
      fallback_to_default: false
      reconfigure_material: true
      languages:
        - locale: ja
          name: 日本語
          default: true
          build: true
        - locale: en
          name: English
          build: true
  - kernelbook:
      notebooks: false
      reference_gpu: a100_80gb
"""

CHAPTER = {
    "ja": "# 二つの GPU {{ #two-gpus }}\n\n## 加算 {{ #add }}\n\n加算のカーネルは [[kb:launches ch01/a @cuda == 4]] 回起動します。"
          "A100 では [[kb:kernel ch01/a ~ vectorized @sm80]] です。\n\n[[kb:run ch01/a]]\n\n[[kb:run ch01/b]]\n",
    "en": "# Two GPUs {{ #two-gpus }}\n\n## The addition {{ #add }}\n\nThe addition launches [[kb:launches ch01/a @cuda == 4]] kernels. "
          "On the A100 it is [[kb:kernel ch01/a ~ vectorized @sm80]].\n\n[[kb:run ch01/a]]\n\n[[kb:run ch01/b]]\n",
}


@pytest.fixture(scope="module")
def two_gpu_site(tmp_path_factory) -> Path:
    from conftest import mkdocs_build

    base = tmp_path_factory.mktemp("gpus")
    book = base / "book"
    write(book / "mkdocs.yml", BILINGUAL)
    for sid in ("ch01/a", "ch01/b"):
        chapter, name = sid.split("/")
        write(book / "snippets" / chapter / f"{name}.py", f"print({name!r})\n")
        gpu_capture(book, sid, A100)
        gpu_capture(book, sid, T4, rename=True)
        cpu_capture(book, sid)
    for lang in ("ja", "en"):
        write(book / "docs" / lang / "index.md", f"# {lang}\n\n[ch01](ch01/index.md) · [instructors](instructors.md)\n")
        write(book / "docs" / lang / "ch01" / "index.md", CHAPTER[lang].format())
        write(book / "docs" / lang / "instructors.md", "# Instructors { #instructors }\n\n[[kb:device-checks]]\n")
    built = mkdocs_build(book, base / "site")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-5000:]
    return base / "site"


def test_the_instructors_page_lists_each_claim_on_each_gpu(two_gpu_site):
    import re

    for lang, prefix in (("ja", ""), ("en", "en/")):
        page = (two_gpu_site / prefix / "instructors/index.html").read_text(encoding="utf-8")
        rows = re.findall(r'<tr data-checked="(\w+)" data-gpu="([^"]*)"><td>.*?</td><td><code>([^<]*)</code></td>', page)
        assert ("2 of the 2 device-scoped" if lang == "en" else "主張と問いは 2 件で、そのうちいま確認できているのは 2 件") in page
        assert rows == [("true", "a100_80gb", "&#91;&#91;kb:launches ch01/a @cuda == 4]]"),
                        ("true", "t4", "&#91;&#91;kb:launches ch01/a @cuda == 4]]"),
                        ("true", "a100_80gb", "&#91;&#91;kb:kernel ch01/a ~ vectorized @sm80]]")], (lang, rows)


def test_a_claim_one_gpu_contradicts_fails_the_build_naming_that_gpus_capture(tmp_path):
    from conftest import mkdocs_build

    book = tmp_path / "book"
    write(book / "mkdocs.yml", BILINGUAL.replace("  - i18n:", "  - search\n  - x-i18n:").split("  - x-i18n:")[0] + "  - kernelbook:\n      notebooks: false\n")
    write(book / "snippets/ch01/a.py", "print('a')\n")
    gpu_capture(book, "ch01/a", A100)
    gpu_capture(book, "ch01/a", T4, rename=True)
    write(book / "docs/index.md", "# One\n\n[[kb:kernel ch01/a ~ vectorized @cuda]]\n\n[[kb:run ch01/a]]\n")
    failed = mkdocs_build(book, tmp_path / "site")
    assert failed.returncode != 0
    assert "no kernel containing 'vectorized' in the cuda capture a.cuda-t4.json" in failed.stdout + failed.stderr


@pytest.mark.parametrize("lang, prefix", [("ja", ""), ("en", "en/")])
def test_tabs_show_every_gpu_reference_first_then_cpu_and_a_choice_holds_across_the_page(two_gpu_site, browser, lang, prefix):
    from conftest import serving

    with serving(two_gpu_site) as url:
        _linked_tabs_hold(browser, f"{url}/{prefix}ch01/")


def _linked_tabs_hold(browser, url: str) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        examples = page.locator(".kb-example")
        assert examples.count() == 2
        for i in range(2):
            labels = examples.nth(i).locator(".tabbed-labels > label").all_inner_texts()
            assert [t.strip() for t in labels] == ["A100 80GB", "T4", "CPU"], labels
        checked = lambda i: examples.nth(i).locator(".tabbed-labels > label").nth(  # noqa: E731
            examples.nth(i).locator("input:checked").evaluate("e => [...e.parentNode.querySelectorAll(':scope > input')].indexOf(e)")).inner_text()
        assert checked(0).strip() == "A100 80GB" and checked(1).strip() == "A100 80GB"
        assert "Tesla T4" not in examples.nth(0).locator(".tabbed-block").first.inner_text()
        examples.nth(0).locator(".tabbed-labels > label", has_text="T4").click()
        page.wait_for_timeout(300)
        assert checked(1).strip() == "T4"  # linked: the other example switched too
        visible = examples.nth(1).locator(".tabbed-block").nth(1)
        assert visible.is_visible() and "Tesla T4" in visible.inner_text() and "unrolled_elementwise_kernel" in visible.inner_text()
        page.reload()
        page.wait_for_timeout(300)
        assert checked(0).strip() == "T4"  # remembered (Material keeps the linked choice)
    finally:
        context.close()


# ---------------------------------------------------------------- the capture kit


@pytest.mark.parametrize("lang, says", [("en", "No GPU: no NVIDIA GPU is visible, so the kit stops here"),
                                        ("ja", "GPU がありません: NVIDIA の GPU が見えないため、ここで止まります")])
def test_the_capture_kit_runs_until_it_needs_a_gpu_then_says_so_and_stops(tmp_path, monkeypatch, lang, says):
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    from kernelbook import kit

    path = ROOT / "kit" / f"capture_kit.{lang}.ipynb"
    assert not kit.stale(ROOT, "kernelbook/kernelbook", "main"), "run `kernelbook notebooks` to regenerate the capture kit"
    nb = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    sources = ["".join(c.source) for c in nb.cells if c.cell_type == "code"]
    assert 'TORCH = "torch==2.13.0"' in sources[0] and 'TRITON = "triton==3.7.1"' in sources[0]
    assert any('"capture", "--device", "cuda"' in s for s in sources) and any('"pack"' in s for s in sources)
    # no GPU here, whatever the machine: nvidia-smi is not on PATH
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + ":/usr/bin:/bin")
    if __import__("shutil").which("nvidia-smi"):
        pytest.skip("nvidia-smi is on /usr/bin: this machine has a GPU, the kit would go on")
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(CellExecutionError) as stopped:
        client.execute()
    assert "SystemExit" in str(stopped.value)
    code = [c for c in nb.cells if c.cell_type == "code"]
    printed = "".join(o.get("text", "") for o in code[1].outputs if o.output_type == "stream")
    assert says in printed
    assert code[0].execution_count == 1 and all(c.execution_count is None and not c.outputs for c in code[2:])
    assert not (tmp_path / "kernelbook").exists()  # it installed and cloned nothing


def test_a_cuda_capture_is_written_under_its_gpus_key(tmp_path, monkeypatch):
    """No GPU here: the runner's choice of file is checked with the GPU and the run stubbed."""
    import io as _io

    from kernelbook.capture import runner
    from kernelbook.common.snippets import discover

    root = tree(tmp_path / "t", snippets=("ch01/a",))
    seen = {}
    monkeypatch.setattr(runner, "resolve_device", lambda requested: "cuda")
    monkeypatch.setattr(runner, "this_gpu_key", lambda: "t4")
    monkeypatch.setattr(runner, "run_all", lambda root, todo, device, *a: seen.setdefault("device", device) and [])
    runner.capture(root, discover(root), "cuda", log=_io.StringIO(), probe=lambda python: None)
    assert seen["device"] == "cuda-t4"
    snippet = discover(root)[0]
    report = {"torch": "2.13.0", "environment": json.loads(gpu_capture(root, "ch01/a", T4).read_text())["environment"],
              "wall_time_s": 1.0, "sessions": [], "data": None, "trace_files": ["trace0.json.gz"]}
    raw = runner._capture_json(snippet, "cuda-t4", "0" * 64, report, "", "")
    assert raw["device"] == "cuda" and raw["trace_files"] == ["a.cuda-t4.trace0.json.gz"]
    assert snippet.capture_path("cuda-t4").name == "a.cuda-t4.json"
