"""The built site in a real browser: Debian's Chromium driven by Playwright.

Never ``playwright install``: the tests use the system's ``chromium`` and are skipped,
saying so, only where there is none. The site is the one ``built_site`` (conftest.py)
builds once per session, served from 127.0.0.1. Screenshots of the chapter go to
test-output/screenshots/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import dataclasses
import html
import json
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest

from conftest import CHROMIUM, ROOT

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH (Debian: apt-get install chromium); never `playwright install`")

CAPTURES = ROOT / "snippets" / "ch01" / "captures"
SCREENSHOTS = ROOT / "test-output" / "screenshots"
CHAPTER = {"ja": "/ch01/", "en": "/en/ch01/"}
HOME = {"ja": "/", "en": "/en/"}
CUDA_NAME = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def context(browser):
    """One browser context for the module's tests (each opens its own page): a context is costly."""
    ctx = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    yield ctx
    ctx.close()


@dataclasses.dataclass
class Watched:
    """A page with everything worth asserting on recorded as it happens."""

    page: object
    errors: list[str] = dataclasses.field(default_factory=list)  # console errors, page errors, failed loads
    warnings: list[str] = dataclasses.field(default_factory=list)  # console warnings (the search worker's, too)
    requests: list[str] = dataclasses.field(default_factory=list)  # every URL the page asked for


def watch(page) -> Watched:
    page.set_default_timeout(10_000)
    w = Watched(page)
    # The search worker's console messages arrive here too.
    page.on("console", lambda m: (w.errors if m.type == "error" else w.warnings if m.type == "warning" else []).append(f"console.{m.type}: {m.text}"))
    page.on("pageerror", lambda e: w.errors.append(f"pageerror: {e}"))
    page.on("requestfailed", lambda r: w.errors.append(f"request failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and w.errors.append(f"HTTP {r.status}: {r.url}"))
    page.on("request", lambda r: w.requests.append(r.url))
    return w


@contextmanager
def open_page(context, color_scheme: str = "light", viewport: dict | None = None):
    """A new page in context, in a colour scheme and at a size (a desktop's by default).

    context: the module's, or a browser for a context of its own. material keeps the
    palette a page started in (localStorage) and uses it on the next page it loads, so
    a page in another colour scheme than the one before it needs a context of its own.
    """
    own = context.new_context() if hasattr(context, "new_context") else None
    page = (own or context).new_page()
    page.emulate_media(color_scheme=color_scheme)
    page.set_viewport_size(viewport or {"width": 1280, "height": 900})
    try:
        yield watch(page)
    finally:
        page.close()
        if own is not None:
            own.close()


def load(watched: Watched, url: str) -> None:
    watched.page.goto(url)


def search_ready(page, timeout: float = 10_000) -> None:
    """Wait until material's search worker has loaded the index and lunr, and says so."""
    page.wait_for_function(
        """() => {
          const meta = document.querySelector('.md-search-result__meta');
          const config = JSON.parse(document.getElementById('__config').textContent);
          return meta && meta.textContent.trim() === config.translations['search.result.placeholder'];
        }""", timeout=timeout)


# ---------------------------------------------------------------- every page loads cleanly


PAGES = ["/", "/ch01/", "/ch01/notebook/", "/en/", "/en/ch01/", "/en/ch01/notebook/"]


@pytest.fixture(scope="module")
def loads(browser, site_url) -> dict[str, dict]:
    """Every page loaded once, each in a fresh context (an empty cache): what it logged and
    requested, lazy loads included (search index, lunr), its title and language."""
    contexts = [browser.new_context() for _ in PAGES]
    try:
        pages = {path: watch(ctx.new_page()) for path, ctx in zip(PAGES, contexts)}
        for path, w in pages.items():  # start them all, then wait: the loads overlap
            w.page.goto(site_url + path, wait_until="commit")
        seen = {}
        for path, w in pages.items():
            search_ready(w.page, timeout=30_000)
            w.page.wait_for_load_state("networkidle")
            seen[path] = {
                "errors": list(w.errors), "requests": list(w.requests),
                "h1": w.page.locator("article.md-content__inner h1").count(),
                "lang": w.page.evaluate("document.documentElement.lang"),
            }
        return seen
    finally:
        for ctx in contexts:
            ctx.close()


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_without_console_errors(loads, path):
    got = loads[path]
    assert got["h1"] >= 1, f"{path}: no page title"
    assert got["lang"] == ("en" if path.startswith("/en/") else "ja"), f"{path}: <html lang={got['lang']}>"
    assert got["errors"] == [], f"{path}:\n" + "\n".join(got["errors"])


# ---------------------------------------------------------------- language switcher


@pytest.mark.parametrize(("start", "expected"), [("/ch01/#fusion", "/en/ch01/#fusion"), ("/en/ch01/#fusion", "/ch01/#fusion")])
def test_language_switcher_keeps_page_and_section(context, site_url, start, expected):
    other = "en" if expected.startswith("/en/") else "ja"
    with open_page(context) as w:
        load(w, site_url + start)
        search_ready(w.page, timeout=30_000)  # else the click aborts the search worker's lazy loads, a failed request
        w.page.locator(".md-header .md-select").hover()  # material opens the menu on hover
        link = w.page.locator(f".md-header a.md-select__link[hreflang={other}]")
        link.click()
        w.page.wait_for_url(lambda url: urlsplit(url).path == urlsplit(expected).path)
        assert w.page.url == site_url + expected, f"switching language from {start} went to {w.page.url}, not {expected}"
        assert w.page.evaluate("location.hash") == "#fusion"
        assert w.page.locator("#fusion").count() == 1
        assert w.errors == [], "\n".join(w.errors)


# ---------------------------------------------------------------- search


def search(w: Watched, query: str, keystrokes: bool = True) -> list[list[str]]:
    """Type query into material's search box; each result's link paths (with fragments), best first.

    The first link of a result is its page, the others its best sections.
    """
    meta = w.page.locator(".md-search-result__meta")
    field = w.page.locator(".md-search__input")
    field.click()
    placeholder = meta.text_content()  # "Type to start searching", until the worker answers
    if keystrokes:
        field.press_sequentially(query, delay=20)  # as a reader types, one key at a time
    else:
        field.fill(query)  # one query only, so the worker's complaints are about this one
    # material searches on keyup; a Japanese word arrives as composed text (no keyup of
    # its own): the key that ends an IME composition, as it were.
    field.press("End")
    w.page.wait_for_function(
        "([q, idle]) => document.querySelector('.md-search__input').value === q"
        " && document.querySelector('.md-search-result__meta').textContent !== idle",
        arg=[query, placeholder])
    w.page.wait_for_timeout(300)  # the answer to the last keystroke, not an earlier one
    return [item.locator("a").evaluate_all("links => links.map(a => a.pathname + a.hash)")
            for item in w.page.locator(".md-search-result__item").all()]


def _worker_failures(w: Watched) -> list[str]:
    return [m for m in w.warnings if "Invalid query" in m or "Error" in m]


@pytest.mark.parametrize(("lang", "query"), [("ja", "融合"), ("en", "fusion")])
def test_search_finds_the_fusion_section_in_the_readers_language(context, site_url, lang, query):
    with open_page(context) as w:
        load(w, site_url + HOME[lang])
        items = search(w, query)
        assert items, f"{query!r} finds nothing on {HOME[lang]}: " + "\n".join(_worker_failures(w))
        first = items[0]
        assert first[0] == CHAPTER[lang], f"first result for {query!r} is {first[0]}, not the chapter in the reader's language {CHAPTER[lang]}: {items}"
        best_section = next((href for href in first if "#" in href), None)
        assert best_section == CHAPTER[lang] + "#fusion", f"best section for {query!r}: {best_section}; all results: {items}"
        # One index holds both languages (mkdocs-static-i18n writes one; material cannot
        # filter it by language): the other language's pages may follow, never lead.


@pytest.mark.parametrize(("lang", "query"), [("en", "kernel"), ("en", "torch"), ("ja", "カーネル")])
def test_search_for_the_books_own_words_finds_pages(context, site_url, lang, query):
    """The book's commonest words find pages: the search worker must not fail on any page of the index."""
    with open_page(context) as w:
        load(w, site_url + HOME[lang])
        items = search(w, query, keystrokes=False)
        failures = _worker_failures(w)
        assert items, (f"{query!r} on {HOME[lang]} finds nothing "
                       f"({w.page.locator('.md-search-result__meta').inner_text()!r}); the search worker said:\n" + "\n".join(failures))
        assert failures == [], "\n".join(failures)


# ---------------------------------------------------------------- kernel names, exactly


def _cpu_kernel_names() -> dict[str, list[str]]:
    """Snippet id -> the kernel names of the capture's last profiler session, in table order."""
    names = {}
    for path in sorted(CAPTURES.glob("*.cpu.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw["sessions"]:
            names[raw["snippet"]] = [k["name"] for k in raw["sessions"][-1]["kernels"]]
    return names


_TABLE_NAMES = """root => [...root.querySelectorAll('.kb-kernels table')]
  .filter(t => t.querySelector('caption').textContent.includes('(CPU)'))
  .map(t => [...t.querySelectorAll('tbody tr:not(.kb-total) td:first-child')]
    .map(td => (td.querySelector('.kb-fullname') || td).innerText))"""


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_kernel_tables_show_the_captures_names_exactly(context, site_url, lang):
    expected = _cpu_kernel_names()
    assert len(expected) >= 3, f"too few CPU captures with kernels under {CAPTURES}"
    with open_page(context) as w:
        load(w, site_url + CHAPTER[lang])
        w.page.evaluate("document.querySelectorAll('.kb-kernels details').forEach(d => d.open = true)")
        for snippet, names in expected.items():
            example = w.page.locator(f"#kb-{snippet.replace('/', '-').replace('_', '-')}")
            assert example.count() == 1, f"{CHAPTER[lang]}: no example for {snippet}"
            tables = example.evaluate(_TABLE_NAMES)
            assert tables, f"{CHAPTER[lang]}: {snippet} shows no CPU kernel table"
            assert tables[-1] == names, f"{CHAPTER[lang]}: {snippet}'s table shows {tables[-1]}, its capture says {names}"


def test_template_kernel_name_displays_exactly(context, site_url):
    """A CUDA name full of <, >, & and * survives the renderer and shows, character for character."""
    from kernelbook.records import Kernel, Session, load as load_capture
    from kernelbook.site.directives.run import kernel_table

    base = load_capture(CAPTURES / "first_kernel.cpu.json")
    names = [CUDA_NAME, "void gemm<float, 128, 128>(float const*, float*) & <script>alert(1)</script>"]
    capture = dataclasses.replace(base, device="cuda", sessions=(Session(0, "cuda", tuple(Kernel(n, 1, 2.0) for n in names), 2),))
    fragment = kernel_table(capture, "en")
    assert "<float>" not in fragment and "<script>" not in fragment and "<script>alert(1)</script>" in html.unescape(fragment)
    with open_page(context) as w:
        w.page.set_content(f'<!doctype html><html><head><link rel="stylesheet" href="{site_url}/assets/kernelbook.css"></head><body>{fragment}</body></html>')
        assert w.page.locator("script, float, char").count() == 0, "a kernel name became markup"
        full = w.page.locator(".kb-fullname")
        assert full.count() == 2
        for i, name in enumerate(names):
            w.page.locator(".kb-kernels summary").nth(i).click()  # open the <details> as a reader does
            assert full.nth(i).is_visible()
            assert full.nth(i).inner_text() == name
            assert full.nth(i).text_content() == name
        assert w.page.locator(".kb-kernels summary code").first.inner_text() == "vectorized_elementwise_kernel<CUDAFunctor_add>"
        assert w.errors == [], "\n".join(w.errors)


# ---------------------------------------------------------------- copy button


def test_copy_button_copies_the_snippet(context, site_url):
    snippet = (ROOT / "snippets" / "ch01" / "first_kernel.py").read_text(encoding="utf-8")
    with open_page(context) as w:
        load(w, site_url + CHAPTER["en"])
        example = w.page.locator(".kb-example").first
        assert example.get_attribute("id") == "kb-ch01-first-kernel"
        block = example.locator(".highlight").first
        block.hover()
        # material < 9.7: button.md-clipboard; 9.7 and later: nav.md-code__nav > button[data-md-type=copy]
        button = block.locator(".md-clipboard, .md-code__button[data-md-type=copy]")
        assert button.count() == 1, "the first example's code block has no copy button (theme feature content.code.copy?)"
        button.click()
        w.page.locator(".md-dialog--active").wait_for()  # material's "Copied to clipboard"
        copied = w.page.evaluate("navigator.clipboard.readText()")
        assert copied.rstrip() == snippet.rstrip()
        assert w.errors == [], "\n".join(w.errors)


# ---------------------------------------------------------------- dark mode, a phone's width


_OVERFLOW = """() => {
  const luminance = css => css.match(/[\\d.]+/g).slice(0, 3).map(Number)
    .map(v => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const contrast = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const content = document.querySelector('.md-content');
  return {content: [content.scrollWidth, content.clientWidth],
          page: [document.documentElement.scrollWidth, window.innerWidth],
          scheme: document.body.getAttribute('data-md-color-scheme'),
          contrast: [...document.querySelectorAll('.kb-notebook a.md-button:not(.md-button--primary)')].map(a => [a.textContent.trim(), contrast(getComputedStyle(a).color, getComputedStyle(document.body).backgroundColor)]),
          wide: [...document.querySelectorAll('.md-content *')]
            .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('pre, table, .kb-kernels, .kb-environment, .md-typeset__scrollwrap, .highlight, .tabbed-labels'))
            .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))};
}"""


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_dark_mode_on_a_phone_does_not_widen_the_page(browser, site_url, lang):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with open_page(browser, color_scheme="dark", viewport={"width": 375, "height": 812}) as w:
        load(w, site_url + CHAPTER[lang])
        got = w.page.evaluate(_OVERFLOW)
        w.page.screenshot(path=str(SCREENSHOTS / f"ch01-{lang}-dark-375.png"), full_page=True)
        assert got["scheme"] == "slate", f"dark colour scheme not applied: {got['scheme']}"
        content, page = got["content"], got["page"]
        assert content[0] <= content[1] + 1, f"{CHAPTER[lang]}: the main text overflows sideways at 375 px ({content}); too wide: {got['wide']}"
        assert page[0] <= page[1], f"{CHAPTER[lang]}: the page scrolls sideways at 375 px ({page}); too wide: {got['wide']}"
        # outlined buttons (text on the page background): material draws them primary indigo,
        # 2.3:1 on slate; kernelbook.css recolours them
        assert got["contrast"] and all(ratio >= 4.5 for _, ratio in got["contrast"]), f"notebook links too faint in the dark scheme (WCAG AA 4.5:1): {got['contrast']}"
        assert w.errors == [], "\n".join(w.errors)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_light_screenshot_of_the_chapter(context, site_url, lang):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with open_page(context) as w:
        load(w, site_url + CHAPTER[lang])
        assert w.page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "default"
        out = SCREENSHOTS / f"ch01-{lang}-light.png"
        w.page.screenshot(path=str(out), full_page=True)
        assert out.stat().st_size > 10_000


# ---------------------------------------------------------------- nothing from outside


def test_page_loads_request_nothing_outside_localhost(loads):
    seen = {path: loads[path]["requests"] for path in (HOME["ja"], CHAPTER["ja"], HOME["en"], CHAPTER["en"])}
    everything = [url for urls in seen.values() for url in urls]
    outside = sorted({url for url in everything if urlsplit(url).scheme not in ("data", "blob") and urlsplit(url).hostname != "127.0.0.1"})
    assert outside == [], "requests outside the site:\n" + "\n".join(outside)
    for path, urls in seen.items():  # never vacuous: the page, its CSS and JS, the search index
        assert len(urls) > 5, f"{path} made only {len(urls)} requests: {urls}"
        assert any(u.endswith(".css") for u in urls) and any(u.endswith(".js") for u in urls), urls
        assert any(u.endswith("/search/search_index.json") for u in urls), f"{path}: the search index was never fetched: {urls}"
