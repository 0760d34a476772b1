"""A failing build damages nothing: not the committed notebooks in docs/, not the last good site/.

Each test breaks a copy of the book in a way that also changes what its notebooks would
hold (an edited capture, a missing one, a page running a snippet that does not exist),
then builds it with `kernelbook build` and with plain `mkdocs build`.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from conftest import MKDOCS_ENV, copy_project, mkdocs_build, run_cli

CLAIM = "[[kb:launches ch01/eager_profile == 99]]"  # contradicted by every capture


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def edit_output(book: Path) -> None:
    """Test data in a throwaway copy: what a capture says was printed (the notebooks show it)."""
    path = book / "snippets/ch01/captures/first_kernel.cpu.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["stdout"] = ["device: cpu", "c = [an edited capture]"]
    path.write_text(json.dumps(raw), encoding="utf-8")


def contradict(book: Path) -> None:
    for lang in ("ja", "en"):
        page = book / f"docs/{lang}/ch01/index.md"
        page.write_text(page.read_text(encoding="utf-8") + f"\n{CLAIM}\n", encoding="utf-8")


def missing_capture(book: Path) -> None:
    (book / "snippets/ch01/captures/first_call.cpu.json").unlink()


def ghost_snippet(book: Path) -> None:
    for lang in ("ja", "en"):
        page = book / f"docs/{lang}/ch01/index.md"
        page.write_text(page.read_text(encoding="utf-8") + "\n[[kb:run ch01/ghost]]\n", encoding="utf-8")


BREAKAGES = {
    "claim_contradicted": lambda book: (edit_output(book), contradict(book)),
    "capture_missing": lambda book: (edit_output(book), missing_capture(book)),
    "snippet_missing": lambda book: (edit_output(book), ghost_snippet(book)),
}


@pytest.fixture
def book(tmp_path) -> Path:
    return copy_project(tmp_path / "book")


@pytest.mark.parametrize("breakage", BREAKAGES)
def test_a_failing_mkdocs_build_changes_nothing_in_docs(book, tmp_path, breakage):
    BREAKAGES[breakage](book)
    docs = snapshot(book / "docs")
    done = mkdocs_build(book, tmp_path / "site")  # plain `mkdocs build --strict`
    assert done.returncode != 0, "the build should have failed"
    assert snapshot(book / "docs") == docs, "a failing build rewrote files in docs/"


def test_a_failing_kernelbook_build_keeps_docs_and_the_last_good_site(book):
    """`kernelbook build` builds into a temporary folder and swaps it in only on success."""
    site = book / "site"
    done = run_cli("build", root=book, **MKDOCS_ENV)  # nothing stale: no snippet runs
    assert done.returncode == 0, done.stderr[-3000:]
    good = snapshot(site)
    assert "ch01/index.html" in good and "en/ch01/index.html" in good
    assert stat.S_IMODE(site.stat().st_mode) == 0o755  # not mkdtemp's 0700: a web server serves it as it is
    BREAKAGES["claim_contradicted"](book)
    docs = snapshot(book / "docs")
    done = run_cli("build", root=book, **MKDOCS_ENV)
    assert done.returncode == 1, done.stderr[-3000:]
    assert CLAIM in done.stderr
    assert snapshot(book / "docs") == docs
    assert snapshot(site) == good, "the last good site/ was damaged by a failing build"
    assert not list(book.glob(".site-*")), "a temporary site folder was left behind"
    # fixed: the build succeeds, writes the notebook the edited capture changed, and replaces the site
    for lang in ("ja", "en"):
        page = book / f"docs/{lang}/ch01/index.md"
        page.write_text(page.read_text(encoding="utf-8").replace(f"\n{CLAIM}\n", ""), encoding="utf-8")
    done = run_cli("build", root=book, **MKDOCS_ENV)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "c = [an edited capture]" in (book / "docs/en/ch01/notebook.ipynb").read_text(encoding="utf-8")
    assert "an edited capture" in (site / "en/ch01/index.html").read_text(encoding="utf-8")
    assert not list(book.glob(".site-*"))


def test_a_failing_build_still_renders_the_notebook_it_would_write(book, tmp_path):
    """Nothing is written, yet the pages built before the failure show what the captures say."""
    BREAKAGES["claim_contradicted"](book)
    site = tmp_path / "site"
    mkdocs_build(book, site)
    notebook = site / "ch01/notebook.ipynb"  # the download beside the chapter page: the regenerated notebook, not docs/'s
    assert notebook.is_file(), "the failing build wrote no notebook beside the chapter page"
    assert "an edited capture" in notebook.read_text(encoding="utf-8")
    page = site / "ch01/notebook/index.html"  # and the rendered notebook page shows it too
    assert page.is_file() and "an edited capture" in page.read_text(encoding="utf-8")
    assert "an edited capture" not in (book / "docs/ja/ch01/notebook.ipynb").read_text(encoding="utf-8")


def test_notebooks_command_refuses_an_inconsistent_book(book):
    """`kernelbook notebooks` on a book missing a capture: one line, exit 2, nothing written."""
    BREAKAGES["capture_missing"](book)
    docs = snapshot(book / "docs")
    done = run_cli("notebooks", root=book)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "first_call" in lines[0], done.stderr
    assert snapshot(book / "docs") == docs


def test_a_new_chapter_notebook_is_written_by_the_first_good_build(book, tmp_path):
    """A notebook docs/ does not have yet is a page of the very build that writes it."""
    for lang in ("ja", "en"):
        (book / f"docs/{lang}/ch01/notebook.ipynb").unlink()
    done = mkdocs_build(book, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert done.returncode == 0, done.stderr[-3000:]
    assert (book / "docs/en/ch01/notebook.ipynb").is_file() and (book / "docs/ja/ch01/notebook.ipynb").is_file()
    assert (tmp_path / "site/en/ch01/notebook/index.html").is_file()
    assert run_cli("notebooks", "--check", root=book).returncode == 0
