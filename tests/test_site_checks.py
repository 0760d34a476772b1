"""The build proves the prose: break the book on purpose and the build must fail, naming why."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import MKDOCS_ENV, book_settings, cli_env, copy_project, mkdocs_build

CAPTURE = "snippets/ch01/captures/eager_profile.cpu.json"


@pytest.fixture
def book(tmp_path) -> Path:
    return copy_project(tmp_path / "book")


def build_fails(book: Path, tmp_path: Path) -> str:
    done = mkdocs_build(book, tmp_path / "site")
    assert done.returncode != 0, "the build should have failed"
    return done.stdout + done.stderr


def test_built_site_has_both_languages_and_anchors(built_site):
    ja = (built_site / "ch01" / "index.html").read_text()
    en = (built_site / "en" / "ch01" / "index.html").read_text()
    for anchor in ("two-numbers", "fusion", "torch-compile", "step-4-read-again", "summary"):
        assert f'id="{anchor}"' in ja and f'id="{anchor}"' in en
    assert 'class="headerlink"' in ja and "この節へのリンク" in ja and "Link to this section" in en
    assert '<html lang="ja"' in ja and '<html lang="en"' in en
    assert "CPU での実行結果です" in ja and "This is a CPU capture" in en
    # No output is typed by hand: the printed profiler table comes from the capture.
    table_line = json.loads((Path(__file__).parents[1] / CAPTURE).read_text())["stdout"][3]
    assert table_line.strip().split()[0] in ja


def test_contradicting_capture_fails_the_build_naming_page_claim_and_capture(book, tmp_path):
    # Test data in a throwaway copy: a "new torch" that launches a third kernel.
    path = book / CAPTURE
    raw = json.loads(path.read_text())
    session = raw["sessions"][-1]
    session["kernels"].append({"name": "aten::mul", "count": 1, "time_us": 1.0})
    session["launches"] += 1
    path.write_text(json.dumps(raw))
    log = build_fails(book, tmp_path)
    assert "ja/ch01/index.md" in log
    assert "[[kb:launches ch01/eager_profile == 2]]" in log
    assert "the cpu capture says 3" in log


def test_stale_capture_fails_the_build(book, tmp_path):
    snippet = book / "snippets/ch01/eager_profile.py"
    snippet.write_text(snippet.read_text() + "\nprint('edited')\n")
    log = build_fails(book, tmp_path)
    assert "ch01/index.md" in log and "eager_profile.cpu.json is stale (source changed)" in log


def test_missing_capture_fails_the_build(book, tmp_path):
    (book / "snippets/ch01/captures/first_call.cpu.json").unlink()
    log = build_fails(book, tmp_path)
    assert "[[kb:run ch01/first_call]]" in log and "first_call.cpu.json is missing" in log


def test_missing_snippet_fails_the_build(book, tmp_path):
    for lang in ("ja", "en"):
        page = book / f"docs/{lang}/ch01/index.md"
        page.write_text(page.read_text().replace("[[kb:run ch01/first_kernel]]", "[[kb:run ch01/no_such_snippet]]"))
    log = build_fails(book, tmp_path)
    assert "no snippet 'ch01/no_such_snippet'" in log


def test_twin_drift_fails_the_build(book, tmp_path):
    (book / "docs/en/instructors.md").unlink()
    page = book / "docs/en/ch01/index.md"
    page.write_text(page.read_text().replace("{ #fusion }", "{ #fusion-en }", 1))
    log = build_fails(book, tmp_path)
    assert "docs/ja/instructors.md has no English twin" in log
    assert "anchors differ" in log


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fetch(url: str) -> str:
    # mkdocs serve holds requests while it rebuilds, which can take a while on 2 busy cores
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read().decode("utf-8")


def test_serve_reloads_on_capture_change_and_never_executes(book, tmp_path):
    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:  # a file, not a pipe: an unread pipe could stall the server
        proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=book, env=cli_env(**MKDOCS_ENV), stdout=out, stderr=subprocess.STDOUT, text=True,
        )
    try:
        deadline, serving = time.monotonic() + 180, None
        while time.monotonic() < deadline and not serving:
            time.sleep(0.5)  # "Serving on http://127.0.0.1:PORT/<site_url path>/"
            serving = re.search(r"Serving on (\S+)", log.read_text())
        assert serving, f"mkdocs serve did not come up:\n{log.read_text()[-2000:]}"
        serving = serving.group(1)
        time.sleep(2)  # let the watcher settle before the edit
        url = serving + "en/ch01/"
        page = _fetch(url)
        assert "kb-example" in page, "mkdocs serve did not come up"
        captures = sorted((book / "snippets").rglob("captures/*"))
        before = {p: p.stat().st_mtime_ns for p in captures}
        # Test data in a throwaway copy: change what the capture says was printed.
        path = book / "snippets/ch01/captures/first_kernel.cpu.json"
        raw = json.loads(path.read_text())
        raw["stdout"] = ["device: cpu", "c = [reloaded from an edited capture]"]
        path.write_text(json.dumps(raw))
        deadline = time.monotonic() + 240  # a rebuild of both languages on 2 loaded cores
        while time.monotonic() < deadline and "reloaded from an edited capture" not in page:
            time.sleep(0.5)
            page = _fetch(url)
        assert "reloaded from an edited capture" in page, log.read_text()[-2000:]
        after = {p: p.stat().st_mtime_ns for p in captures}
        changed = [p.name for p in captures if before[p] != after[p]]
        assert changed == ["first_kernel.cpu.json"], f"serve wrote captures: {changed}"
        assert not (book / ".kernelbook" / "failures").exists()
        # the notebooks now show the edited output, and still link to the published site, not to serve's address
        notebook = (book / "docs/en/ch01/notebook.ipynb").read_text(encoding="utf-8")
        assert "reloaded from an edited capture" in notebook
        assert f"{book_settings(book).site_url}en/ch01/" in notebook and "127.0.0.1" not in notebook
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_every_figure_is_on_both_chapter_pages_with_the_captures_data(built_site):
    """Drawn at build time from the captures the page shows: the timeline has one kernel bar per launch."""
    from kernelbook.site.book import load_book

    root = Path(__file__).parents[1]
    book = load_book(root)
    launches = sum(book[s].shown.last_session.launches for s in ("ch01/eager_profile", "ch01/compiled_profile"))
    rows = len(book["ch01/size_sweep"].shown.data["rows"])
    for lang, page in (("ja", built_site / "ch01/index.html"), ("en", built_site / "en/ch01/index.html")):
        html = page.read_text()
        figures = dict(re.findall(r'<figure class="kb-figure" id="kb-figure-(\w+)">(.*?)</figure>', html, re.S))
        assert set(figures) == {"traffic", "timeline", "sweep"}, lang
        # each figure holds one drawing per layout (a desktop's, a phone's), and each drawing all of it
        drawings = {name: re.findall(r"<svg .*?</svg>", figure, re.S) for name, figure in figures.items()}
        assert {name: [re.search(r"kb-layout-(\w+)", svg).group(1) for svg in svgs] for name, svgs in drawings.items()} == \
            dict.fromkeys(figures, ["wide", "narrow"])
        for svg in (svg for svgs in drawings.values() for svg in svgs):
            assert f'lang="{lang}"' in svg and "<title" in svg
        for timeline, traffic, sweep in zip(drawings["timeline"], drawings["traffic"], drawings["sweep"]):
            assert timeline.count('class="kb-kernel-bar') == launches
            assert len(re.findall(r'class="kb-transfer', traffic)) == 5 + 3
            assert len(re.findall(r'class="kb-point"', sweep)) == 2 * 2 * rows  # 2 charts × 2 series


def test_build_without_capture_writes_nothing_into_docs(book, tmp_path):
    """`kernelbook build --no-capture` renders what is committed: a stale notebook fails it, untouched."""
    from conftest import run_cli

    for lang in ("ja", "en"):
        page = book / f"docs/{lang}/ch01/index.md"
        page.write_text(page.read_text().replace("{ #summary }", "(edited) { #summary }", 1))
    notebook = book / "docs/ja/ch01/notebook.ipynb"
    before = notebook.read_bytes()
    done = run_cli("build", "--no-capture", root=book, **MKDOCS_ENV)
    assert done.returncode != 0
    assert "docs/ja/ch01/notebook.ipynb is out of date" in done.stdout + done.stderr
    assert notebook.read_bytes() == before


def test_the_footer_goes_chapter_to_chapter_and_notebooks_stay_reachable(built_site):
    """Prev/next skip the notebooks (a notebook is not the next chapter); each notebook's footer
    leads back to its chapter and on; the notebook stays in the navigation and its chapter links it."""
    from urllib.parse import urljoin

    from bs4 import BeautifulSoup

    def page(url: str) -> BeautifulSoup:
        return BeautifulSoup((built_site / url.strip("/") / "index.html").read_text(encoding="utf-8"), "html.parser")

    def footer(url: str) -> dict[str, str]:
        links = page(url).select("a.md-footer__link")
        return {kind: urljoin(url, a["href"]) for a in links for kind in ("prev", "next") if f"md-footer__link--{kind}" in a["class"]}

    for lang in ("", "en/"):
        home, chapter, notebook, instructors = f"/{lang}", f"/{lang}ch01/", f"/{lang}ch01/notebook/", f"/{lang}instructors/"
        assert footer(home) == {"next": chapter}
        assert footer(chapter) == {"prev": home, "next": instructors}
        assert footer(notebook) == {"prev": chapter, "next": instructors}
        assert footer(instructors) == {"prev": chapter}
        soup = page(chapter)
        assert notebook in {urljoin(chapter, a["href"]) for a in soup.select("nav.md-nav--primary a.md-nav__link")}
        assert notebook in {urljoin(chapter, a["href"]) for a in soup.select(".kb-notebook a")}
