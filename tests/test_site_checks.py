"""The build proves the prose: break the book on purpose and the build must fail, naming why."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import MKDOCS_ENV, ROOT, book_settings, cli_env, copy_project, mkdocs_build

CAPTURE = "snippets/ch01/captures/eager_profile.cpu.json"


@pytest.fixture
def book(tmp_path) -> Path:
    return copy_project(tmp_path / "book")


def build_fails(book: Path, tmp_path: Path) -> str:
    done = mkdocs_build(book, tmp_path / "site")
    assert done.returncode != 0, "the build should have failed"
    return done.stdout + done.stderr


def printed_block(page_html: str, snippet: str) -> list[str]:
    """The lines of the output block of the example ``snippet`` on a built page, as a browser shows them."""
    from bs4 import BeautifulSoup

    example = BeautifulSoup(page_html, "html.parser").find(id="kb-" + snippet.replace("/", "-").replace("_", "-"))
    assert example is not None, f"no example {snippet} on the page"
    label = next(p for p in example.find_all("p", class_="kb-label"))
    block = label.find_next("pre")
    assert block is not None and block.find_parent(id=example["id"]) is example, f"{snippet}: no output block under its label"
    return block.get_text().rstrip("\n").split("\n")


def test_built_site_has_both_languages_and_anchors(built_site):
    ja = (built_site / "ch01" / "index.html").read_text()
    en = (built_site / "en" / "ch01" / "index.html").read_text()
    for anchor in ("two-numbers", "fusion", "torch-compile", "step-4-read-again", "summary", "exercises"):
        assert f'id="{anchor}"' in ja and f'id="{anchor}"' in en
    assert 'class="headerlink"' in ja and "この節へのリンク" in ja and "Link to this section" in en
    assert '<html lang="ja"' in ja and '<html lang="en"' in en
    assert "CPU での実行結果です" in ja and "This is a CPU capture" in en
    # No output is typed by hand: every line the programs printed, in order, in each example's output block.
    root = Path(__file__).parents[1]
    for snippet in ("ch01/first_kernel", "ch01/eager_profile", "ch01/compiled_profile", "ch01/first_call", "ch01/size_sweep"):
        lines = json.loads((root / f"snippets/{snippet.split('/')[0]}/captures/{snippet.split('/')[1]}.cpu.json").read_text())["stdout"]
        printed = "\n".join(lines).rstrip("\n").split("\n")  # trailing blank lines are not shown
        assert len(printed) >= 2
        for page in (ja, en):
            assert printed_block(page, snippet) == printed, snippet


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
    assert "the cpu capture eager_profile.cpu.json says 3" in log


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


LOOKS_LIKE = re.compile(r"\[\[\s*kb\s*:", re.IGNORECASE)  # the test's own reading: any case, closed or not


def _prose_of_html(markup: str) -> str:
    """What a reader reads of ``markup`` outside code (and outside scripts and styles, which are not shown)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    for tag in soup.find_all(["pre", "code", "script", "style"]):
        tag.decompose()
    return soup.get_text(" ")


def test_no_directive_reaches_a_built_page_a_notebook_or_the_search_index_as_written(built_site):
    """Every HTML page, both search indexes and every committed notebook: no ``[[kb:`` outside code."""
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        found = LOOKS_LIKE.findall(_prose_of_html(page.read_text(encoding="utf-8")))
        assert not found, f"{page.relative_to(built_site)} shows a directive as written"
    indexes = sorted(built_site.rglob("search_index.json"))
    assert len(indexes) == 2
    for index in indexes:
        for entry in json.loads(index.read_text(encoding="utf-8"))["docs"]:
            assert not LOOKS_LIKE.search(_prose_of_html(entry["title"]) + _prose_of_html(entry["text"])), entry["location"]
    notebooks = sorted((ROOT / "docs").rglob("notebook.ipynb"))
    assert len(notebooks) >= 8
    for path in notebooks:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                prose = re.sub(r"^(```|~~~).*?^\1", "", "".join(cell["source"]), flags=re.M | re.S)
                prose = re.sub(r"(`+).+?\1", "", prose)
                assert not LOOKS_LIKE.search(prose), f"{path.relative_to(ROOT)}: cell {cell['id']}"


# HTML's parsing rules: the start tag of one of these closes an open <p>
CLOSES_P = {"address", "article", "aside", "blockquote", "center", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset",
            "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "li", "listing",
            "main", "menu", "nav", "ol", "p", "plaintext", "pre", "search", "section", "summary", "table", "ul", "xmp"}


def paragraphs_broken(markup: str) -> list[str]:
    """Where a browser would break a paragraph: a block opened inside a ``<p>`` (which closes it there) and
    the ``</p>`` left over, which it turns into an empty paragraph of its own."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Paragraphs(HTMLParser):
        open_p = False

        def handle_starttag(self, tag, attrs):
            if tag in CLOSES_P and self.open_p:
                found.append(f"line {self.getpos()[0]}: <{tag} class={dict(attrs).get('class')!r}> inside a <p>")
            self.open_p = tag == "p" or (self.open_p and tag not in CLOSES_P)

        def handle_endtag(self, tag):
            if tag == "p":
                if not self.open_p:
                    found.append(f"line {self.getpos()[0]}: a </p> with no <p> open")
                self.open_p = False

    Paragraphs().feed(markup)
    return found


def test_no_page_has_a_block_inside_a_paragraph(built_site):
    """Every page of both languages, the chapters' examples (their provenance, kernel panels, changes
    and GPU doors inside tabs) included: a paragraph holds no block, and every </p> closes one."""
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 20 and any("kb-gpu-door" in p.read_text(encoding="utf-8") for p in pages)
    broken = {str(p.relative_to(built_site)): found[:3] for p in pages if (found := paragraphs_broken(p.read_text(encoding="utf-8")))}
    assert not broken, broken


def test_a_wrapper_round_a_tab_block_goes_and_nothing_else():
    from kernelbook.site.directives.run import unwrapped

    door = '<section class="kb-gpu-door"><p class="kb-label">t</p><p>u</p></section>'
    assert unwrapped(f"<p>{door}</p>") == door
    both = '<p><p class="kb-provenance">A</p></p>\n<p><details class="kb-previous"><summary>s</summary><ul><li>l</li></ul></details></p>'
    assert unwrapped(both) == '<p class="kb-provenance">A</p>\n<details class="kb-previous"><summary>s</summary><ul><li>l</li></ul></details>'
    # a block whose paragraph goes on is not a wrapper, and is never joined to a later wrapped block
    joined = '<p><p class="kb-provenance">A</p>\ntail</p><p>x</p><p><p class="kb-provenance">B</p></p>'
    assert unwrapped(joined) == '<p><p class="kb-provenance">A</p>\ntail</p><p>x</p><p class="kb-provenance">B</p>'
    for kept in ("<p>plain</p>", '<p><p class="other">o</p></p>', '<p><section class="kb-kernels">k</section> and text</p>'):
        assert unwrapped(kept) == kept


def test_the_paragraph_check_finds_what_a_browser_splits():
    assert paragraphs_broken('<p><section class="kb-gpu-door"><p>a</p></section></p>') == [
        "line 1: <section class='kb-gpu-door'> inside a <p>", "line 1: a </p> with no <p> open"]
    assert paragraphs_broken("<p>a <code>b</code></p><section><p>c</p></section><div><p>d</p></div>") == []


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_quiz_answers_show_the_captured_kernel_names(built_site, lang):
    """A claim in a prediction's answer renders like any other: the kernel the capture ran, by its short name."""
    from bs4 import BeautifulSoup

    page = BeautifulSoup((built_site / ("" if lang == "ja" else "en") / "ch01" / "index.html").read_text(encoding="utf-8"), "html.parser")
    answers = [box for box in page.select("details.success")]
    assert len(answers) >= 7
    shown = [code.get_text() for box in answers for code in box.select("code.kb-kernel")]
    for snippet, session, needle in (("ex_sigmoid", 1, "fused_add_mul_sigmoid"), ("ex_sum", 1, "cpp_fused_sum")):
        raw = json.loads((ROOT / "snippets" / "ch01" / "captures" / f"{snippet}.cpu.json").read_text())
        name = next(k["name"] for k in raw["sessions"][session]["kernels"] if needle in k["name"])
        assert re.sub(r"^graph_\d+_", "", name) in shown or name in shown, (name, shown)  # shown without inductor's graph prefix
    sessions = "profiler session 2 of 2" if lang == "en" else "プロファイラのセッション 2 / 2"
    assert sessions in page.get_text()  # counted from one, as a reader counts


def test_a_directive_that_does_not_render_fails_the_build_naming_page_and_line(book, tmp_path):
    """Unknown, upper-case, unclosed, in a prediction's answer, in the front matter's objectives (which no
    directive render reads: the built page's check finds it), a check that can never fail."""
    ja = book / "docs/ja/ch01/index.md"  # the language built first
    text = ja.read_text(encoding="utf-8")
    assert "~ fused_add_mul_sigmoid]]" in text and "objectives:\n  - " in text
    text = text.replace("~ fused_add_mul_sigmoid]]", "~ fused_nothing_like_it]]")  # a false claim inside a quiz answer
    line = text.count("\n") + 2
    text += ("\nIt launches [[KB:launches ch01/eager_profile == 2]] kernels, [[kb:launches ch01/eager_profile != nan]] "
             "and [[kb:launches ch01/eager_profile == 2\n\nThis paragraph must stay. `[[kb:quoted as written]]`\n")
    ja.write_text(text.replace("objectives:\n  - ", "objectives:\n  - 目標 [[kb:nope]] ", 1), encoding="utf-8")
    log = build_fails(book, tmp_path)
    assert "ja/ch01/index.md: [[kb:kernel ch01/ex_sigmoid#1 ~ fused_nothing_like_it]]: no kernel containing 'fused_nothing_like_it'" in log
    assert f"ja/ch01/index.md:{line}: [[KB:launches ch01/eager_profile == 2]]: not a directive kernelbook knows" in log
    assert f"ja/ch01/index.md:{line}: [[kb:launches ch01/eager_profile != nan]]: `!= nan` compares with nan" in log
    assert f"ja/ch01/index.md:{line}: [[kb:launches ch01/eager_profile == 2: a directive left unclosed" in log
    assert "ja/ch01/index.md: [[kb:nope]]: reaches the built page as written" in log  # the objectives bypass the render
    assert "ja/ch01/index.md: notebook cell objectives: [[kb:nope]]: reaches the notebook as written" in log
    assert "quoted as written" not in log  # inline code shows it, as written


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fetch(url: str) -> str:
    # mkdocs serve holds requests while it rebuilds, which can take a while on 2 busy cores
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read().decode("utf-8")


def test_serve_reloads_on_capture_change_and_never_executes(book, tmp_path):
    """`kernelbook serve`: an edited capture rebuilds the pages once; the notebooks it changed go into docs/ when it stops."""
    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:  # a file, not a pipe: an unread pipe could stall the server
        proc = subprocess.Popen(
            [sys.executable, "-m", "kernelbook", "serve", "--dev-addr", f"127.0.0.1:{port}"],
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
        # one rebuild: while serving, the changed notebook is not written into docs/, where the server
        # would see a change and build (and reload the reader's browser) a second time
        notebook = book / "docs/en/ch01/notebook.ipynb"
        assert "reloaded from an edited capture" not in notebook.read_text(encoding="utf-8")
        time.sleep(5)
        assert log.read_text().count("Detected file changes") == 1, log.read_text()[-3000:]
        assert "docs/en/ch01/notebook.ipynb changed: written when the server stops" in log.read_text()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 143
        # the notebooks now show the edited output, and still link to the published site, not to serve's address
        written = notebook.read_text(encoding="utf-8")
        assert "reloaded from an edited capture" in written and "kernelbook: wrote docs/en/ch01/notebook.ipynb" in log.read_text()
        assert f"{book_settings(book).site_url}en/ch01/" in written and "127.0.0.1" not in written
        assert "Traceback" not in log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
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
            assert len(re.findall(r'class="kb-point"', sweep)) == 2 * 3 * rows  # 2 charts × 3 series (eager, compiled, copy)


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

    names = sorted(p.parent.name for p in ROOT.glob("docs/ja/ch*/index.md"))  # ch01, ch02, ...
    for lang in ("", "en/"):
        home, glossary, instructors = f"/{lang}", f"/{lang}glossary/", f"/{lang}instructors/"
        chain = [home, *(f"/{lang}{name}/" for name in names), glossary, instructors]  # the footer's order
        assert footer(home) == {"next": chain[1]}
        assert footer(glossary) == {"prev": chain[-3], "next": instructors}
        changes = f"/{lang}changes/"  # what changed between editions, last
        assert footer(instructors) == {"prev": glossary, "next": changes}
        assert footer(changes) == {"prev": instructors}
        for before, chapter, after in zip(chain, chain[1:-2], chain[2:]):
            notebook = chapter + "notebook/"
            assert footer(chapter) == {"prev": before, "next": after}
            assert footer(notebook) == {"prev": chapter, "next": after}
            soup = page(chapter)
            assert notebook in {urljoin(chapter, a["href"]) for a in soup.select("nav.md-nav--primary a.md-nav__link")}
            assert notebook in {urljoin(chapter, a["href"]) for a in soup.select(".kb-notebook a")}


# ---------------------------------------------------------------- device-scoped claims, broken on purpose


CRAFTED_KEY = "h100_crafted_by_a_test"  # gpus.gpu_key of the crafted captures' device name: one file per GPU model


def craft_cuda(book: Path, stem: str, edit) -> None:
    """Test data in a throwaway copy: a "CUDA capture" of ``stem``, made from its CPU capture
    (same source hash, so it is fresh), relabelled, then changed by ``edit(raw)``."""
    raw = json.loads((book / f"snippets/ch01/captures/{stem}.cpu.json").read_text())
    raw["device"] = "cuda"
    raw["environment"].update(device_kind="cuda", device_name="NVIDIA H100 (crafted by a test)", cuda="12.8", compute_capability="9.0")
    for session in raw["sessions"]:
        session["device_kind"] = "cuda"
    raw["trace_files"] = []
    edit(raw)
    for session in raw["sessions"]:
        session["launches"] = sum(k["count"] for k in session["kernels"])
    (book / f"snippets/ch01/captures/{stem}.cuda-{CRAFTED_KEY}.json").write_text(json.dumps(raw))


def kernels(*names: str) -> list[dict]:
    return [{"name": n, "count": 1, "time_us": 1.0} for n in names]


def test_each_kind_of_scoped_claim_fails_the_build_naming_page_claim_and_capture(book, tmp_path):
    def sweep(raw):  # at the largest length: compiled only 1.1x eager, at half the copy's bandwidth
        raw["data"]["rows"][-1].update(eager_s=1.1e-3, compiled_s=1e-3)
        raw["data"].update(compiled_bandwidth_bytes_per_s=1e12, copy_bandwidth_bytes_per_s=2e12)

    def one_split_kernel(raw):  # the compiled sum in one kernel, where the page predicts two
        raw["sessions"][1]["kernels"] = kernels("triton_red_fused_sum_0")

    def no_copy(raw):  # .item() without a device-to-host copy
        raw["data"]["device_to_host_copies"] = 0

    def four_eager_kernels(raw):  # session #0 of an unscoped prediction, on a CUDA capture
        raw["sessions"][0]["kernels"] = kernels("mul", "add", "sigmoid", "extra")

    craft_cuda(book, "size_sweep", sweep)
    craft_cuda(book, "ex_sum", one_split_kernel)
    craft_cuda(book, "ex_item", no_copy)
    craft_cuda(book, "ex_sigmoid", four_eager_kernels)
    cpu_sum = book / "snippets/ch01/captures/ex_sum.cpu.json"  # and the CPU's compiled sum split in two
    raw = json.loads(cpu_sum.read_text())
    raw["sessions"][1]["kernels"] = kernels("graph_0_cpp_fused_sum_0", "graph_0_cpp_fused_sum_1")
    raw["sessions"][1]["launches"] = 2
    cpu_sum.write_text(json.dumps(raw))
    log = build_fails(book, tmp_path)
    crafted = "(NVIDIA H100 (crafted by a test), torch"
    for lang in ("ja",):  # the build stops after the first language that fails: Japanese, built first
        page = f"{lang}/ch01/index.md: "
        for claim, says in (
            ("[[kb:ratio ch01/size_sweep rows.-1.eager_s / rows.-1.compiled_s @cuda >= 1.4]]", "the cuda capture size_sweep.cuda-" + CRAFTED_KEY + ".json says 1.1× " + crafted),
            ("[[kb:ratio ch01/size_sweep compiled_bandwidth_bytes_per_s / copy_bandwidth_bytes_per_s @cuda >= 0.7]]", "the cuda capture size_sweep.cuda-" + CRAFTED_KEY + ".json says 0.50× " + crafted),
            ("[[kb:predict ch01/ex_sum#1 launches @cuda == 2]]", "the cuda capture ex_sum.cuda-" + CRAFTED_KEY + ".json says 1 " + crafted),
            ("[[kb:predict ch01/ex_item value device_to_host_copies @cuda == 1]]", "the cuda capture ex_item.cuda-" + CRAFTED_KEY + ".json says 0 " + crafted),
            ("[[kb:predict ch01/ex_sigmoid#0 launches == 3]]", "the cuda capture ex_sigmoid.cuda-" + CRAFTED_KEY + ".json says 4 " + crafted),
            ("[[kb:predict ch01/ex_sum#1 launches @cpu == 1]]", "the cpu capture ex_sum.cpu.json says 2 (CPU"),
        ):
            assert page + claim + ": " + says in log, f"not reported: {page}{claim}\n{log[-4000:]}"
    assert not unchecked(log, "ch01")  # every scoped claim of chapter 1 had its capture


def test_scoped_claims_hold_on_a_crafted_gpu_capture_that_bears_them_out(book, tmp_path):
    """The same claims pass where a (crafted) CUDA capture says what the page does: nothing left unchecked."""
    def sweep(raw):
        raw["data"]["rows"][-1].update(eager_s=1.7e-3, compiled_s=1e-3)
        raw["data"].update(compiled_bandwidth_bytes_per_s=1.8e12, copy_bandwidth_bytes_per_s=2e12)

    craft_cuda(book, "size_sweep", sweep)
    craft_cuda(book, "ex_sum", lambda raw: raw["sessions"][1].update(kernels=kernels("triton_red_fused_sum_0", "triton_per_fused_sum_1")))
    craft_cuda(book, "ex_item", lambda raw: raw["data"].update(device_to_host_copies=1))
    done = mkdocs_build(book, tmp_path / "site")
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-4000:]
    assert not unchecked(log, "ch01")
    page = (tmp_path / "site/en/ch01/index.html").read_text()
    assert "GPU capture needed" not in page and ">1.7×</span>" in page and ">0.90×</span>" in page
    ja = (tmp_path / "site/ch01/index.html").read_text()
    assert ">1.7 倍</span>" in ja and "GPU のキャプチャが必要" not in ja  # exactly 1.7: no 約
    instructors = (tmp_path / "site/en/instructors/index.html").read_text()
    rows = re.findall(r'<tr data-checked="(\w+)"[^>]*>.*?<code>(.*?)</code>', instructors)
    assert [checked for checked, text in rows if "ch01/" in text] == ["true"] * len(scoped_claims("ch01"))
    total, checked = len(rows), sum(c == "true" for c, _ in rows)  # other chapters' have no CUDA capture
    assert f"{checked} of the {total} device-scoped claims and questions are checked now." in instructors


def scoped_claims(chapter: str, kinds: str = r"\w+", device: str = "cuda|cpu") -> list[str]:
    """The device-scoped claims and questions the chapter's English page holds, as written."""
    text = (ROOT / "docs/en" / chapter / "index.md").read_text(encoding="utf-8")
    return re.findall(rf"\[\[kb:(?:{kinds}) [^\]]*@(?:{device})\b[^\]]*\]\]", text)


def unchecked(log: str, chapter: str) -> list[str]:
    """The build's notes on ``chapter``'s claims that no fresh capture of their device checked."""
    return [line for line in log.splitlines() if f"/{chapter}/index.md: " in line and "unchecked on" in line]


def test_the_build_lists_what_no_fresh_capture_checks(built_site):
    """With CPU captures only, the GPU-only claims are listed, not failed: on the instructors' page, in both languages."""
    en = (built_site / "en/instructors/index.html").read_text()
    ja = (built_site / "instructors/index.html").read_text()
    rows = re.findall(r'<tr data-checked="(\w+)"[^>]*>.*?<code>(.*?)</code>', en)
    scoped = [text for _, text in rows]
    assert len([t for t in scoped if "ch01/" in t]) == len(scoped_claims("ch01")) and all(re.search(r" @(cuda|cpu|sm\d+|reference)\b", t) for t in scoped)
    assert {checked for checked, text in rows if "@cuda" in text} == {"false"}  # no CUDA capture in the checkout
    assert "predicted: not yet measured (no fresh CUDA capture)" in en and "予想のみ: CUDA の新しいキャプチャがなく未計測" in ja
    assert "<td>&lt; 1×</td>" in en and "<td>< " not in en  # a prediction's comparison, escaped as HTML
    chapter = (built_site / "en/ch01/index.html").read_text()
    inline = scoped_claims("ch01", kinds="ratio|value", device="cuda")  # shown in a sentence, not a quiz
    compared = [c for c in inline if re.search(r"(==|!=|>=|<=|>|<|~) *\S+\]\]$", c)]  # shown as its prediction (predictions.py)
    assert len(compared) >= 2 and chapter.count('<span class="kb-value kb-predicted"') == len(compared)
    assert chapter.count('kb-needs-capture" title="cuda">GPU capture needed<') == len(inline) - len(compared)


def test_the_instructors_objectives_and_device_checks_link_where_the_site_is_served(built_site):
    """Like the section index, the objectives' and the device checks' links are relative to the
    instructors' page (a local or preview build never sends a reader to site_url), and land on
    the chapter's own section."""
    for prefix in ("", "en/"):
        page = (built_site / prefix / "instructors/index.html").read_text(encoding="utf-8")
        objectives = re.findall(r'<p class="kb-objectives-page"><a href="([^"]+)">', page)
        checks = re.findall(r'<tr data-checked="\w+"[^>]*><td><a href="([^"]+)">', page)
        names = sorted(p.parent.name for p in ROOT.glob("docs/ja/ch*/index.md"))
        assert objectives == [f"../{name}/" for name in names], prefix
        assert all(re.fullmatch(r"\.\./ch\d+/#[\w-]+", href) for href in checks), (prefix, checks)
        assert len([href for href in checks if href.startswith("../ch01/")]) == len(scoped_claims("ch01")), (prefix, checks)
        for href in checks:
            chapter = (built_site / prefix / href[3:].split("#")[0] / "index.html").read_text(encoding="utf-8")
            assert f'id="{href.split("#")[1]}"' in chapter, href
