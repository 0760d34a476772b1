"""site/minify.py: the book's CSS and JS as served, without comments and indentation, and nothing else changed."""

from __future__ import annotations

import gzip
import json

import pytest

from conftest import ROOT
from kernelbook.site import minify

ASSETS = ROOT / "docs" / "assets"


def test_css_drops_comments_and_whitespace_but_keeps_strings():
    source = '/* a comment */\n.a  ,\n .b > .c {\n  color: red;  /* why */\n  content: " / ";\n}\n[data-x="a /* b */ {c}"] :hover { margin: 0 auto; }\n'
    assert minify.css(source) == '.a,.b > .c{color: red;content: " / "}[data-x="a /* b */ {c}"] :hover{margin: 0 auto}'


def test_css_keeps_the_space_that_makes_a_descendant_selector_and_the_container_query():
    source = "@container kb-figure (width < 610px) {\n  .kb-figure svg.kb-layout-wide { display: none; }\n}\n"
    assert minify.css(source) == "@container kb-figure (width < 610px){.kb-figure svg.kb-layout-wide{display: none}}"


def test_js_drops_comments_and_indentation_and_keeps_every_line_break():
    source = ('// leading comment\n(function () {\n  var url = "http://x/*y*/"; // trailing\n'
              "  /* block\n     comment */\n  var re = /[^/]*\\/?$/g, half = a / 2 / b;\n"
              "  return s.replace(/\\/$/, '') + 'it\\'s';\n})();\n")
    assert minify.js(source) == ('(function () {\nvar url = "http://x/*y*/";\n'
                                 "var re = /[^/]*\\/?$/g, half = a / 2 / b;\n"
                                 "return s.replace(/\\/$/, '') + 'it\\'s';\n})();\n")


def test_js_regex_after_a_keyword_and_division_after_a_value():
    assert minify.js("if (x) return /a\\/b/.test(y) // c\n") == "if (x) return /a\\/b/.test(y)\n"
    assert minify.js("var half = (a) / 2; // c /d/\n") == "var half = (a) / 2;\n"


@pytest.mark.parametrize("source", ['var s = "open;\n', "var t = `a${b}`;\n", "var t = `two\nlines`;\n", "/* never closed\n",
                                    "var r = /open\n"])
def test_what_it_cannot_read_safely_is_refused_with_where(source):
    with pytest.raises(ValueError, match="kernelbook.js: "):
        minify.js(source, "kernelbook.js")


def test_css_refuses_an_unterminated_comment():
    with pytest.raises(ValueError, match="kernelbook.css: unterminated comment"):
        minify.css(".a { color: red } /* open", "kernelbook.css")


def test_the_books_assets_shrink_by_a_third_gzipped():
    for name in ("kernelbook.css", "kernelbook.js"):
        source = (ASSETS / name).read_text(encoding="utf-8")
        served = minify.asset(name, source)
        before, after = (len(gzip.compress(t.encode(), 9)) for t in (source, served))
        assert after < 0.75 * before, (name, before, after)


def test_other_files_are_served_as_they_are():
    assert minify.asset("notes.txt", "  a  /* b */\n") == "  a  /* b */\n"


def test_the_served_script_parses_in_a_browser(browser):
    """Chromium compiles the served kernelbook.js (a syntax error would throw); the browser tests then run it."""
    served = minify.js((ASSETS / "kernelbook.js").read_text(encoding="utf-8"), "kernelbook.js")
    page = browser.new_page()
    try:
        error = page.evaluate("src => { try { new Function(src); return ''; } catch (e) { return String(e); } }", served)
    finally:
        page.close()
    assert error == ""
    assert served.count("\n") < (ASSETS / "kernelbook.js").read_text(encoding="utf-8").count("\n")


def test_the_served_stylesheet_has_the_same_rules_in_a_browser(browser, tmp_path):
    """Chromium parses the source and the served stylesheet into the same rules, one for one."""
    source = (ASSETS / "kernelbook.css").read_text(encoding="utf-8")
    page = browser.new_page()
    try:
        rules = []
        for text in (source, minify.css(source)):
            page.set_content(f"<style>{text}</style>")
            rules.append(page.evaluate("() => Array.from(document.styleSheets[0].cssRules, r => r.cssText)"))
    finally:
        page.close()
    assert len(rules[0]) > 50
    assert rules[0] == rules[1], json.dumps([a for a, b in zip(*rules) if a != b][:3])


def test_html_makes_each_whitespace_run_with_a_line_break_one_line_break():
    page = ('<ul>\n    <li>\n      <a href="x">\n\n   第 3 章\n  </a>\n    </li>\n</ul>\n'
            '<p>a <em>b</em>  c\n\t d\u00a0\n e\u3000\n f</p>')
    assert minify.html(page) == '<ul>\n<li>\n<a href="x">\n第 3 章\n</a>\n</li>\n</ul>\n<p>a <em>b</em>  c\nd\u00a0\ne\u3000\nf</p>'


def test_html_leaves_what_whitespace_means_something_in_exactly_as_it_is():
    kept = ['<pre><span></span><code>  a\n\n    b  \n</code></pre>', '<code class="kb-fullname">x\n   y</code>', '<kbd>\n  k\n</kbd>',
            '<script>\n  var a = `\n  `;\n</script>', '<style>\n  .a { }\n</style>', '<svg>\n <title>\n  t\n </title>\n</svg>',
            '<textarea>\n  t\n</textarea>', '<!--\n   c\n-->', '<a title="one\n   two > three" href="y">\n  z</a>']
    page = "\n  ".join(kept)
    assert minify.html(page) == "\n".join(kept[:-1]) + '\n<a title="one\n   two > three" href="y">\nz</a>'


def test_html_renders_the_same_in_a_browser(browser):
    """Text, line breaks and layout of inline markup (Latin and Japanese) the same with and without the runs."""
    page_html = ('<!doctype html><html><body style="width:300px;font:16px sans-serif">\n  <p>\n    とても長い日本語の文章が\n    ここで続きます。'
                 '<a href="#">\n      リンク\n    </a>\n    and some English\n\n      words <em>here</em>\n  </p>\n  <ul>\n    <li>\n      one\n    </li>\n'
                 '    <li>two</li>\n  </ul>\n  <pre>  keep\n    this</pre>\n</body></html>')
    page = browser.new_page()
    try:
        seen = []
        for text in (page_html, minify.html(page_html)):
            page.set_content(text)
            seen.append((page.evaluate("() => document.body.innerText"), page.screenshot()))
    finally:
        page.close()
    assert seen[0][0] == seen[1][0]
    assert seen[0][1] == seen[1][1]


def test_a_served_page_is_kept_by_its_content(tmp_path):
    page = "<ul>\n    <li>\n      one\n    </li>\n</ul>\n"
    assert minify.html_kept(page, tmp_path) == minify.html(page) == "<ul>\n<li>\none\n</li>\n</ul>\n"
    [entry] = tmp_path.glob("*.html")
    entry.write_text("<p>from the cache</p>", encoding="utf-8")  # the next build reads it, and minifies nothing
    assert minify.html_kept(page, tmp_path) == "<p>from the cache</p>"
    assert minify.html_kept(page + " ", tmp_path) == minify.html(page + " ")  # another page: another entry
    assert len(list(tmp_path.glob("*.html"))) == 2


def test_a_served_page_read_back_from_the_cache_is_the_page_as_minified_byte_for_byte(tmp_path):
    """Kept and read as bytes (page_cache.kept_text): a carriage return in a <pre> survives the cache."""
    page = "<p>a</p>\n\n<pre>one\r\ntwo\r</pre>\n"
    first = minify.html_kept(page, tmp_path)
    assert first == minify.html(page) and "\r\n" in first
    assert minify.html_kept(page, tmp_path) == first  # from the cache
    assert len(list(tmp_path.glob("*.html"))) == 1
