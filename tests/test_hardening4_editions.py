"""Hardening, round 4, part B (issue 41): editions, publishing, ``status --changed-since`` and the book's config.

Each test here failed before its fix. Publishing runs in-process against a temporary git
repository with mike stood in for (``publishing._mike``) where a build would be needed, and
the real mike where none is (delete, set-default): two publishes at once lost an edition; a
frozen edition published from a tree its tag does not hold; the site's root left on a
deleted edition; the built site committed onto the book's own branch; ``--changed-since``
that compared nothing; escape sequences from ``versions.json``; a failed ``cut`` that left
files staged; ``reference_gpu`` read from outside the plugin's options.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT, make_project, run_cli, write
from test_editions import GIT_ENV  # a git that reads no user's config, offline
from kernelbook.safety.errors import KernelbookError
from kernelbook.site.editions import publishing



@pytest.fixture(autouse=True)
def _git_identity(monkeypatch):
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def git(root: Path, *args: str, **kw) -> str:
    done = subprocess.run(["git", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", *args], cwd=root,
                          capture_output=True, text=True, timeout=60, **kw)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def repo(root: Path, *editions: str) -> Path:
    """A book (mkdocs.yml, mkdocs.editions.yml) committed on main, each of ``editions`` tagged on that commit."""
    make_project(root)
    write(root / "mkdocs.yml", "site_name: t\n")
    write(root / publishing.CONFIG, "INHERIT: mkdocs.yml\n")
    write(root / ".gitignore", ".kernelbook/\nsite/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "book")
    for name in editions:
        git(root, "tag", "-a", f"edition-{name}", "-m", name)
    return root


def pages_branch(root: Path, files: dict[str, str], branch: str = "gh-pages") -> None:
    """``branch`` holding exactly ``files``, made with git's plumbing (as mike would have left it)."""
    tree = root.parent / f"{root.name}-{branch}-tree"
    for rel, text in files.items():
        write(tree / rel, text)
    env = {**os.environ, "GIT_INDEX_FILE": str(root.parent / f"{root.name}-{branch}.index")}
    git(root, "--work-tree", str(tree), "add", "-A", ".", env=env)
    sha = git(root, "write-tree", env=env).strip()
    commit = git(root, "commit-tree", sha, "-m", "pages").strip()
    git(root, "update-ref", f"refs/heads/{branch}", commit)


def redirect(href: str) -> str:
    return f'<!DOCTYPE html><html><head><meta http-equiv="refresh" content="1; url={href}" /></head></html>\n'


def versions(*names: str) -> str:
    return json.dumps([{"version": n, "title": n, "aliases": []} for n in names])


class FakeMike:
    """mike as far as publishing goes: versions.json read before the build and written after it (mike's deploy)."""

    def __init__(self, root: Path, *names: str, build_s: float = 0.0, drop: str | None = None):
        self.file = root.parent / f"{root.name}-versions.json"
        self.file.write_text(versions(*names), encoding="utf-8")
        self.build_s, self.drop, self.calls = build_s, drop, []
        pages_branch(root, {"versions.json": versions(*names)})

    def __call__(self, root, args, edition=None):
        self.calls.append(args)
        if args[0] == "list":
            return subprocess.CompletedProcess(args, 0, stdout=self.file.read_text(encoding="utf-8"), stderr="")
        if args[0] == "deploy":
            listed = json.loads(self.file.read_text(encoding="utf-8"))  # mike reads the list before building ...
            time.sleep(self.build_s)
            listed = [v for v in listed if v["version"] not in (args[-1], self.drop)]
            self.file.write_text(json.dumps([{"version": args[-1], "title": args[-1], "aliases": []}] + listed),
                                 encoding="utf-8")  # ... and writes it after
        return subprocess.CompletedProcess(args, 0, stdout="", stderr="")

    def deployed(self) -> list[str]:
        return [a[-1] for a in self.calls if a[0] == "deploy"]


def listed(mike: FakeMike) -> list[str]:
    return sorted(v["version"] for v in json.loads(mike.file.read_text(encoding="utf-8")))


# ---------------------------------------------------------------- high 3: two publishes in one clone


def test_two_publishes_at_once_keep_both_editions_and_never_publish_one_twice(tmp_path, monkeypatch):
    root = repo(tmp_path / "book", "2026.06", "2026.12")
    mike = FakeMike(root, build_s=0.5)
    monkeypatch.setattr(publishing, "_mike", mike)
    said: dict[str, object] = {}

    def one(name: str) -> None:
        try:
            said[name] = publishing.publish(root, name)
        except KernelbookError as exc:
            said[name] = exc

    threads = [threading.Thread(target=one, args=(n,)) for n in ("2026.06", "2026.12")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert listed(mike) == ["2026.06", "2026.12"], said
    assert all(isinstance(v, str) for v in said.values()), said
    with pytest.raises(KernelbookError, match="already published"):
        publishing.publish(root, "2026.06")
    assert sorted(mike.deployed()) == ["2026.06", "2026.12"]


def test_a_publish_that_leaves_an_edition_out_of_versions_json_fails_naming_it(tmp_path, monkeypatch):
    root = repo(tmp_path / "book", "2026.12")
    mike = FakeMike(root, "2026.06", drop="2026.06")  # a writer that lost what was there
    monkeypatch.setattr(publishing, "_mike", mike)
    with pytest.raises(KernelbookError) as err:
        publishing.publish(root, "2026.12")
    assert "versions.json" in str(err.value) and "2026.06" in str(err.value) and "gh-pages" in str(err.value)


# ---------------------------------------------------------------- medium: what a frozen edition is published from


def _dirty(root: Path) -> None:
    write(root / "docs/index.md", "# Changed after the tag\n")


def _untracked_capture(root: Path) -> None:
    write(root / "snippets/ch01/captures/x.cpu.json", "{}\n")


def _past_the_tag(root: Path) -> None:
    write(root / "docs/index.md", "# Committed after the tag\n")
    git(root, "commit", "-q", "-am", "after the tag")


@pytest.mark.parametrize("spoil", [_dirty, _untracked_capture, _past_the_tag], ids=["dirty", "untracked", "past_tag"])
def test_a_frozen_edition_is_published_only_from_its_tag_in_a_clean_tree(tmp_path, monkeypatch, spoil):
    root = repo(tmp_path / "book", "2026.12")
    mike = FakeMike(root)
    monkeypatch.setattr(publishing, "_mike", mike)
    spoil(root)
    with pytest.raises(KernelbookError) as err:
        publishing.publish(root, "2026.12")
    assert "edition-2026.12" in str(err.value)
    assert mike.deployed() == []
    git(root, "stash", "-u", "-q") if spoil is not _past_the_tag else git(root, "checkout", "-q", "edition-2026.12")
    assert publishing.publish(root, "2026.12").startswith("published edition 2026.12")


def test_an_untagged_frozen_edition_is_refused(tmp_path, monkeypatch):
    root = repo(tmp_path / "book")
    mike = FakeMike(root)
    monkeypatch.setattr(publishing, "_mike", mike)
    with pytest.raises(KernelbookError, match="edition cut 2026.12"):
        publishing.publish(root, "2026.12")
    assert mike.deployed() == []


# ---------------------------------------------------------------- medium: the default edition deleted


def _root_goes_to(root: Path) -> str:
    return git(root, "show", "gh-pages:index.html")


def test_deleting_the_edition_the_root_goes_to_moves_the_root_to_one_that_is_there(tmp_path):
    root = repo(tmp_path / "book")
    pages_branch(root, {"versions.json": versions("2026.12", "2026.06"), "index.html": redirect("2026.06/"),
                        "2026.06/index.html": "old\n", "2026.12/index.html": "new\n"})
    said = publishing.delete(root, "2026.06")
    assert "2026.12" in said
    assert "2026.12/" in _root_goes_to(root) and "2026.06/" not in _root_goes_to(root)
    assert [v["version"] for v in json.loads(git(root, "show", "gh-pages:versions.json"))] == ["2026.12"]


def test_deleting_the_only_edition_the_root_goes_to_is_refused(tmp_path):
    root = repo(tmp_path / "book")
    pages_branch(root, {"versions.json": versions("2026.06"), "index.html": redirect("2026.06/"), "2026.06/index.html": "x\n"})
    before = git(root, "rev-parse", "gh-pages")
    with pytest.raises(KernelbookError, match="root"):
        publishing.delete(root, "2026.06")
    assert git(root, "rev-parse", "gh-pages") == before


# ---------------------------------------------------------------- medium: the built site onto the book's branch


def test_publishing_onto_the_checked_out_branch_or_one_holding_the_book_is_refused(tmp_path, monkeypatch):
    root = repo(tmp_path / "book")
    mike = FakeMike(root)
    monkeypatch.setattr(publishing, "_mike", mike)
    git(root, "branch", "work")  # holds the book (mkdocs.yml), not checked out
    for branch in ("main", "work"):
        with pytest.raises(KernelbookError, match=branch):
            publishing.publish(root, "latest", branch=branch)
        with pytest.raises(KernelbookError, match=branch):
            publishing.delete(root, "latest", branch=branch)
    assert mike.deployed() == []
    assert publishing.publish(root, "latest").startswith("published edition latest on gh-pages")


@pytest.mark.parametrize("where", [{"branch": "--push"}, {"branch": "a..b"}, {"branch": ""}, {"remote": "--upload-pack=x"},
                                   {"remote": "-b"}], ids=["option_branch", "bad_branch", "empty_branch", "option_remote", "dash_remote"])
def test_a_branch_or_remote_that_reads_as_an_option_is_refused(tmp_path, monkeypatch, where):
    root = repo(tmp_path / "book")
    mike = FakeMike(root)
    monkeypatch.setattr(publishing, "_mike", mike)
    for call in (lambda: publishing.publish(root, "latest", **where), lambda: publishing.listing(root, **where)):
        with pytest.raises(KernelbookError, match="--branch|--remote"):
            call()
    assert mike.calls == []


# ---------------------------------------------------------------- low: versions.json as it enters


def test_edition_list_escapes_control_characters_from_versions_json(tmp_path, monkeypatch):
    root = repo(tmp_path / "book")
    mike = FakeMike(root)
    mike.file.write_text(json.dumps([{"version": "2026.12\x1b[2J", "title": "t", "aliases": ["\x1b]0;x\x07"]}]),
                         encoding="utf-8")
    monkeypatch.setattr(publishing, "_mike", mike)
    shown = publishing.listing(root)
    assert "\x1b" not in shown and "\x07" not in shown and "2026.12\\x1b[2J" in shown


@pytest.mark.parametrize("text", ['{"version": "x"}', '[{"title": "no version"}]', '[{"version": 7}]',
                                  '[{"version": "2026.12", "aliases": "latest"}]'])
def test_a_malformed_versions_json_is_one_line_naming_it(tmp_path, monkeypatch, text):
    root = repo(tmp_path / "book")
    mike = FakeMike(root)
    mike.file.write_text(text, encoding="utf-8")
    monkeypatch.setattr(publishing, "_mike", mike)
    with pytest.raises(KernelbookError, match="gh-pages:versions.json"):
        publishing.listing(root)


# ---------------------------------------------------------------- low: cut whose commit fails


def test_a_cut_whose_commit_fails_leaves_nothing_staged_and_says_what_failed(tmp_path):
    root = repo(tmp_path / "book")
    write(root / "CITATION.cff", 'cff-version: 1.2.0\nversion: "0.1.0"\n')
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "citation")
    hook = root / ".git/hooks/pre-commit"
    write(hook, "#!/bin/sh\nexit 1\n")  # fails without a word
    hook.chmod(0o755)
    before = (root / "CITATION.cff").read_text(encoding="utf-8"), (root / "pyproject.toml").read_text(encoding="utf-8")
    with pytest.raises(KernelbookError) as err:
        publishing.cut(root, "2026.12")
    assert "no message" not in str(err.value) and "commit" in str(err.value)
    assert git(root, "status", "--porcelain") == ""
    assert ((root / "CITATION.cff").read_text(encoding="utf-8"), (root / "pyproject.toml").read_text(encoding="utf-8")) == before
    assert git(root, "tag", "--list") == ""


@pytest.mark.parametrize("name", ["CITATION.cff", "pyproject.toml"])
def test_a_version_file_that_is_not_utf8_or_a_link_is_one_line_naming_it(tmp_path, monkeypatch, name):
    root = repo(tmp_path / "book", "2026.12")
    monkeypatch.setattr(publishing, "_mike", FakeMike(root))
    (root / name).write_bytes(b'version = "\xff"\n')
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "latin-1")
    calls = [lambda: publishing.cut(root, "2027.06")]
    if name == "CITATION.cff":
        git(root, "tag", "-f", "-a", "edition-2026.12", "-m", "again")
        calls.append(lambda: publishing.publish(root, "2026.12"))  # publish reads the version CITATION.cff gives
    for call in calls:
        with pytest.raises(KernelbookError, match=f"{name}: not UTF-8"):
            call()
    (root / name).unlink()
    (root / name).symlink_to("/dev/zero")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a link")
    with pytest.raises(KernelbookError, match=f"{name}.*not a regular file"):
        publishing.cut(root, "2027.06")


# ---------------------------------------------------------------- low: publish leaves site/ alone


def test_an_edition_is_built_outside_site():
    """mike builds with `mkdocs build --clean` into the config's site_dir: never the author's own build in site/."""
    from mkdocs.config import load_config

    edition = load_config(config_file=str(ROOT / publishing.CONFIG))
    plain = load_config(config_file=str(ROOT / "mkdocs.yml"))
    assert Path(edition["site_dir"]) != Path(plain["site_dir"])
    assert Path(edition["site_dir"]).is_relative_to(ROOT / ".kernelbook")


# ---------------------------------------------------------------- status --changed-since


@pytest.fixture
def broken(tmp_path) -> Path:
    """A book in git whose one snippet has an unreadable capture, not committed."""
    root = make_project(tmp_path / "book")
    write(root / "snippets/ch01/x.py", "results = {'n': 1}\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "book")
    write(root / "snippets/ch01/captures/x.cpu.json", "{not json\n")
    return root


def _one_line(done: subprocess.CompletedProcess, *words: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelbook: ") and "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def test_changed_since_an_empty_ref_is_refused_not_passed(broken):
    assert run_cli("status", "--changed-since=HEAD", root=broken).returncode == 1
    _one_line(run_cli("status", "--changed-since=", root=broken), "--changed-since", "empty")


@pytest.mark.parametrize("ref", ["HEAD..HEAD", "HEAD...HEAD", "--output=OUT", "no-such-ref"])
def test_changed_since_takes_one_commit_never_a_range_or_an_option(broken, ref):
    out = broken.parent / "written-by-git"
    _one_line(run_cli("status", f"--changed-since={ref.replace('OUT', str(out))}", root=broken), "--changed-since")
    assert not out.exists()


def test_changed_since_sees_a_capture_that_became_a_symlink(broken):
    capture = broken / "snippets/ch01/captures/x.cpu.json"
    git(broken, "add", "-A")
    git(broken, "commit", "-q", "-m", "capture")
    assert run_cli("status", "--changed-since=HEAD", root=broken).returncode == 0  # nothing changed since
    other = write(broken / "elsewhere.json", capture.read_text(encoding="utf-8"))
    capture.unlink()
    capture.symlink_to(other)
    done = run_cli("status", "--changed-since=HEAD", root=broken)
    assert done.returncode == 1 and "x.cpu.json" in done.stderr and "link" in done.stderr, done.stderr


# ---------------------------------------------------------------- low: reference_gpu is the plugin's option


def test_reference_gpu_is_read_from_the_kernelbook_plugins_options_only(tmp_path):
    from kernelbook.common.gpus import book_option, reference_gpu

    root = tmp_path / "book"
    write(root / "mkdocs.yml", "site_name: t\nextra:\n  reference_gpu: t4\n  repository: x/y\nplugins:\n  - search:\n"
                               "      reference_gpu: a100\n  - kernelbook:\n      notebooks: false\n"
                               "      reference_gpu: h200   # the book's\n")
    assert reference_gpu(root) == "h200" and book_option(root, "repository") is None
    write(root / "mkdocs.yml", "site_name: t\nextra:\n  reference_gpu: t4\nplugins:\n  - kernelbook:\n      notebooks: false\n")
    assert reference_gpu(root) is None
    write(root / "mkdocs.yml", "plugins:\n  kernelbook:\n    reference_gpu: 'h100'\nextra:\n  reference_gpu: t4\n")
    assert reference_gpu(root) == "h100"
    assert reference_gpu(ROOT) == "h200"  # the book's own
    (root / "mkdocs.yml").write_bytes(b"plugins:\n  - kernelbook:\n      reference_gpu: h\xe9\n")
    with pytest.raises(KernelbookError, match="mkdocs.yml: not UTF-8"):
        reference_gpu(root)


def test_the_edition_commands_refusals_are_one_line_exit_2(tmp_path):
    """Through the CLI, as a user meets them: no traceback, no exit 3."""
    root = repo(tmp_path / "book", "2026.12")
    _dirty(root)
    _one_line(run_cli("edition", "publish", "2026.12", root=root), "edition-2026.12", "git stash -u")
    _one_line(run_cli("edition", "list", "--branch=-x", root=root), "--branch")
    _one_line(run_cli("edition", "publish", "latest", "--branch", "main", root=root), "--branch main", "checked out")
