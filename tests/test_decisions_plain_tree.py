"""`kernelbook render` writes nothing when a page outside the chapters has a contradicted claim (issue 47)."""

from __future__ import annotations

from pathlib import Path

from conftest import MKDOCS_ENV, make_project, run_cli, write
from test_gpu_workflow import crafted


def _book(root: Path, claim: str) -> Path:
    """One language, one snippet with a CPU capture, and a claim on a page no chapter notebook repeats."""
    book = make_project(root)
    write(book / "mkdocs.yml", "site_name: t\nsite_url: https://example.org/t/\ntheme:\n  name: material\nplugins:\n  - kernelbook\n")
    write(book / "snippets/ch01/a.py", "print('a')\n")
    crafted(book, "ch01/a", "cpu")  # device_name "CPU (test)"
    write(book / "docs/index.md", "# Home\n\nSee [about](about.md).\n")
    write(book / "docs/about.md", f"# About\n\nIt ran on a [[kb:device ch01/a {claim}]].\n")
    return book


def test_a_contradicted_claim_on_a_page_outside_the_chapters_fails_the_render_and_writes_nothing(tmp_path):
    out = tmp_path / "plain"
    done = run_cli("render", str(out), root=_book(tmp_path / "book", "~ GPU"), **MKDOCS_ENV)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "ERROR: about.md: [[kb:device ch01/a ~ GPU]]: the cpu capture a.cpu.json says CPU (test)" in done.stderr
    assert "nothing written" in done.stderr and not out.exists()


def test_the_same_page_with_a_true_claim_renders(tmp_path):
    out = tmp_path / "plain"
    done = run_cli("render", str(out), root=_book(tmp_path / "book", "~ CPU"), **MKDOCS_ENV)
    assert done.returncode == 0, done.stderr[-3000:]
    (page,) = out.glob("*/about.md")  # the one language's tree
    assert "It ran on a " in page.read_text(encoding="utf-8") and "CPU (test)" in page.read_text(encoding="utf-8")
