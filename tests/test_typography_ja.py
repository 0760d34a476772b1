"""Japanese typography on what a reader sees: the built Japanese pages and the Japanese notebooks.

Over the site the suite builds once (``built_site``), every Japanese page (chapters, their
notebook pages, the glossary, the instructors' page, ...), and every markdown cell of the
Japanese notebooks as CommonMark renders it (markdown-it-py, as Jupyter, Colab and GitHub
do), the checks fail on:

- a half-width space between a bold (``strong``/``b``) or link (``a``) element and a Japanese
  character beside it, where the element's own edge is Japanese too (「答えは <strong>カーネル</strong> です」);
  beside Latin text or digits the space stays;
- ``em``/``i`` around Japanese text (a fake slant in Japanese fonts; a Latin variable in italics is fine);
- an ASCII colon and a space inside a Japanese sentence (one that ends with 。); a label
  (「実行環境: …」 with no 。) is not a sentence;
- a space between a number and ``%``;
- in the notebooks, a bold span CommonMark did not recognise (``**`` left in the text).

Code (``code``, ``pre``, ``kbd``), scripts, styles, SVG and buttons are not prose. guide/authors.md,
"Japanese terminology and typography", has the rules.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, NavigableString, Tag
from markdown_it import MarkdownIt

J = r"\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff01-\uff5e"  # kana, kanji, Japanese punctuation, full-width forms
JAPANESE = re.compile(f"[{J}]")
OPEN, CLOSE = "\ue000", "\ue001"  # where a bold or link element starts and ends, in a block's text
_SPACE = "[ \u00a0]+"
_EDGE = re.compile(f"([{J}])([{OPEN}{CLOSE}]*){_SPACE}([{OPEN}{CLOSE}]*)([{J}])")
_MARKED = ("strong", "b", "a")
# a colon and a space, unless Latin stands on both sides (an English title quoted in a sentence: "Roofline: an ...")
_COLON = re.compile(f"(?<![A-Za-z]):{_SPACE}|:{_SPACE}(?![A-Za-z])")
_BLOCKS = {"p", "li", "td", "th", "dd", "dt", "figcaption", "blockquote", "summary", "caption",
           "h1", "h2", "h3", "h4", "h5", "h6", "div", "section", "article", "details", "label", "span"}
_BLOCKS -= {"span"}  # inline
_COMMONMARK = MarkdownIt("commonmark").enable("table")
# markdown-it refuses data: URLs but images' (a safety policy, not CommonMark): a figure is a data:image/svg+xml
_COMMONMARK.validateLink = lambda url: True


def _scope(soup: BeautifulSoup) -> Tag:
    """The page's content (material's ``article``), or the whole fragment (a notebook cell)."""
    return soup.find("article") or soup


def _prepare(scope: Tag) -> None:
    """Code becomes one Latin letter (a space beside it is Latin spacing); what is not prose goes;
    each bold or link element gets its edges marked."""
    for tag in scope.find_all(["script", "style", "svg", "pre", "noscript", "button"]):
        tag.decompose()
    for tag in scope.select("a.md-button"):  # a row of buttons (the notebook's links), set apart by the theme: not prose
        tag.decompose()
    for tag in scope.find_all(["code", "kbd", "math"]):
        tag.replace_with(NavigableString("X"))
    for tag in scope.find_all(_MARKED):
        if "headerlink" in (tag.get("class") or []) or not tag.get_text(strip=True):
            continue
        tag.insert(0, NavigableString(OPEN))
        tag.append(NavigableString(CLOSE))


def _block_of(node) -> Tag | None:
    for parent in node.parents:
        if parent.name in _BLOCKS:
            return parent
    return None


def block_texts(scope: Tag) -> list[str]:
    """Each block's own text (a nested block's text is its own), in page order."""
    texts: dict[int, list[str]] = {}
    order = []
    for string in scope.find_all(string=True):
        block = _block_of(string)
        key = id(block)
        if key not in texts:
            texts[key] = []
            order.append(key)
        texts[key].append(str(string))
    return [re.sub(r"\s+", " ", "".join(texts[k])).strip() for k in order]


def _plain(text: str) -> str:
    return text.replace(OPEN, "").replace(CLOSE, "")


def _around(text: str, start: int, end: int) -> str:
    return _plain(text[max(0, start - 12):end + 12])


def typography(html: str, where: str, *, notebook: bool = False) -> list[str]:
    """Every Japanese typography problem in ``html``, each as 'where: rule: 「context」'."""
    soup = BeautifulSoup(html, "html.parser")
    scope = _scope(soup)
    found = []
    for tag in scope.find_all(["em", "i"]):  # a Latin variable (*I*) in a Latin italic is a real italic
        if JAPANESE.search(tag.get_text()):
            found.append(f"{where}: italics in Japanese prose: 「{tag.get_text()}」")
    _prepare(scope)
    for text in block_texts(scope):
        if not JAPANESE.search(text):
            continue
        for m in _EDGE.finditer(text):
            if m.group(2) or m.group(3):
                found.append(f"{where}: a space between a bold or link element and Japanese text: 「{_around(text, m.start(), m.end())}」")
        plain = _plain(text)
        for m in re.finditer(r"\d" + _SPACE + "%", plain):
            found.append(f"{where}: a space before %: 「{_around(plain, m.start(), m.end())}」")
        # a sentence: a run up to 。; a colon in one that holds Japanese is an English colon in Japanese
        for sentence in re.findall(r"[^。]*。", plain):
            if JAPANESE.search(sentence.replace("。", "")):
                for m in re.finditer(_COLON, sentence):
                    found.append(f"{where}: an English colon inside a Japanese sentence: 「{_around(sentence, m.start(), m.end())}」")
        if notebook and "**" in plain:
            i = plain.index("**")
            found.append(f"{where}: a bold span CommonMark does not render (`**` in the text): 「{_around(plain, i, i + 2)}」")
    return found


def notebook_typography(path: Path, where: str) -> list[str]:
    """:func:`typography` of each markdown cell of a notebook, rendered as CommonMark."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = []
    for cell in cells:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            found += typography(_COMMONMARK.render(source), f"{where} cell {cell.get('id', '?')}", notebook=True)
    return found


def japanese_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("index.html")
                  if p.relative_to(site).parts[0] not in {"en", "assets", "search"})


def japanese_notebooks(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.ipynb") if p.relative_to(site).parts[0] != "en")


# ---------------------------------------------------------------- the built book

# the pages the site has today; a test per page (and per notebook) says which still fail
_PAGES = ["", "ch01/", "ch01/notebook/", "ch02/", "ch02/notebook/", "ch03/", "ch03/notebook/", "ch04/",
          "ch04/notebook/", "ch05/", "ch05/notebook/", "glossary/", "instructors/", "changes/"]
_NOTEBOOKS = ["ch01/notebook.ipynb", "ch02/notebook.ipynb", "ch03/notebook.ipynb", "ch04/notebook.ipynb",
              "ch05/notebook.ipynb"]


def test_every_japanese_page_and_notebook_is_checked(built_site):
    pages = {p.relative_to(built_site).parent.as_posix().replace(".", "") for p in japanese_pages(built_site)}
    assert pages == {p.rstrip("/") for p in _PAGES}, "a Japanese page was added or removed: list it in _PAGES"
    assert [p.relative_to(built_site).as_posix() for p in japanese_notebooks(built_site)] == _NOTEBOOKS


@pytest.mark.parametrize("page", _PAGES, ids=lambda p: p or "index")
def test_japanese_page_typography(built_site, page):
    path = built_site / page / "index.html"
    found = typography(path.read_text(encoding="utf-8"), f"{page or '/'}")
    assert not found, f"{len(found)} Japanese typography problem(s):\n" + "\n".join(found)


@pytest.mark.parametrize("notebook", _NOTEBOOKS)
def test_japanese_notebook_typography(built_site, notebook):
    found = notebook_typography(built_site / notebook, notebook)
    assert not found, f"{len(found)} Japanese typography problem(s) in the CommonMark rendering:\n" + "\n".join(found)


# ---------------------------------------------------------------- planted problems fail

PLANTED = {
    "a space between a bold": ["<p>答えは <strong>カーネル</strong> です。</p>", "<p>答えは<strong>カーネル</strong> です。</p>",
                               "<p>これを <strong><a href='#k'>カーネル</a></strong> と呼びます。</p>",
                               "<p>詳しくは <a href='../ch02/'>第 2 章</a> を見てください。</p>"],
    "italics": ["<p>GPU は <em>非同期に</em>処理します。</p>", "<p>これが<i>なぜ</i>かを見ます。</p>"],
    "English colon": ["<p>カーネルを 3 個実行しました: <code>add</code>、<code>mul</code>、<code>relu</code>。</p>",
                      "<li>キャプチャした環境: CPU。</li>"],
    "space before %": ["<p>コピーの 70 % に達します。</p>"],
}
FINE = ["<p>答えは<strong>カーネル</strong>です。</p>", "<p>これは <strong>GPU</strong> の話です。</p>",
        "<p>長さ <strong>8</strong> のテンソル</p>", "<p>詳しくは<a href='../ch02/'>第 2 章</a>を見てください。</p>",
        "<p><a href='https://pytorch.org/'>PyTorch</a> のドキュメント</p>", "<p>実行環境: CPU</p>",
        "<p>コピーの 85% に達します。</p>", "<p>論文 (Roofline: an insightful model) を参照します。</p>", "<p>関数 <code>f</code> を <strong>GPU メモリ</strong>に置きます。</p>",
        "<pre><code>答えは **カーネル** です: 70 %</code></pre>", "<p>see <em>this</em> English</p>", "<p>強度 <em>I</em> は</p>",
        "<h2>第 1 章: カーネルを数える<a class='headerlink' href='#x'>¶</a></h2>"]


@pytest.mark.parametrize("rule", PLANTED)
def test_a_planted_problem_fails(rule):
    for html in PLANTED[rule]:
        found = typography(html, "planted.html")
        assert found and all(rule.lower() in f.lower() and f.startswith("planted.html: ") for f in found), (html, found)
    assert len(typography(PLANTED[rule][0], "planted.html")) == (2 if rule == "a space between a bold" else 1)


@pytest.mark.parametrize("html", FINE)
def test_right_typography_passes(html):
    assert typography(html, "fine.html") == []


def test_a_bold_span_commonmark_cannot_close_fails_in_a_notebook(tmp_path):
    # CommonMark's flanking rules: `**` after punctuation and before a letter does not close a
    # span, nor does one after a letter and before punctuation open one; Python-Markdown renders both
    notebook = tmp_path / "planted.ipynb"
    cells = ["答えは**「カーネル」**です。", "これは**「融合」**と呼びます。", "答えは**カーネル**です。", "答えは**カーネル**」です。",
             "`**` はコードです。"]
    notebook.write_text(json.dumps({"cells": [{"cell_type": "markdown", "id": f"c{i}", "source": s} for i, s in enumerate(cells)],
                                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    found = notebook_typography(notebook, "planted.ipynb")
    assert [f.split(":")[0] for f in found] == ["planted.ipynb cell c0", "planted.ipynb cell c1"], found
    assert all("CommonMark does not render" in f for f in found)


def test_a_bold_term_link_is_written_so_commonmark_renders_it():
    # the notebooks link a bold term inside its bold: `**[カーネル](url)**` between Japanese characters
    # never closes in CommonMark; bold_inside_links writes the same bold link as `[**カーネル**](url)`
    from kernelbook.site.notebooks.markdown import bold_inside_links

    linked = '答えは**[カーネル](https://example.org/glossary/#kernel "GPU の仕事 (1 回の起動)")**です。'  # ")" in the title
    assert "**" in BeautifulSoup(_COMMONMARK.render(linked), "html.parser").get_text()
    fixed = bold_inside_links(linked)
    assert fixed == '答えは[**カーネル**](https://example.org/glossary/#kernel "GPU の仕事 (1 回の起動)")です。'
    rendered = BeautifulSoup(_COMMONMARK.render(fixed), "html.parser")
    assert "**" not in rendered.get_text() and rendered.select_one("a > strong").get_text() == "カーネル"
    assert bold_inside_links("**plain** and **[x](u) y** and **y [x](u)**") == "**plain** and **[x](u) y** and **y [x](u)**"
    for linked, fixed in [("つまり**[非同期](u)に**処理", "つまり[**非同期**](u)**に**処理"),
                          ("これは**イーガー[モード](u)**で", "これは**イーガー**[**モード**](u)で")]:
        assert bold_inside_links(linked) == fixed
        assert "**" in _COMMONMARK.render(linked) and "**" not in _COMMONMARK.render(fixed)
