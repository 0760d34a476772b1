"""What axe cannot judge, checked on the built site: figures, keyboard, language, our colours, zoom and motion.

Every page is found in the build (a new chapter is checked as it appears). Each check is a
function of a page that returns its problems, so the same function is shown failing on a
deliberately broken page (a figure without a name or data, a low-contrast colour).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from accessibility import LANGS, PALETTES, WIDTHS, contrast, pages, show
from conftest import CHROMIUM, ROOT, serving

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
MIN_ALT = 40
browser_only = pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH (Debian: apt-get install chromium); never `playwright install`")


def html_of(site: Path, path: str) -> str:
    file = site / path.lstrip("/") / "index.html" if path.endswith("/") else site / path.lstrip("/")
    return file.read_text(encoding="utf-8")


def lang_of(path: str) -> str:
    return "en" if path.startswith("/en/") else "ja"


# ---------------------------------------------------------------- figures: a name, a description, data as text


def figure_problems(html: str, lang: str) -> list[str]:
    """What a reader who cannot see the figures of ``html`` (a page in ``lang``) would miss."""
    soup = BeautifulSoup(html, "html.parser")
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


def series_problems(html: str) -> list[str]:
    """Series told apart by colour alone: two series of one drawing whose markers have the same shape."""
    soup = BeautifulSoup(html, "html.parser")
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


def test_every_figure_has_a_name_a_description_and_its_data_as_text(built_site):
    checked, problems = 0, []
    for path in pages(built_site):
        html = html_of(built_site, path)
        checked += html.count('class="kb-figure"')
        problems += [f"{path}: {p}" for p in figure_problems(html, lang_of(path)) + series_problems(html)]
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


def lang_problems(html: str, lang: str) -> list[str]:
    soup = BeautifulSoup(html, "html.parser")
    problems = []
    if soup.html is None or soup.html.get("lang") != lang:
        problems.append(f"<html lang={soup.html.get('lang') if soup.html else None!r}>, not {lang!r}")
    for el in soup.select("[lang]"):
        if el.name != "html" and el.get("lang") not in LANGS:
            problems.append(f"<{el.name} lang={el.get('lang')!r}>: not a language of the book")
    return problems


def content_lang(path: str, html: str) -> str:
    """The language a page is written in: its folder's, but for the one 404 page, which material writes in English."""
    if path != "/404.html":
        return lang_of(path)
    heading = BeautifulSoup(html, "html.parser").select_one("article h1")
    return "ja" if heading is not None and JAPANESE.search(heading.get_text()) else "en"


def test_every_page_says_its_language(built_site):
    problems = []
    for path in pages(built_site):
        html = html_of(built_site, path)
        problems += [f"{path}: {p}" for p in lang_problems(html, content_lang(path, html))]
    assert not problems, "\n".join(problems)
    assert lang_problems('<html lang="en"><body></body></html>', "ja")


# ---------------------------------------------------------------- glossary terms and predictions: more than a tooltip


def test_every_glossary_term_links_to_its_definition_and_every_prediction_says_so_in_words(built_site):
    """A term's definition is its link's title (material's tooltip) and also the glossary entry the link opens;
    a prediction says in its own words that it is one (not only its colour and underline)."""
    problems, terms, predictions = [], 0, 0
    glossaries = {lang: BeautifulSoup(html_of(built_site, "/glossary/" if lang == "ja" else "/en/glossary/"), "html.parser") for lang in LANGS}
    for path in pages(built_site):
        soup = BeautifulSoup(html_of(built_site, path), "html.parser")
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


def tab_to(page, selector: str, limit: int = 400) -> None:
    """Press Tab until the element ``selector`` matches has the focus (keyboard only), or fail."""
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
        tab_to(page, selector, limit=600)
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none", f"{selector}: focused, but no visible outline"
        href = page.evaluate("document.activeElement.getAttribute('href')")
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(re.escape(target)))
        anchor = href.partition("#")[2]
        assert anchor and page.locator(f"[id='{anchor}']").first.is_visible(), f"{selector}: Enter opened {page.url}, #{anchor} not shown"


# Every visible drawing's words, points, lines and bars against the page's ground: (what, colour, ground).
FIGURE_COLOURS = """() => {
  const ground = getComputedStyle(document.body).backgroundColor;
  const out = [];
  for (const svg of document.querySelectorAll('figure.kb-figure svg')) {
    if (!svg.getClientRects().length) continue;
    const name = svg.getAttribute('class');
    for (const t of svg.querySelectorAll('text')) if (t.textContent.trim()) out.push(['text', name + ' "' + t.textContent.slice(0, 30) + '"', getComputedStyle(t).fill, ground]);
    for (const m of svg.querySelectorAll('.kb-point, .kb-bar, .kb-kernel-bar, .kb-cpu-bar'))
      out.push(['graphic', name + ' .' + m.getAttribute('class'), getComputedStyle(m).fill, ground]);
    for (const l of svg.querySelectorAll('polyline')) out.push(['graphic', name + ' polyline', getComputedStyle(l).stroke, ground]);
  }
  return out;
}"""


def colour_problems(page) -> list[str]:
    """The figures' colours on ``page`` under 4.5:1 (text) or 3:1 (points, lines, bars) against the page."""
    problems = []
    for kind, what, colour, ground in page.evaluate(FIGURE_COLOURS):
        if colour in ("none", "") or "url(" in colour:
            continue
        need = 4.5 if kind == "text" else 3.0
        ratio = contrast(colour, ground)
        if ratio < need:
            problems.append(f"{what}: {colour} on {ground} is {ratio:.2f}:1, under {need}:1")
    return problems


@browser_only
@pytest.mark.parametrize("lang", LANGS)
def test_the_figures_colours_meet_wcag_in_both_palettes_at_both_widths(page, built_site, site_url, lang):
    with_figures = [p for p in pages(built_site, lang) if 'class="kb-figure"' in html_of(built_site, p)]
    assert with_figures
    problems, checked = [], 0
    for path in with_figures:
        show(page, "light", WIDTHS[0])
        page.goto(site_url + path)
        for palette in PALETTES:
            for width in WIDTHS:
                show(page, palette, width)
                found = colour_problems(page)
                checked += 1
                problems += [f"{path} ({palette}, {width} px): {p}" for p in found]
    assert checked and not problems, "\n".join(problems[:40])


@browser_only
def test_a_low_contrast_figure_colour_fails(page, tmp_path):
    (tmp_path / "index.html").write_text(
        '<html lang="en"><body style="background:#ffffff"><figure class="kb-figure"><svg viewBox="0 0 50 20">'
        '<text x="1" y="10" style="fill:#aaaaaa">pale words</text><circle class="kb-point" cx="40" cy="10" r="4" style="fill:#dddddd"/>'
        "</svg></figure></body></html>", encoding="utf-8")
    with serving(tmp_path) as url:
        page.goto(url + "/")
        problems = colour_problems(page)
    assert any("pale words" in p and "4.5:1" in p for p in problems), problems
    assert any("kb-point" in p and "3.0:1" in p for p in problems), problems


@browser_only
def test_every_page_reflows_at_200_percent_zoom_and_honours_reduced_motion(browser, built_site, based_url):
    """200 % zoom of a 1280-px window is a 640-px layout at twice the pixels: no page scrolls sideways, and
    the text is still there; with reduced motion, no transition or smooth scroll of ours or material's remains."""
    context = browser.new_context(viewport={"width": 640, "height": 450}, device_scale_factor=2, reduced_motion="reduce")
    problems = []
    try:
        one = context.new_page()
        one.set_default_timeout(60_000)
        for path in pages(built_site):
            one.goto(based_url + path)
            wide = one.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
            if wide > 1:
                problems.append(f"{path}: scrolls sideways by {wide} px at 200 % zoom")
            if not one.locator("h1").first.is_visible():
                problems.append(f"{path}: its heading is not shown at 200 % zoom")
            moving = one.evaluate("""() => [...document.querySelectorAll('.md-header, .md-sidebar, .md-nav__link, .md-typeset a, .md-top')]
                .filter(e => parseFloat(getComputedStyle(e).transitionDuration) > 0.001).length""")
            if moving:
                problems.append(f"{path}: {moving} element(s) still animate with reduced motion")
            if one.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "smooth":
                problems.append(f"{path}: scrolls smoothly with reduced motion")
    finally:
        context.close()
    assert not problems, "\n".join(problems)
