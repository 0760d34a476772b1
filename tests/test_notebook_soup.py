"""nbconvert's HTML pass without BeautifulSoup (notebook_soup.py): the tree BeautifulSoup would write, on every
notebook of the book and on crafted pages; anything it does not do as BeautifulSoup would is refused, never guessed."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT, write
from kernelbook.site.caches import notebooks as notebook_cache
from kernelbook.site.notebooks.soup import MarkedHTML, Unforeseen, in_nbconvert, without_code_spans

NOTEBOOKS = sorted(ROOT.glob("docs/*/ch*/notebook.ipynb"))
ALT = "No description has been provided for this image"


def nbconvert_pass(soup) -> str:
    """What nbconvert 7's HTMLExporter.from_notebook_node does with the soup (the test below checks it still is)."""
    for element in soup.select("img:not([alt])"):
        element.attrs["alt"] = ALT
    for element in soup.select(".jp-Notebook div.jp-Cell-inputWrapper"):
        element.attrs["tabindex"] = "0"
    for element in soup.select(".jp-Notebook div.jp-OutputArea-output"):
        element.attrs["tabindex"] = "0"
    return str(soup)


def same_tree(quick: str, soup_written: str) -> bool:
    return str(BeautifulSoup(quick, features="html.parser")) == soup_written


def test_nbconvert_still_does_only_what_the_stand_in_does():
    import inspect

    from nbconvert.exporters.html import HTMLExporter

    source = inspect.getsource(HTMLExporter.from_notebook_node)
    assert source.count(".select(") == 3 and source.count("BeautifulSoup(") == 1, source
    for selector in ('"img:not([alt])"', '".jp-Notebook div.jp-Cell-inputWrapper"', '".jp-Notebook div.jp-OutputArea-output"'):
        assert selector in source


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: "/".join(p.parts[-3:-1]))
def test_every_notebook_of_the_book_gets_the_tree_beautifulsoup_writes(notebook, monkeypatch):
    import nbconvert.exporters.html as html
    from mkdocs_jupyter.nbconvert2 import nb2html

    seen = []

    class Recording(BeautifulSoup):
        def __init__(self, markup, features=None):
            seen.append((markup, self))
            super().__init__(markup, features=features)

    monkeypatch.setattr(html, "BeautifulSoup", Recording)
    nb2html(str(notebook), execute=False, allow_errors=False, include_requirejs=False)
    ((markup, soup),) = seen
    quick = nbconvert_pass(MarkedHTML(markup, features="html.parser"))
    assert 'tabindex="0"' in quick
    assert same_tree(quick, str(soup))  # the soup as nbconvert's own pass left it


CRAFTED = ('<p><img src="x.png"><img alt="" src=y><img src="z" /><IMG SRC="w"></p>'
           '<div class="jp-Notebook"><div class="a jp-Cell-inputWrapper" id=q>x</div>'
           '<div><div class="jp-OutputArea-output">o</div></div><span class="jp-Cell-inputWrapper">not a div</span></div>'
           '<div class="jp-OutputArea-output">outside</div>'
           '<section class="x jp-Notebook"><div/><div class="jp-Cell-inputWrapper" tabindex="0">t</div></p>'
           '<div class="jp-OutputArea-output">still inside: the stray end tag is dropped</div></section>'
           '<style>.a{} <img src="in-css"></style><script>"<div class=\'jp-Notebook\'>"</script>'
           '<!-- <img src="comment"> --><textarea><img src="t"></textarea>')


def test_crafted_pages_get_the_tree_beautifulsoup_writes():
    quick = nbconvert_pass(MarkedHTML(CRAFTED))
    assert same_tree(quick, nbconvert_pass(BeautifulSoup(CRAFTED, features="html.parser")))
    assert quick.count(f'alt="{ALT}"') == 4 and quick.count('tabindex="0"') == 4  # one tabindex was there already
    assert '<img src="z" alt="' in quick and 'id=q tabindex="0">' in quick  # written into the page's own text


@pytest.mark.parametrize("ask", [
    lambda soup: soup.select("div > p"),  # a selector nbconvert does not use today
    lambda soup: [e.attrs.__setitem__("tabindex", "-1") for e in soup.select(".jp-Notebook div.jp-OutputArea-output")],
    lambda soup: [e.attrs.__setitem__("alt", 'say "hi"') for e in soup.select("img:not([alt])")],
])
def test_what_it_cannot_do_as_beautifulsoup_would_is_refused(ask):
    page = '<div class="jp-Notebook"><div class="jp-OutputArea-output" tabindex="2">o</div><img src="a"></div>'
    with pytest.raises(Unforeseen):
        soup = MarkedHTML(page)
        ask(soup)
        str(soup)


def test_a_slash_that_may_be_part_of_an_unquoted_value_is_refused():
    soup = MarkedHTML("<img src=a/>")
    soup.select("img:not([alt])")[0].attrs["alt"] = ALT
    with pytest.raises(Unforeseen):
        str(soup)


def test_a_conversion_it_cannot_do_is_converted_again_with_beautifulsoup(tmp_path, caplog):
    import nbconvert.exporters.html as html

    notebook = write(tmp_path / "nb.ipynb", "{}")
    soups = []

    def convert(config, files):  # an nbconvert that asks the stand-in for more than it does
        soups.append(html.BeautifulSoup)
        if html.BeautifulSoup is MarkedHTML:
            raise Unforeseen("the selector 'div > p'")
        page.content, page.toc = "<p>converted</p>", []

    page = SimpleNamespace(render=convert, file=SimpleNamespace(abs_src_path=str(notebook), src_uri="nb.ipynb"),
                           content=None, toc=None)
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.kernelbook"):
        notebook_cache.cache_render(page, tmp_path / "cache", {}, {}, lambda *a: None)
        page.render(None, None)
    assert soups == [MarkedHTML, BeautifulSoup] and page.content == "<p>converted</p>"
    assert "nb.ipynb: nbconvert's HTML pass asked for the selector 'div > p'; converted with BeautifulSoup" in caplog.text
    assert html.BeautifulSoup is BeautifulSoup  # put back


def test_another_nbconvert_without_beautifulsoup_is_left_alone(monkeypatch):
    import nbconvert.exporters.html as html

    monkeypatch.delattr(html, "BeautifulSoup")
    with in_nbconvert() as standing_in:
        assert standing_in is False and not hasattr(html, "BeautifulSoup")


CODE = ('<div class="jp-Notebook"><div class="jp-Cell-inputWrapper"><div class="highlight"><pre><span></span>'
        '<span class="n">a</span> <span class="o">=</span>\n<span class="mi">1</span></pre></div></div>'
        '<div class="jp-OutputArea-output"><pre>plain</pre></div></div>')


def test_highlighted_code_is_scanned_as_blank_text_of_the_same_length_and_lines():
    blanked, starts = without_code_spans(CODE)
    assert len(blanked) == len(CODE) and blanked.count("\n") == 1 and "<span" not in blanked
    assert starts == [CODE.index("<pre>")]  # the output's <pre> holds no tag: left as it is
    soup = MarkedHTML(CODE)
    assert soup.blanked and not any(e.tag == "span" for e in soup.elements)
    assert same_tree(nbconvert_pass(soup), nbconvert_pass(BeautifulSoup(CODE, features="html.parser")))


@pytest.mark.parametrize("pre", [
    '<pre><span class="n">a</span><img src="in-code"></pre>',  # another tag: nbconvert may select it
    '<pre><span class="n">a</span></span></pre>',  # a stray end tag closes a span outside
    '<pre><span class="n">a</pre>',  # a span left open holds what follows
    '<pre><span class="n" id="x">a</span></pre>',  # another attribute
    '<pre><span class="n">a</span> --> b</pre>',  # a ">" that may end a comment or a section
])
def test_a_pre_holding_more_than_balanced_code_spans_is_scanned_whole(pre):
    page = f'<span class="jp-Notebook">{pre}<div class="jp-OutputArea-output">o</div><img src="after"></span>'
    assert without_code_spans(page) == (page, [])
    assert same_tree(nbconvert_pass(MarkedHTML(page)), nbconvert_pass(BeautifulSoup(page, features="html.parser")))


def test_a_pre_the_parser_does_not_take_for_one_leaves_the_page_scanned_whole():
    page = ('<div class="jp-Notebook"><script>"<pre><span class="n">a</span></pre>"</script>'
            '<textarea><pre><span class="x">b</span></pre></textarea><div class="jp-OutputArea-output">o</div></div>')
    assert len(without_code_spans(page)[1]) == 2
    soup = MarkedHTML(page)
    assert not soup.blanked
    assert same_tree(nbconvert_pass(soup), nbconvert_pass(BeautifulSoup(page, features="html.parser")))


def test_a_selector_that_may_name_a_blanked_span_is_refused():
    soup = MarkedHTML(CODE)
    with pytest.raises(Unforeseen, match="highlighted code"):
        soup.select(".jp-Notebook span.n")
    with pytest.raises(Unforeseen, match="highlighted code"):
        soup.select("span:not([title])")
    assert MarkedHTML('<pre>plain</pre><span class="n">x</span>').select("span:not([title])")  # nothing blanked: asked as before
