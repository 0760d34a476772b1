"""material's search entries cached by content (search_cache.py): the same entries as material's own parse, in the same order."""

from __future__ import annotations

from types import SimpleNamespace

from material.plugins.search.plugin import SearchIndex
from mkdocs.structure.toc import get_toc

from kernelbook.site.caches import search as search_cache

HTML = ('<h1 id="t">Title</h1><p>Intro <code>x</code></p><h2 id="a">A</h2><p>alpha</p>'
        '<h3 id="b">B</h3><p>beta</p><h2 id="b">B again</h2><p>gamma</p><h2 id="c">C</h2><p>delta</p>')
TOC = [{"level": 1, "id": "t", "name": "Title", "children": [
    {"level": 2, "id": "a", "name": "A", "children": [{"level": 3, "id": "b", "name": "B", "children": []}]},
    {"level": 2, "id": "b", "name": "B again", "children": []},
    {"level": 2, "id": "c", "name": "C", "children": []}]}]


def _page(html=HTML, meta=None):
    return SimpleNamespace(content=html, toc=get_toc(TOC), url="ch01/", title="Title", meta=meta or {})


def _index():
    return SearchIndex(lang=["en"], separator=r"[\s]+", pipeline=[], fields={})


def test_a_heading_is_looked_up_as_materials_walk_finds_it():
    index, toc = _index(), get_toc(TOC)
    with search_cache.toc_lookup(index):
        fast = [index._find_toc_by_id(toc, anchor) for anchor in ("t", "a", "b", "c", "zz", None)]
    assert "_find_toc_by_id" not in vars(index)  # material's own walk again afterwards
    walked = [index._find_toc_by_id(toc, anchor) for anchor in ("t", "a", "b", "c", "zz", None)]
    assert fast == walked and fast[2].title == "B"  # the nested B, first in the walk, not the later sibling


def test_a_page_is_parsed_once_and_then_read_back_as_material_made_it(tmp_path):
    own = _index()
    own.add_entry_from_context(_page())
    seen = []
    for _ in range(2):
        index = _index()
        assert search_cache.cache_entries(index, tmp_path, {"mkdocs-material": "x"}, seen.append)
        index.add_entry_from_context(_page())
        assert index.entries == own.entries and [list(e) for e in index.entries] == [list(e) for e in own.entries]
    assert seen == [False, True] and len(list(tmp_path.glob("*.json"))) == 1


def test_what_the_entries_depend_on_is_in_the_key(tmp_path):
    keys = {search_cache.key(page, {"mkdocs-material": "1"}, False) for page in (
        _page(), _page(html=HTML + "<p>more</p>"), _page(meta={"search": {"boost": 2}}), _page(meta={"tags": ["x"]}))}
    keys.add(search_cache.key(_page(), {"mkdocs-material": "2"}, False))
    keys.add(search_cache.key(_page(), {"mkdocs-material": "1"}, True))
    assert len(keys) == 6


def test_a_damaged_entry_is_a_miss_never_used(tmp_path):
    index = _index()
    search_cache.cache_entries(index, tmp_path, {}, None)
    index.add_entry_from_context(_page())
    good = list(index.entries)
    for damage in ('[{"location": 1}]', "{}", "not json", '[{"location": "a", "title": "b"}]'):
        next(tmp_path.glob("*.json")).write_text(damage, encoding="utf-8")
        again = _index()
        search_cache.cache_entries(again, tmp_path, {}, None)
        again.add_entry_from_context(_page())
        assert again.entries == good


CODE = ('<h1 id="t">Title</h1><p>See <span class="kb-value">4 ms</span></p><div class="highlight"><pre><span></span><code>'
        '<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>\n\n    <span class="k">return</span>'
        ' <span data-search-exclude>hidden</span></code></pre></div><h2 id="a">A</h2><p>alpha</p>')


def test_highlighted_code_is_parsed_without_its_spans_to_the_same_entries(tmp_path):
    kept = CODE.replace(" <span data-search-exclude>hidden</span>", "")
    assert search_cache.without_code_spans(kept) == kept.replace('<span></span>', '').replace(
        '<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>', "x = 1").replace(
        '<span class="k">return</span>', "return")  # outside <pre>: kept
    assert search_cache.without_code_spans(CODE) == CODE  # a span with another attribute: that <pre> as it is
    for html in (kept, CODE):
        own, index = _index(), _index()
        own.add_entry_from_context(_page(html))
        search_cache.cache_entries(index, tmp_path, {"mkdocs-material": "x"})
        page = _page(html)
        index.add_entry_from_context(page)
        assert index.entries == own.entries and "x = 1" in own.entries[0]["text"] and "hidden" not in own.entries[0]["text"]
        assert page.content == html  # the page itself is left as it was


def test_every_page_of_the_book_parses_to_the_same_sections_without_its_code_spans(built_site):
    from material.plugins.search.plugin import Parser

    def sections(html):
        parser = Parser()
        parser.feed(html)
        parser.close()
        return [(s.id, "".join(s.title), "".join(s.text)) for s in parser.data]

    pages = sorted(built_site.glob("**/index.html"))
    assert len(pages) > 20
    for path in pages:
        html = path.read_text(encoding="utf-8")
        assert sections(search_cache.without_code_spans(html)) == sections(html), path
