"""What axe cannot judge, checked on the built site: figures, keyboard, language, glossary terms and predictions.

Every page is found in the build (a new chapter is checked as it appears). Each check is a
function of a page that returns its problems, so the same function is shown failing on a
deliberately broken page (a figure without a name or data, an unmarked English phrase). The
figures' colours and the pages at 200 % zoom are read in the browser sweep of every page
(test_accessibility.py, which also breaks a page on purpose for them).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from accessibility import LANGS, contrast, page_file, pages, show
from conftest import CHROMIUM

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
MIN_ALT = 40
# The checks that read every page's HTML run on one worker and share its parse of each page (``soups``).
every_page = pytest.mark.xdist_group("a11y-pages")
browser_only = pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH (Debian: apt-get install chromium); never `playwright install`")


def html_of(site: Path, path: str) -> str:
    return page_file(site, path).read_text(encoding="utf-8")


def parsed(html: str | BeautifulSoup) -> BeautifulSoup:
    """``html`` as a tree (the checks only read it): a page's text, or the tree ``soups`` parsed once."""
    return html if isinstance(html, BeautifulSoup) else BeautifulSoup(html, "html.parser")


@pytest.fixture(scope="module")
def soups(built_site):
    """Each page of the built site parsed once, for every check here that reads them all; dropped after the module."""
    cache: dict[str, BeautifulSoup] = {}

    def soup(path: str) -> BeautifulSoup:
        if path not in cache:
            cache[path] = BeautifulSoup(html_of(built_site, path), "html.parser")
        return cache[path]

    yield soup
    cache.clear()


def lang_of(path: str) -> str:
    return "en" if path.startswith("/en/") else "ja"


# ---------------------------------------------------------------- figures: a name, a description, data as text


def figure_problems(html: str | BeautifulSoup, lang: str) -> list[str]:
    """What a reader who cannot see the figures of ``html`` (a page in ``lang``) would miss."""
    soup = parsed(html)
    problems = []
    for fig in soup.select("figure.kb-figure"):
        where = f"figure #{fig.get('id', '?')}"
        svgs = fig.find_all("svg")
        if not svgs:
            problems.append(f"{where}: no drawing")
        for svg in svgs:
            labelled = svg.get("aria-labelledby")
            name = svg.find("title", id=labelled) if labelled else None
            alt = " ".join(name.get_text().split()) if name else ""
            if svg.get("role") != "img" or not alt:
                problems.append(f"{where}: an <svg> without role=\"img\" and a <title> naming it (aria-labelledby)")
                continue
            if len(alt) < MIN_ALT:
                problems.append(f"{where}: its alt text {alt!r} does not say what the figure shows")
            if svg.get("lang") != lang or (lang == "ja") != bool(JAPANESE.search(alt)):
                problems.append(f"{where}: its alt text is not in the page's language ({lang}): {alt[:60]!r}")
        if not fig.find("figcaption") or not fig.figcaption.get_text(strip=True):
            problems.append(f"{where}: no caption")
        table = fig.select_one("details.kb-figure-data table")
        placeholder = fig.select_one(".kb-placeholder-needed")
        if placeholder is None and (table is None or not table.select("tbody tr")):
            problems.append(f"{where}: its data cannot be read as text (no table in a details.kb-figure-data)")
        if table is not None and not table.select("thead th[scope=col]"):
            problems.append(f"{where}: its data table has no column headers")
    return problems


def series_problems(html: str | BeautifulSoup) -> list[str]:
    """Series told apart by colour alone: two series of one drawing whose markers have the same shape."""
    soup = parsed(html)
    problems = []
    for svg in soup.select("figure.kb-figure svg"):
        shapes: dict[str, set[str]] = {}
        for point in svg.select("[data-series].kb-point"):
            shape = point.name + re.sub(r"^M[-\d. ]+", "", point.get("d", ""))  # the path without where it starts
            shapes.setdefault(point["data-series"], set()).add(shape)
        seen: dict[frozenset, str] = {}
        for series, shape in shapes.items():
            key = frozenset(shape)
            if key in seen:
                problems.append(f"{' '.join(svg.get('class', []))}: series {seen[key]!r} and {series!r} are drawn with the same markers")
            seen[key] = series
    return problems


@every_page
def test_every_figure_has_a_name_a_description_and_its_data_as_text(built_site, soups):
    checked, problems = 0, []
    for path in pages(built_site):
        soup = soups(path)
        checked += len(soup.select("figure.kb-figure"))
        problems += [f"{path}: {p}" for p in figure_problems(soup, lang_of(path)) + series_problems(soup)]
    assert checked, "no figure on any page: the test checks nothing"
    assert not problems, "\n".join(problems)


BROKEN_FIGURE = """<html lang="en"><body><figure class="kb-figure" id="kb-figure-new">
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g class="kb-eager"><circle class="kb-point" data-series="eager" cx="1" cy="1" r="4"/></g>
<g class="kb-compiled"><circle class="kb-point" data-series="compiled" cx="5" cy="5" r="4"/></g></svg>
<figcaption>A new figure.</figcaption></figure></body></html>"""


def test_a_figure_without_a_name_data_or_shapes_fails():
    problems = figure_problems(BROKEN_FIGURE, "en")
    assert any("without role" in p for p in problems), problems
    assert any("cannot be read as text" in p for p in problems), problems
    assert any("same markers" in p for p in series_problems(BROKEN_FIGURE))


def test_a_figure_drawn_without_alt_text_or_titled_marks_is_refused():
    """The figure code's own rule (figures.values.check), which every drawing passes through."""
    from kernelbook.site.figures import svg, values

    good_alt = "Time per call against tensor length, on log–log axes: compiled is faster from 10,000 elements."
    titled = svg.el("circle", svg.title("100 elements: 2 µs"), cx=1.0, cy=1.0, r=4.0)
    drawn = svg.document("new", "en", svg.WIDE, 10.0, good_alt, [titled])
    values.check("new", "en", good_alt, drawn, placeholder=False)
    with pytest.raises(ValueError, match="shorter than"):
        values.check("new", "en", "A chart", svg.document("new", "en", svg.WIDE, 10.0, "A chart", [titled]), placeholder=False)
    with pytest.raises(ValueError, match="not in the page's language"):
        values.check("new", "ja", good_alt, drawn, placeholder=False)
    with pytest.raises(ValueError, match="no mark of the drawing has a <title>"):
        values.check("new", "en", good_alt, svg.document("new", "en", svg.WIDE, 10.0, good_alt, [svg.el("circle", cx=1.0, cy=1.0, r=4.0)]),
                     placeholder=False)
    with pytest.raises(ValueError, match="not named by its alt text"):
        values.check("new", "en", good_alt, '<svg xmlns="http://www.w3.org/2000/svg"><title>x</title></svg>', placeholder=False)
    assert "<th scope=\"col\">Value</th>" in values.table(drawn, "en") and "100 elements: 2 µs" in values.table(drawn, "en")


# ---------------------------------------------------------------- language


def lang_problems(html: str | BeautifulSoup, lang: str) -> list[str]:
    soup = parsed(html)
    problems = []
    if soup.html is None or soup.html.get("lang") != lang:
        problems.append(f"<html lang={soup.html.get('lang') if soup.html else None!r}>, not {lang!r}")
    for el in soup.select("[lang]"):
        if el.name != "html" and el.get("lang") not in LANGS:
            problems.append(f"<{el.name} lang={el.get('lang')!r}>: not a language of the book")
    return problems


def content_lang(path: str, html: str | BeautifulSoup) -> str:
    """The language a page is written in: its folder's, but for the one 404 page, which material writes in English."""
    if path != "/404.html":
        return lang_of(path)
    heading = parsed(html).select_one("article h1")
    return "ja" if heading is not None and JAPANESE.search(heading.get_text()) else "en"


@every_page
def test_every_page_says_its_language(built_site, soups):
    problems = []
    for path in pages(built_site):
        soup = soups(path)
        problems += [f"{path}: {p}" for p in lang_problems(soup, content_lang(path, soup))]
    assert not problems, "\n".join(problems)
    assert lang_problems('<html lang="en"><body></body></html>', "ja")


# Two Latin words in a row (numbers may stand between them): "eager mode", "compute capability 9.0 of".
ENGLISH = re.compile(r"[A-Za-z][A-Za-z0-9'’+\-]*[ \u00a0]+(?:[0-9][0-9.]*[ \u00a0]+)*[A-Za-z][A-Za-z0-9'’+\-]*")
NOT_PROSE = {"code", "pre", "kbd", "samp", "script", "style", "textarea", "svg", "math", "template"}


def english_problems(html: str | BeautifulSoup) -> list[str]:
    """English phrases of a Japanese page's prose (its <article>) that a screen reader would read with
    a Japanese voice: two or more English words in a row in one text node, with no element around them
    (inside the article) saying its language. A single word is a name or a technical term (WCAG 3.1.2's
    exception); code and drawings are not prose; material's hidden copy buffer (display: none) is not read.
    A phrase split by markup (``<b>eager</b> mode``) is two nodes: neither the build nor this check sees it."""
    soup = parsed(html)
    article = soup.select_one("article")
    problems = []
    for text in (article.find_all(string=True) if article else []):
        if type(text).__name__ != "NavigableString" or not ENGLISH.search(text):
            continue
        around = []
        for parent in text.parents:
            if parent is article:
                break
            around.append(parent)
        if any(p.name in NOT_PROSE or p.get("lang") or "clipboard-copy-txt" in (p.get("class") or []) for p in around):
            continue
        problems.append(f"{ENGLISH.search(text).group()!r}… in <{around[0].name if around else 'article'}>: not marked lang=\"en\"")
    return problems


@every_page
def test_english_phrases_in_japanese_prose_are_marked(built_site, soups):
    problems, marked = [], 0
    for path in pages(built_site, "ja"):
        if content_lang(path, soups(path)) != "ja":  # the 404 page, which material writes in English
            continue
        marked += html_of(built_site, path).count('<span lang="en">')
        problems += [f"{path}: {p}" for p in english_problems(soups(path))]
    assert marked, "no English phrase is marked on any Japanese page: the test checks nothing"
    assert not problems, "\n".join(problems[:40])
    for path in pages(built_site, "en"):  # an English page is English already
        assert '<span lang="en">' not in html_of(built_site, path), path


def test_an_unmarked_english_phrase_fails_and_the_marking_marks_it():
    from kernelbook.site.prose.language import mark_english

    broken = "<p>PyTorch の (eager mode) では、<a href='#'>CUDA C++ Programming Guide</a> の表と <code>import torch</code> を見ます。</p>"
    assert [p.split("…")[0] for p in english_problems(f"<article>{broken}</article>")] == ["'eager mode'", "'CUDA C++'"]
    fixed = mark_english(broken)
    assert not english_problems(f"<article>{fixed}</article>"), fixed
    assert fixed.count('<span lang="en">') == 2 and "<code>import torch</code>" in fixed and "PyTorch の" in fixed


@pytest.mark.parametrize(("html", "marked"), [
    ("(eager mode) の PyTorch", "(<span lang=\"en\">eager mode</span>) の PyTorch"),
    ("GPU メモリ と H100", "GPU メモリ と H100"),  # single words: names and terms
    ("Figure&#xa0;two の図", "<span lang=\"en\">Figure&#xa0;two</span> の図"),  # a no-break space joins, never split
    ("a &amp; b and c", "a &amp; <span lang=\"en\">b and c</span>"),  # any other entity breaks a run
    ("'eager mode' と don't stop", "'<span lang=\"en\">eager mode</span>' と <span lang=\"en\">don't stop</span>"),
    ("<script>for(i=0;i<n;i++){s=\"x>\"}</script><p>eager mode です</p>",
     "<script>for(i=0;i<n;i++){s=\"x>\"}</script><p><span lang=\"en\">eager mode</span> です</p>"),
    ("<svg><text>x y</text><svg>a b</svg> c d</svg> e f", "<svg><text>x y</text><svg>a b</svg> c d</svg> <span lang=\"en\">e f</span>"),
    ("<SPAN LANG=ja>x y</SPAN> <!-- a b --> z w", "<SPAN LANG=ja>x y</SPAN> <!-- a b --> <span lang=\"en\">z w</span>"),
    ("<div class=\"clipboard-copy-txt\">import os\nimport torch</div>", "<div class=\"clipboard-copy-txt\">import os\nimport torch</div>"),
    ("<a title=don't>x y</a> の", "<a title=don't>x y</a> の"),  # a tag it cannot read: nothing near it marked
    ("<br/>a b<img src=x alt=\"c d\">e f", "<br/><span lang=\"en\">a b</span><img src=x alt=\"c d\"><span lang=\"en\">e f</span>"),
    # a "<" in raw text that would read as a tag running past its end: tags are read again from the end tag
    ("<script>if(a<b)</script><p>e f</p>", "<script>if(a<b)</script><p><span lang=\"en\">e f</span></p>"),
    ("<PRE>a b<pre>c d</PRE> e f</pre> g h", "<PRE>a b<pre>c d</PRE> e f</pre> <span lang=\"en\">g h</span>"),  # nested, any case
    # no ASCII space between the words: a no-break space, as a character or as an entity, still joins them
    ("<b>eager\u00a0mode</b>", "<b><span lang=\"en\">eager\u00a0mode</span></b>"),
    ("<b>eager&nbsp;mode</b>", "<b><span lang=\"en\">eager&nbsp;mode</span></b>"),
])
def test_the_marker_marks_runs_of_english_words_in_text_and_changes_nothing_else(html, marked):
    from kernelbook.site.prose.language import mark_english, unmark

    assert mark_english(html) == marked
    assert unmark(marked) == html


def _marked_tag_by_tag(html: str) -> str:
    """The marker as a search for each next tag from where the last ended (its first form): the
    reference the faster scan must agree with, byte for byte."""
    import re

    from kernelbook.site.prose import language as lg

    out, at, skipping, depth = [], 0, None, 0
    while (m := lg._MARKUP.search(html, at)) is not None:
        text = html[at:m.start()]
        out += [text if skipping else lg._mark_text(text), m.group()]
        at, name, closing = m.end(), (m.group(1) or "").lower(), m.group().startswith("</")
        if not name:
            continue
        if skipping:
            if name == skipping and not m.group().endswith("/>"):
                depth += -1 if closing else 1
                skipping = skipping if depth else None
        elif not (closing or name in lg._VOID or m.group().endswith("/>")):
            if name in lg._RAW_TEXT:
                end = re.compile(rf"</{name}\s*>", re.I).search(html, at)
                out.append(html[at:end.end() if end else len(html)])
                at = end.end() if end else len(html)
            elif name in lg.SKIPPED or lg._HAS_LANG.search(m.group()) or lg._HIDDEN_COPY.search(m.group()):
                skipping, depth = name, 1
    return "".join(out + [html[at:] if skipping else lg._mark_text(html[at:])])


def test_the_marker_marks_random_pages_as_a_search_tag_by_tag_would_and_only_adds_its_spans():
    """Random strings of tags, entities, code and words: the same output as the tag-by-tag search, taking
    the marks out gives the input back, and a marked page is marked already."""
    import random

    from kernelbook.site.prose.language import mark_english, unmark

    pieces = ["<pre>", "</pre>", "<code>", "</code>", "<svg>", "</svg>", "<script>", "</script>", "<style>", "</style>",
              "<!-- a b -->", "<br>", "<br/>", "<p>", "</p>", "<b title=\"x>y\">", "</b>", "<span lang=\"ja\">", "</span>",
              "eager mode", " CUDA C++ guide ", "&nbsp;", "&amp;", "&#xa0;", "\u00a0", "word", " ", "の", "<", ">", "'", '"',
              "<PRE>", "</Pre >", "<textarea>", "</textarea>", "torch 2.13.0+cpu", "<img alt=\"c d\">", "<!doctype html>",
              "<pre/>", "<div class=\"clipboard-copy-txt\">", "</div>", "if(a<b)", "<!--"]
    rng = random.Random(43)
    for _ in range(5000):
        html = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 16)))
        marked = mark_english(html)
        assert marked == _marked_tag_by_tag(html), html
        assert unmark(marked) == html, html
        assert mark_english(marked) == marked, html


# ---------------------------------------------------------------- glossary terms and predictions: more than a tooltip


@every_page
def test_every_glossary_term_links_to_its_definition_and_every_prediction_says_so_in_words(built_site, soups):
    """A term's definition is its link's title (material's tooltip) and also the glossary entry the link opens;
    a prediction says in its own words that it is one (not only its colour and underline)."""
    problems, terms, predictions = [], 0, 0
    glossaries = {lang: soups("/glossary/" if lang == "ja" else "/en/glossary/") for lang in LANGS}
    for path in pages(built_site):
        soup = soups(path)
        for link in soup.select("a.kb-term"):
            terms += 1
            anchor = link.get("href", "").partition("#")[2]
            entry = glossaries[lang_of(path)].find(id=anchor) if anchor and "glossary/" in link.get("href", "") else None
            if entry is None:
                problems.append(f"{path}: term {link.get_text()!r} links to {link.get('href')!r}, no glossary entry")
            elif not (entry.find_next_sibling("p") and entry.find_next_sibling("p").get_text(strip=True)):
                problems.append(f"{path}: the glossary entry #{anchor} has no definition after its heading")
        for value in soup.select(".kb-value.kb-predicted"):
            predictions += 1
            note = value.select_one(".kb-predicted-note")
            words = note.get_text(" ", strip=True) if note else ""
            if not re.search(r"predict|予想|予測", words):
                problems.append(f"{path}: a prediction {value.get_text()!r} does not say it is one in words")
    assert terms and predictions, (terms, predictions)
    assert not problems, "\n".join(problems[:40])


# ---------------------------------------------------------------- in the browser: keyboard, colours, zoom, motion


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context()
    one = context.new_page()
    one.set_default_timeout(60_000)
    yield one
    context.close()


# The page's sequential focus order (no positive tabindex on the site): every focusable element it
# shows, in document order. Focuses the one just before the first that matches the selector.
BEFORE = """s => {
  const order = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
    .filter(e => e.tabIndex >= 0 && !e.disabled && e.checkVisibility({visibilityProperty: true}));
  const at = order.findIndex(e => e.matches(s));
  if (at > 0) order[at - 1].focus();
  return at;
}"""


def tab_to(page, selector: str, *, from_before: bool = False, limit: int = 400) -> None:
    """Press Tab until the element ``selector`` matches has the focus, or fail: from where the page is (its top,
    once loaded), or (``from_before``) from the element just before it in the page's focus order, focused by
    script. The second proves the element is in the focus order and Tab lands on it; not that nothing on the
    way from the top holds the focus (the tabs test tabs from the top, through the header and the nav)."""
    if from_before:
        assert page.evaluate(BEFORE, selector) >= 0, f"nothing in the page's focus order matches {selector}"
        limit = 12
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{limit} presses of Tab never reached {selector}")


@browser_only
@pytest.mark.parametrize("lang", LANGS)
def test_example_tabs_work_from_the_keyboard_and_say_their_state(page, site_url, lang):
    show(page, "light", 1280)
    page.goto(site_url + ("/ch01/" if lang == "ja" else "/en/ch01/"))
    show(page, "light", 1280)
    tabs = page.locator(".tabbed-set").first
    first, second = tabs.locator("> input").nth(0), tabs.locator("> input").nth(1)
    names = [tabs.locator(".tabbed-labels > label").nth(i).inner_text() for i in (0, 1)]
    tab_to(page, f"#{first.get_attribute('id')}")
    assert page.evaluate("document.activeElement.matches(':focus-visible')")
    accent = page.evaluate("getComputedStyle(document.body).getPropertyValue('--md-accent-fg-color').trim()")
    label = tabs.locator(".tabbed-labels > label").nth(0)
    assert contrast(label.evaluate("l => getComputedStyle(l).color"), "#ffffff") > 1  # it has a colour
    assert label.evaluate("l => getComputedStyle(l).color") == page.evaluate(
        "c => { const s = document.createElement('span'); s.style.color = c; document.body.append(s); const v = getComputedStyle(s).color; s.remove(); return v; }", accent), \
        "the focused tab's label is not marked (material colours it in the accent)"
    # a screen reader hears a radio button named by its label, and whether it is checked
    radio = page.get_by_role("radio", name=names[0], exact=True).and_(first)
    assert radio.is_checked()
    page.keyboard.press("ArrowRight")
    assert second.is_checked() and not first.is_checked()
    assert page.get_by_role("radio", name=names[1], exact=True).and_(second).is_checked()
    blocks = tabs.locator("> .tabbed-content > .tabbed-block")
    assert blocks.nth(1).is_visible() and not blocks.nth(0).is_visible()
    page.keyboard.press("ArrowLeft")
    assert first.is_checked() and blocks.nth(0).is_visible()


@browser_only
@pytest.mark.parametrize("lang", LANGS)
def test_glossary_terms_and_prediction_notes_open_from_the_keyboard(page, site_url, lang):
    home = "/" if lang == "ja" else "/en/"
    for selector, target in (("a.kb-term", "glossary/"), ("a.kb-predicted-note", "instructors/")):
        show(page, "light", 1280)
        page.goto(site_url + home + "ch01/")
        tab_to(page, selector, from_before=True)  # hundreds of presses from the top prove no more than the tabs test
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none", f"{selector}: focused, but no visible outline"
        href = page.evaluate("document.activeElement.getAttribute('href')")
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(re.escape(target)))
        anchor = href.partition("#")[2]
        assert anchor and page.locator(f"[id='{anchor}']").first.is_visible(), f"{selector}: Enter opened {page.url}, #{anchor} not shown"
