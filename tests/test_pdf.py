"""``kernelbook pdf``: the book as one PDF per language, checked with poppler's tools.

The PDFs are printed once per session from the site ``built_site`` (conftest.py) already
built, by the command a user runs (``kernelbook pdf --site``), in a child process: Playwright's
sync API allows one browser per process, and the browser tests hold theirs. What is checked is
what a reader gets: the Japanese font embedded, every chapter and section title in order, every
line of every snippet whole and nothing past the right margin, every tab's label, the page
size, the outline, links inside the book, figures as vectors (no bitmap at all).
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import CHROMIUM, ROOT, copy_project, run_cli

LANGS = {"ja": "", "en": "en/"}
POPPLER = ("pdffonts", "pdftotext", "pdfinfo", "pdftohtml", "pdfimages")
A4_WIDTH_PT = 595.28
RIGHT_MARGIN_PT = 17 / 25.4 * 72  # print.css's @page margin


def _poppler(*args: str) -> str:
    missing = [tool for tool in POPPLER if shutil.which(tool) is None]
    assert not missing, f"{', '.join(missing)} missing: apt-get install poppler-utils (make test installs it)"
    return subprocess.run(args, capture_output=True, text=True, check=True, timeout=120).stdout


@pytest.fixture(scope="module")
def pdfs(built_site, tmp_path_factory) -> Path:
    if CHROMIUM is None:
        pytest.skip("no `chromium` on PATH (Debian: apt-get install chromium); never `playwright install`")
    out = tmp_path_factory.mktemp("pdf")
    done = run_cli("pdf", "--site", str(built_site), "--out", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    for lang in LANGS:
        assert f"wrote {out / f'kernelbook-{lang}.pdf'}" in done.stdout
    print(f"\nPDFs: {out}")
    return out


@pytest.fixture(scope="module")
def texts(pdfs) -> dict[str, str]:
    return {lang: _poppler("pdftotext", "-enc", "UTF-8", str(pdfs / f"kernelbook-{lang}.pdf"), "-") for lang in LANGS}


@pytest.fixture(scope="module")
def layouts(pdfs) -> dict[str, str]:
    """The text as laid out on the page (a code line and its comment on one line, as printed), less each page's
    running header and page number, so that a line wrapped across a page break reads whole."""
    texts = {lang: _poppler("pdftotext", "-layout", "-enc", "UTF-8", str(pdfs / f"kernelbook-{lang}.pdf"), "-") for lang in LANGS}
    return {lang: "\n".join("\n".join([ln for ln in page.splitlines() if ln.strip()][1:-1]) for page in text.split("\f"))
            for lang, text in texts.items()}


def _bare(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _printed_pages(site: Path, lang: str) -> list[BeautifulSoup]:
    """The book's pages as mkdocs.yml's nav orders them, less notebooks and the site's own pages, the glossary last."""
    block = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    nav = re.findall(r"^  - (\S+\.md)$", block.split("\n\n", 1)[0], re.M)
    nav = [p for p in nav if p not in ("instructors.md", "changes.md", "glossary.md")] + ["glossary.md"]
    folders = [p.removesuffix("index.md") if p.endswith("index.md") else p.removesuffix(".md") + "/" for p in nav]
    return [BeautifulSoup((site / LANGS[lang] / f / "index.html").read_text(encoding="utf-8"), "html.parser") for f in folders]


def _titles(page: BeautifulSoup) -> list[str]:
    article = page.select_one("article.md-content__inner")
    for link in article.select("a.headerlink"):
        link.decompose()
    return [h.get_text(" ", strip=True) for h in article.find_all(["h1", "h2"])]


@pytest.mark.parametrize("lang", LANGS)
def test_every_chapter_and_section_title_in_order(built_site, texts, lang):
    titles = [t for page in _printed_pages(built_site, lang) for t in _titles(page)]
    assert len(titles) > 20
    text, at = _bare(texts[lang]), 0
    # the contents list them all, then the chapters print them all, in the same order
    for title in titles + titles:
        found = text.find(_bare(title), at)
        assert found >= 0, f"{lang}: {title!r} missing or out of order after {text[max(0, at - 80):at]!r}"
        at = found + len(_bare(title))


@pytest.mark.parametrize("lang", LANGS)
def test_every_line_of_every_snippet_whole_and_nothing_past_the_margin(built_site, pdfs, layouts, lang):
    text = _bare(layouts[lang])
    snippets = [block for page in _printed_pages(built_site, lang) for block in page.select("div.highlight")
                if block.select_one("span.filename")]
    assert len(snippets) >= 10
    for block in snippets:
        name = block.select_one("span.filename").get_text(strip=True)
        for line in block.find("code").get_text().splitlines():
            assert _bare(line) in text, f"{lang}: {name}: line {line!r} not whole in the PDF"
    words = _poppler("pdftotext", "-bbox", str(pdfs / f"kernelbook-{lang}.pdf"), "-")
    right = max(float(x) for x in re.findall(r'<word xMin="[\d.]+" yMin="[\d.]+" xMax="([\d.]+)"', words))
    # a closing bracket may end a line a few points into the margin (it may not start the next); a line that does
    # not wrap runs off the page, where the PDF's text still holds it
    assert right <= A4_WIDTH_PT - RIGHT_MARGIN_PT / 2, f"{lang}: a word reaches x={right:.1f} pt, into the right margin: clipped"


@pytest.mark.parametrize("lang", LANGS)
def test_every_tab_printed_under_its_label(built_site, texts, lang):
    labels: dict[str, int] = {}
    for page in _printed_pages(built_site, lang):
        for label in page.select("div.tabbed-labels > label"):
            labels[label.get_text(" ", strip=True)] = labels.get(label.get_text(" ", strip=True), 0) + 1
    assert {"CPU", "CUDA"} <= set(labels), labels
    text = _bare(texts[lang])
    for label, count in labels.items():
        assert text.count("▸" + _bare(label)) >= count, f"{lang}: tab {label!r}: {count} on the site, fewer printed"


def test_japanese_font_embedded(pdfs):
    rows = _poppler("pdffonts", str(pdfs / "kernelbook-ja.pdf")).splitlines()[2:]
    embedded = {row.split()[0].split("+")[-1] for row in rows if row.split()[-5] == "yes"}
    assert any(name.startswith(("IPAex", "NotoSansCJK", "NotoSerifCJK")) for name in embedded), embedded


@pytest.mark.parametrize("lang", LANGS)
def test_a4_outline_links_and_vector_figures(pdfs, built_site, lang):
    pdf = pdfs / f"kernelbook-{lang}.pdf"
    info = _poppler("pdfinfo", str(pdf))
    assert re.search(r"Page size:\s+59[45]\.\d+ x 84[12]\.\d+ pts \(A4\)", info), info
    outline = re.findall(r'<item page="\d+">([^<]*)</item>', _poppler("pdftohtml", "-xml", "-i", "-q", "-stdout", "-f", "1", "-l", "1", str(pdf)))
    chapters = [_titles(page)[0] for page in _printed_pages(built_site, lang)]
    outline = [html.unescape(item) for item in outline]
    assert all(chapter in outline for chapter in chapters), (chapters, outline[:20])
    raw = pdf.read_bytes()
    assert raw.count(b"/Dest") > 100  # contents, cross-references and glossary terms: links inside the PDF
    assert b"/URI (file:" not in raw  # never a link to the file the book was printed from
    assert _poppler("pdfimages", "-list", str(pdf)).count("\n") == 2, "a bitmap in the PDF: figures are vector SVG"


def test_no_chromium_is_one_line(tmp_path):
    done = run_cli("pdf", "--out", str(tmp_path), PATH=str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "chromium" in done.stderr and "never `playwright install`" in done.stderr
    assert not list(tmp_path.glob("*.pdf"))


def test_a_book_that_does_not_build_says_why(tmp_path):
    if CHROMIUM is None:
        pytest.skip("no `chromium` on PATH (Debian: apt-get install chromium); never `playwright install`")
    book = copy_project(tmp_path / "book")
    config = book / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("  name: material\n", "  name: no-such-theme\n", 1), encoding="utf-8")
    done = run_cli("pdf", "--out", str(tmp_path), root=book)
    assert done.returncode != 0
    assert "no-such-theme" in done.stderr and "the book did not build" in done.stderr, done.stderr[-2000:]
    assert not list(tmp_path.glob("*.pdf"))


# ---------------------------------------------------------------- the assembly, without a browser

_NAV = ('<nav class="md-nav md-nav--primary"><a class="md-nav__link" href="./">Home</a>'
        '<a class="md-nav__link" href="#intro">Intro</a><a class="md-nav__link" href="glossary/">Glossary</a>'
        '<a class="md-nav__link" href="ch05/">Five</a><a class="md-nav__link" href="ch05/notebook/">Five (notebook)</a>'
        '<a class="md-nav__link" href="changes/">Changes</a></nav>')
_CH05 = ('<html><head><link rel="canonical" href="https://example.org/book/ch05/"></head><body>' + _NAV +
         '<article class="md-content__inner"><h1 id="five">Five <a class="headerlink" href="#five">¶</a></h1>'
         '<h2 id="tabs">Tabs</h2><div class="tabbed-set"><input id="cpu"><input id="cuda">'
         '<div class="tabbed-labels"><label for="cpu">CPU</label><label for="cuda">CUDA</label></div>'
         '<div class="tabbed-content"><div class="tabbed-block"><p>on the cpu</p></div>'
         '<div class="tabbed-block"><p>on the gpu</p></div></div></div>'
         '<p><a class="kb-term" href="../glossary/#kernel">kernel</a> <a href="notebook/">notebook</a>'
         ' <a href="#tabs">up</a></p><details><summary>more</summary>hidden</details>'
         '<figure class="kb-figure"><svg class="kb-layout-wide"></svg><svg class="kb-layout-narrow"></svg></figure>'
         '</article></body></html>')


def test_the_pages_come_from_the_nav_glossary_last_and_print_as_paper(tmp_path):
    from kernelbook.site.printing import assemble

    for key in ("", "ch05/", "glossary/"):
        (tmp_path / key).mkdir(parents=True, exist_ok=True)
        (tmp_path / key / "index.html").write_text(_CH05 if key == "ch05/" else f"<html><body>{_NAV}</body></html>", encoding="utf-8")
    keys = assemble.printed_keys(assemble.nav_keys(tmp_path, ""), "glossary/")
    assert keys == ["", "ch05/", "glossary/"]  # a chapter the nav adds is printed; notebooks and the site's pages are not
    page = assemble.read_page(tmp_path, "ch05/", "", set(keys))
    html_out = str(page.article)
    assert page.title == "Five" and page.sections == (("p-ch05--tabs", "Tabs"),)
    assert [p.get_text() for p in page.article.select(".kb-print-tab-label")] == ["CPU", "CUDA"]
    assert "on the cpu" in html_out and "on the gpu" in html_out and "<input" not in html_out and "¶" not in html_out
    assert 'href="#p-glossary--kernel"' in html_out and 'href="#p-ch05--tabs"' in html_out  # inside the book
    assert 'href="https://example.org/book/ch05/notebook/"' in html_out  # a page not printed: the published one
    assert "<details open" in html_out and "kb-layout-narrow" not in html_out
    imprint = assemble.Imprint("en", "2026.12", "abc123", "2026-12-04", "https://example.org/book/2026.12/en/", "letter")
    doc = assemble.document([page], imprint, [], "© the authors", 'Book "one"')
    assert "@page { size: letter; }" in doc and '@top-center { content: "Five"; }' in doc
    assert "2026.12" in doc and "abc123" in doc and "CC BY 4.0" in doc and 'href="#p-ch05"' in doc
