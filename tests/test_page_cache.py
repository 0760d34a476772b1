"""Rendered Markdown pages cached by content (page_cache.py): keys that hold across processes, warnings never cached."""

from __future__ import annotations

import json
import logging
from types import SimpleNamespace

from kernelbook.site.caches import pages as page_cache


def test_a_setting_that_is_a_function_is_named_with_what_it_closes_over():
    from pymdownx.slugs import slugify

    lower, upper = page_cache.stable(slugify(case="lower")), page_cache.stable(slugify(case="upper"))
    assert lower != upper and "0x" not in json.dumps(lower)
    assert page_cache.stable(slugify(case="lower")) == lower  # another instance, the same key


class _Page:
    def __init__(self, markdown: str, warn: bool = False):
        self.file = SimpleNamespace(src_uri="ch01/index.md")
        self.url, self.markdown, self.renders, self.warn = "ch01/", markdown, 0, warn
        self.toc, self.present_anchor_ids, self.links_to_anchors = [], set(), {}

    def render(self, config, files):
        self.renders += 1
        if self.warn:
            logging.getLogger("mkdocs.structure.pages").warning("a broken link")
        self.content, self._title_from_render, self.present_anchor_ids = f"<p>{self.markdown}</p>", "T", {"a"}


def _build(folder, markdown, warn=False):
    page, seen = _Page(markdown, warn), []
    page_cache.cache_render(page, folder, "site-key", seen.append)
    page.render(None, SimpleNamespace(get_file_from_path=lambda src: None))
    return page, seen


def test_a_page_is_converted_once_and_then_read_back(tmp_path):
    first, seen = _build(tmp_path, "hello")
    assert (first.renders, seen) == (1, [False])
    again, seen = _build(tmp_path, "hello")
    assert (again.renders, seen) == (0, [True])
    assert (again.content, again._title_from_render, again.present_anchor_ids) == ("<p>hello</p>", "T", {"a"})
    other, seen = _build(tmp_path, "hello, edited")
    assert (other.renders, seen) == (1, [False])


def test_a_render_that_warned_is_converted_again(tmp_path):
    _build(tmp_path, "broken", warn=True)
    again, seen = _build(tmp_path, "broken", warn=True)
    assert (again.renders, seen) == (1, [False])  # and so it warns again: a strict build still fails


def test_a_damaged_entry_is_a_miss_never_shown():
    """Entries are read back as the plugin wrote them or not at all (a damaged file is converted again)."""
    good = {"content": "<p>x</p>", "toc": [], "title": None, "anchors": ["a"], "links_to_anchors": {"en/ch01/index.md": {}}}
    assert page_cache._well_formed(good)
    for bad in ({}, [], None, "text", {**good, "content": 3}, {**good, "toc": {}}, {**good, "anchors": [1]},
                {**good, "links_to_anchors": []}, {k: v for k, v in good.items() if k != "title"} | {"title": 2}):
        assert not page_cache._well_formed(bad), bad


def test_the_themes_templates_are_compiled_once_and_kept(tmp_path):
    import jinja2

    from kernelbook.site.caches.notebooks import with_bytecode

    templates = {"main.html": "<p>{{ x }}</p>"}
    first = with_bytecode(jinja2.Environment(loader=jinja2.DictLoader(templates)), tmp_path / "jinja")
    assert first.get_template("main.html").render(x=1) == "<p>1</p>"
    assert list((tmp_path / "jinja").iterdir())  # kept
    second = with_bytecode(jinja2.Environment(loader=jinja2.DictLoader(templates)), tmp_path / "jinja")
    second.compile = None  # a template compiled again would call it
    assert second.get_template("main.html").render(x=2) == "<p>2</p>"
    templates["main.html"] = "<b>{{ x }}</b>"  # an edited template: compiled again, never the old bytecode
    third = with_bytecode(jinja2.Environment(loader=jinja2.DictLoader(templates)), tmp_path / "jinja")
    assert third.get_template("main.html").render(x=3) == "<b>3</b>"


def test_the_same_code_is_highlighted_once_with_the_same_settings_and_again_with_others():
    import pygments
    from pygments.filters import KeywordCaseFilter
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer
    from pymdownx.highlight import BlockHtmlFormatter

    calls = []

    def counted(code, lexer, formatter, outfile=None):
        calls.append(code)
        return pygments.highlight(code, lexer, formatter, outfile)

    kept = page_cache.kept_highlight(counted)
    assert page_cache.kept_highlight(kept) is kept  # wrapped once, however often the plugin starts
    code = "import torch\nx = torch.ones(3)\n"
    for formatter in (HtmlFormatter(cssclass="highlight-ipynb hl-python"), BlockHtmlFormatter(cssclass="highlight", hl_lines=[1], filename="a.py")):
        first = kept(code, PythonLexer(stripnl=False), formatter)
        assert first == pygments.highlight(code, PythonLexer(stripnl=False), formatter)
        assert kept(code, PythonLexer(stripnl=False), type(formatter)(**formatter.options)) == first  # new objects, same settings
    assert len(calls) == 2
    assert kept(code, PythonLexer(stripnl=True), HtmlFormatter()) != kept(code + "y\n", PythonLexer(stripnl=True), HtmlFormatter())
    assert len(calls) == 4  # other options, other code: highlighted
    filtered = PythonLexer()
    filtered.add_filter(KeywordCaseFilter(case="upper"))
    assert "IMPORT" in kept(code, filtered, HtmlFormatter()) and "IMPORT" in kept(code, filtered, HtmlFormatter())
    assert len(calls) == 6  # a lexer with filters: never kept (its filters are objects)
    assert page_cache.highlight_key(code, PythonLexer(), SimpleNamespace(options={"style": object()})) is None  # an option that is an object
    assert page_cache.highlight_key(code, PythonLexer(), HtmlFormatter(encoding="utf-8")) is None  # bytes out
