"""The built site in a real browser: Debian's Chromium driven by Playwright.

Never ``playwright install``: the tests use the system's ``chromium`` and are skipped,
saying so, only where there is none. The site is the one ``built_site`` (conftest.py)
builds once per session, served from 127.0.0.1. Screenshots of the chapter go to a
temporary folder, or to ``$KERNELBOOK_SCREENSHOTS`` when set, for a person to look at;
never into the checkout.
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import urlopen

import pytest

from conftest import CHROMIUM, CHROMIUM_ARGS, ROOT

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH (Debian: apt-get install chromium); never `playwright install`")

CAPTURES = ROOT / "snippets" / "ch01" / "captures"
HOME = {"ja": "/", "en": "/en/"}
CHAPTERS = ("ch01", "ch02", "ch03")


def chapter_path(lang: str, chapter: str = "ch01") -> str:
    """A chapter page's path on the site: /ch02/ (Japanese), /en/ch02/ (English)."""
    return f"{HOME[lang]}{chapter}/"


CHAPTER = {lang: chapter_path(lang) for lang in HOME}  # chapter 1, where a test needs one chapter
CUDA_NAME = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    """Where screenshots go: ``$KERNELBOOK_SCREENSHOTS``, else a temporary folder (printed)."""
    folder = Path(os.environ["KERNELBOOK_SCREENSHOTS"]) if os.environ.get("KERNELBOOK_SCREENSHOTS") else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {folder}")
    return folder


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
    # A full-page screenshot of a long chapter takes more than 10 s on a loaded 2-core machine.
    page.set_default_timeout(60_000)
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


PAGES = (["/", "/en/", "/glossary/", "/en/glossary/"]
         + [f"{chapter_path(lang, ch)}{page}" for lang in HOME for ch in CHAPTERS for page in ("", "notebook/")])


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


# A chapter's key terms, each language's words: the section a reader searching for it should land on.
KEY_TERMS = [
    ("ja", "融合", "ch01", "fusion"), ("en", "fusion", "ch01", "fusion"),
    ("ja", "帯域", "ch02", "copy-roof"), ("en", "bandwidth", "ch02", "copy-roof"),
    ("ja", "ルーフライン", "ch02", "roofline"), ("en", "roofline", "ch02", "roofline"),
    ("ja", "グラフブレーク", "ch03", "graph-breaks"), ("en", "graph break", "ch03", "graph-breaks"),
    # Guards and recompiles are taught by a section and its subsections (the recompile limit, and
    # watching breaks, recompiles and guards in the logs): any of them may come first.
    ("ja", "ガード", "ch03", ("guards-recompiles", "diagnostics")), ("en", "guard", "ch03", ("guards-recompiles", "diagnostics")),
    ("ja", "CUDA グラフ", "ch03", "cuda-graphs"), ("en", "CUDA graph", "ch03", "cuda-graphs"),
    # Words mixing kanji and katakana, typed as one word (mkdocs.yml's search separator splits
    # them as the index does).
    ("ja", "再コンパイル", "ch03", ("guards-recompiles", "recompile-limit", "diagnostics")),
    ("en", "recompile", "ch03", ("guards-recompiles", "recompile-limit", "diagnostics")),
    ("ja", "カーネル融合", "ch01", "fusion"),
    ("ja", "マスク", "ch04", "mask"), ("en", "mask", "ch04", "mask"),
]
# Terms later chapters use as much as the one that teaches them: that many other chapter pages
# may rank above the teaching chapter (chapters 4 and 5 write "融合" in nearly every section: they fuse
# by hand, and their titles, "融合カーネルを自分で書く" and "CUDA C++ で書く融合カーネル", hold both
# words of "カーネル融合").
SHARED = {("ja", "融合"): 2, ("ja", "カーネル融合"): 2}


@pytest.mark.parametrize(("lang", "query", "chapter", "section"), KEY_TERMS,
                         ids=[f"{lang}-{query}-{chapter}" for lang, query, chapter, _ in KEY_TERMS])
def test_search_finds_a_key_terms_section_in_the_readers_language(context, site_url, lang, query, chapter, section):
    """The first chapter page among the results is the term's chapter in the reader's language, and its
    best section the term's; only that chapter's own notebook (its copy of the prose) may rank above it."""
    page = chapter_path(lang, chapter)
    with open_page(context) as w:
        load(w, site_url + HOME[lang])
        items = search(w, query)
        assert items, f"{query!r} finds nothing on {HOME[lang]}: " + "\n".join(_worker_failures(w))
        assert all(_in_language(href, lang) for item in items for href in item), items
        pages = [i for i, item in enumerate(items) if not item[0].endswith("/notebook/")]
        assert pages, f"{query!r} finds only notebooks: {items}"
        allowed = pages[:1 + SHARED.get((lang, query), 0)]
        at = next((i for i in allowed if items[i][0] == page), None)
        assert at is not None, f"first chapter found for {query!r} is {items[pages[0]][0]}, not {page} in the reader's language: {items}"
        owners = {items[i][0] for i in allowed}  # above it: these chapters and their notebooks only
        assert all(item[0].removesuffix("notebook/") in owners for item in items[:at]), f"{query!r}: other pages rank above {page}: {items}"
        best_section = next((href for href in items[at] if "#" in href), None)
        sections = (section,) if isinstance(section, str) else section
        assert best_section in [f"{page}#{s}" for s in sections], f"best section for {query!r}: {best_section}; all results: {items}"


TRITON_CHAPTER = {"ja": "/ch04/", "en": "/en/ch04/"}


# "Triton", typed on either language's site: chapter 4 in the reader's language comes first (or its
# notebook, then the chapter), or after chapter 5 alone, which sets CUDA C++ against Triton in nearly
# every section; any of chapter 4's sections (None), as nearly all of them are about Triton.
@pytest.mark.parametrize(("lang", "query", "section"), [("en", "Triton", None), ("ja", "Triton", None)])
def test_search_finds_chapter_4s_terms_in_the_readers_language(context, site_url, lang, query, section):
    with open_page(context) as w:
        load(w, site_url + HOME[lang])
        items = search(w, query)
        assert items, f"{query!r} finds nothing on {HOME[lang]}: " + "\n".join(_worker_failures(w))
        chapter = TRITON_CHAPTER[lang]
        rivals = (chapter, chapter + "notebook/", chapter.replace("ch04", "ch05"), chapter.replace("ch04", "ch05") + "notebook/")
        # the chapter's notebook (its headings and code) may rank first: still the chapter, in the reader's language
        assert items[0][0] in rivals, f"first result for {query!r} is {items[0][0]}, not chapter 4 (or 5): {items}"
        at = next((i for i, item in enumerate(items) if item[0] == chapter), None)
        assert at is not None and all(item[0] in rivals for item in items[:at]), f"{chapter} is not first but for chapter 5 and the notebooks for {query!r}: {items}"
        first = items[at]
        sections = [href for href in first if "#" in href]
        assert sections and all(h.startswith(chapter + "#") for h in sections), items
        if section:
            assert sections[0] == chapter + section, f"best section for {query!r}: {sections[0]}; all results: {items}"
        assert all(_in_language(href, lang) for item in items for href in item), items


def _in_language(path: str, lang: str) -> bool:
    return path.startswith("/en/") if lang == "en" else not path.startswith("/en/")


# Terms both languages' pages hold: the reader's search must return only their own.
BOTH = [("en", "GPU"), ("ja", "GPU"), ("en", "torch.compile"), ("ja", "torch.compile"), ("en", "kernel launch"), ("ja", "GPU メモリ")]


@pytest.mark.parametrize(("lang", "query"), BOTH)
def test_search_returns_only_pages_in_the_readers_language(context, site_url, lang, query):
    other = "ja" if lang == "en" else "en"
    with open_page(context) as w:
        load(w, site_url + HOME[lang])
        search_ready(w.page, timeout=30_000)
        fetched = [u for u in w.requests if u.endswith("/search/search_index.json")]  # before the test's own fetches
        # never vacuous: the other language's chapter holds the term too
        word = query.split()[0]
        assert word.lower() in urlopen(site_url + CHAPTER[other]).read().decode().lower(), f"{word!r} is not on {CHAPTER[other]}: pick another term"
        items = search(w, query)
        assert items, f"{query!r} finds nothing on {HOME[lang]}: " + "\n".join(_worker_failures(w))
        links = [href for item in items for href in item]
        foreign = [href for href in links if not _in_language(href, lang)]
        assert foreign == [], f"{query!r} on {HOME[lang]} returns pages of another language: {foreign}; all results: {items}"
        assert fetched == [site_url + HOME[lang] + "search/search_index.json"], f"the page fetched {fetched}, not its language's index"
        assert w.errors == [], "\n".join(w.errors)


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


def _ran_on_the_page(lang: str, chapter: str = "ch01") -> list[str]:
    """The snippets the chapter page runs (``[[kb:run SNIPPET]]``), in page order."""
    return re.findall(r"^\[\[kb:run (\S+)\]\]$", (ROOT / "docs" / lang / chapter / "index.md").read_text(encoding="utf-8"), re.M)


def _cpu_kernel_names(lang: str, chapter: str = "ch01") -> dict[str, list[str]]:
    """Snippet id -> the kernel names of its capture's last profiler session, in table order, for
    every example the chapter page runs that profiles."""
    names = {}
    for snippet in _ran_on_the_page(lang, chapter):
        ch, stem = snippet.split("/")
        raw = json.loads((ROOT / "snippets" / ch / "captures" / f"{stem}.cpu.json").read_text(encoding="utf-8"))
        if raw["sessions"]:
            names[raw["snippet"]] = [k["name"] for k in raw["sessions"][-1]["kernels"]]
    return names


_TABLE_NAMES = """root => [...root.querySelectorAll('.kb-kernels table')]
  .filter(t => t.querySelector('caption').textContent.includes('(CPU)'))
  .map(t => [...t.querySelectorAll('tbody tr:not(.kb-total) td:first-child')]
    .map(td => (td.querySelector('.kb-fullname') || td).innerText))"""


@pytest.mark.parametrize("chapter", CHAPTERS)
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_kernel_tables_show_the_captures_names_exactly(context, site_url, lang, chapter):
    expected = _cpu_kernel_names(lang, chapter)
    assert len(expected) >= 2, f"too few CPU captures with kernels for {chapter}"
    page = chapter_path(lang, chapter)
    with open_page(context) as w:
        load(w, site_url + page)
        w.page.evaluate("document.querySelectorAll('.kb-kernels details').forEach(d => d.open = true)")
        for snippet, names in expected.items():
            example = w.page.locator(f"#kb-{snippet.replace('/', '-').replace('_', '-')}")
            assert example.count() == 1, f"{page}: no example for {snippet}"
            tables = example.evaluate(_TABLE_NAMES)
            assert tables, f"{page}: {snippet} shows no CPU kernel table"
            assert tables[-1] == names, f"{page}: {snippet}'s table shows {tables[-1]}, its capture says {names}"


def test_template_kernel_name_displays_exactly(context, site_url):
    """A CUDA name full of <, >, & and * survives the renderer and shows, character for character."""
    from kernelbook.common.records import Kernel, Session, load as load_capture
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


# ---------------------------------------------------------------- the instructors' links

INSTRUCTORS = {"ja": "/instructors/", "en": "/en/instructors/"}
_INDEX = """() => [...document.querySelectorAll('.kb-sections-page, .kb-sections li')].map(e => {
  const line = e.matches('h3') ? e.nextElementSibling : e;
  const button = line.querySelector('button.kb-copy');
  return {href: e.querySelector('a').href, shown: line.querySelector('.kb-url code').innerText,
          copies: button.dataset.kbCopy, visible: button.checkVisibility()};
})"""


def _published() -> str:
    from conftest import book_settings

    return book_settings().site_url.rstrip("/") + "/"


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_instructors_links_work_where_the_site_is_served_and_show_the_published_url(context, site_url, lang):
    published = _published()
    with open_page(context) as w:
        load(w, site_url + INSTRUCTORS[lang])
        entries = w.page.evaluate(_INDEX)
        assert len(entries) >= 10, entries
        for e in entries:
            assert e["href"].startswith(site_url + HOME[lang]), f"{e['href']} is not on the site being served ({site_url}{HOME[lang]})"
            assert e["shown"] == e["copies"] == published + e["href"][len(site_url) + 1:], e
            assert e["visible"], f"the copy button for {e['shown']} is hidden (kernelbook.js did not run?)"
        search_ready(w.page, timeout=30_000)  # else the click aborts the search worker's lazy loads, a failed request
        w.page.locator(".kb-sections a[href$='ch01/#fusion']").click()  # a link goes to its section here, not to site_url
        w.page.wait_for_url(site_url + CHAPTER[lang] + "#fusion")
        assert w.page.locator("#fusion").is_visible()
        assert w.errors == [], "\n".join(w.errors)


def test_copy_buttons_copy_the_published_url_by_mouse_and_by_keyboard(context, site_url):
    published = _published()
    with open_page(context) as w:
        load(w, site_url + INSTRUCTORS["en"])
        fusion = w.page.locator(".kb-sections li", has=w.page.locator("a[href$='ch01/#fusion']"))
        fusion.locator("button.kb-copy").click()
        assert w.page.evaluate("navigator.clipboard.readText()") == published + "en/ch01/#fusion"
        assert fusion.locator("button.kb-copy").inner_text() == "Copied"
        assert w.page.get_by_role("status").inner_text() == "Copied"  # said to screen readers too
        # keyboard only: Tab from the section's link reaches its button; Enter copies
        summary = w.page.locator(".kb-sections li", has=w.page.locator("a[href$='ch01/#summary']"))
        summary.locator("a").focus()
        w.page.keyboard.press("Tab")  # the button comes right after the link
        assert w.page.evaluate("document.activeElement.dataset.kbCopy") == published + "en/ch01/#summary"
        w.page.keyboard.press("Enter")
        w.page.wait_for_function("() => document.activeElement.dataset.kbState === 'copied'")
        assert w.page.evaluate("navigator.clipboard.readText()") == published + "en/ch01/#summary"
        w.page.keyboard.press("Space")  # a <button>: Space works as well
        assert w.errors == [], "\n".join(w.errors)


def test_copy_without_a_clipboard_selects_the_url_quietly(browser, site_url):
    """No clipboard API and execCommand refused (an insecure page, a locked-down browser):
    no error anywhere, the URL is selected for the reader to copy, and the button says so."""
    with open_page(browser) as w:
        w.page.add_init_script("Object.defineProperty(Navigator.prototype, 'clipboard', {get: () => undefined});"
                               "document.execCommand = () => { throw new Error('refused'); };")
        load(w, site_url + INSTRUCTORS["ja"])
        item = w.page.locator(".kb-sections li", has=w.page.locator("a[href$='ch01/#fusion']"))
        button = item.locator("button.kb-copy")
        button.click()
        w.page.wait_for_function("() => document.querySelector('[data-kb-state]') !== null")
        assert w.page.evaluate("getSelection().toString()") == _published() + "ch01/#fusion"
        assert button.get_attribute("data-kb-state") == "failed"
        assert button.inner_text() == button.get_attribute("data-kb-failed") and "Ctrl+C" in button.inner_text()
        assert w.errors == [], "\n".join(w.errors)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_urls_wrap_only_between_their_parts_on_a_phone(browser, site_url, lang):
    with open_page(browser, viewport={"width": 375, "height": 812}) as w:
        load(w, site_url + INSTRUCTORS[lang])
        got = w.page.evaluate("""() => ({
          parts: [...document.querySelectorAll('.kb-url code span')].map(s => [s.textContent, s.getClientRects().length]),
          wrapped: [...document.querySelectorAll('.kb-url code')].filter(c => new Set([...c.getClientRects()].map(r => Math.round(r.top))).size > 1).length,
          page: [document.documentElement.scrollWidth, window.innerWidth]})""")
        split = [text for text, rects in got["parts"] if rects != 1]
        assert split == [], f"URL parts broken across lines at 375 px: {split}"
        assert any(text.startswith("#") for text, _ in got["parts"])  # the anchors are parts of their own
        assert got["wrapped"] > 0, "no URL needed to wrap at 375 px: this test proves nothing"
        assert got["page"][0] <= got["page"][1], f"the page scrolls sideways at 375 px: {got['page']}"
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


# ---------------------------------------------------------------- nothing covers what it labels

# Each copy button (material's on the pages, mkdocs-jupyter's on the notebook pages): the
# code text it covers (only what shows: a long line is clipped by its box) and how far it
# stands inside the block it belongs to (negative: on or over the block's border).
_COPY_BUTTONS = """() => [...document.querySelectorAll('pre > .md-code__nav, .CodeMirror > .zeroclipboard-container')].map(nav => {
  const button = nav.getBoundingClientRect();
  const code = nav.parentElement.querySelector(':scope > code, :scope > .highlight-ipynb > pre');
  const block = nav.closest('.jp-InputArea-editor') || nav.parentElement;
  const view = code.getBoundingClientRect(), box = block.getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(code);
  const covered = [...range.getClientRects()]
    .map(r => ({l: Math.max(r.left, view.left), r: Math.min(r.right, view.right), t: Math.max(r.top, view.top), b: Math.min(r.bottom, view.bottom)}))
    .filter(r => r.r > r.l && r.b > r.t && r.l < button.right && r.r > button.left && r.t < button.bottom && r.b > button.top);
  return {where: (code.textContent.trim().split('\\n')[0] || '').slice(0, 60), covered: covered.length,
          margin: Math.min(button.left - box.left, box.right - button.right, button.top - box.top, box.bottom - button.bottom)};
})"""


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("path", ["/en/ch01/", "/ch01/notebook/"])
def test_copy_buttons_cover_no_code_and_sit_inside_their_block(browser, site_url, path, width):
    with open_page(browser, viewport={"width": width, "height": 812}) as w:
        load(w, site_url + path)
        w.page.wait_for_selector("pre > .md-code__nav, .zeroclipboard-container", state="attached")
        buttons = w.page.evaluate(_COPY_BUTTONS)
        assert buttons, f"{path}: no copy buttons at all"
        over = [b["where"] for b in buttons if b["covered"]]
        assert over == [], f"{path} at {width} px: a copy button covers the code of {over}"
        edge = [(b["where"], round(b["margin"], 1)) for b in buttons if b["margin"] < 2]
        assert edge == [], f"{path} at {width} px: a copy button sits on its block's border: {edge}"


@pytest.mark.parametrize("width", [375, 1280])
def test_kernel_table_caption_stands_clear_of_the_box(browser, site_url, width):
    with open_page(browser, viewport={"width": width, "height": 812}) as w:
        load(w, site_url + CHAPTER["en"])
        gaps = w.page.evaluate("""() => [...document.querySelectorAll('.kb-kernels table')].map(table => {
          const caption = table.querySelector('caption'), range = document.createRange();
          range.selectNodeContents(caption);
          const text = range.getBoundingClientRect(), box = table.getBoundingClientRect();
          const cell = document.createRange();
          cell.selectNodeContents(table.querySelector('th'));
          return [text.left - box.left, text.top - box.top, cell.getBoundingClientRect().left - text.left];
        })""")
        assert gaps, "no kernel tables"
        for left, top, misalign in gaps:
            assert left >= 8 and top >= 4, f"a kernel table's caption touches its box at {width} px: {left:.1f} px from the left edge, {top:.1f} from the top"
            assert abs(misalign) <= 2, f"the caption is {misalign:.1f} px out of line with the cells' text"


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


@pytest.mark.parametrize("chapter", CHAPTERS)
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_dark_mode_on_a_phone_does_not_widen_the_page(browser, site_url, lang, chapter, screenshots):
    path = chapter_path(lang, chapter)
    with open_page(browser, color_scheme="dark", viewport={"width": 375, "height": 812}) as w:
        load(w, site_url + path)
        got = w.page.evaluate(_OVERFLOW)
        w.page.screenshot(path=str(screenshots / f"{chapter}-{lang}-dark-375.png"), full_page=True)
        assert got["scheme"] == "slate", f"dark colour scheme not applied: {got['scheme']}"
        content, page = got["content"], got["page"]
        assert content[0] <= content[1] + 1, f"{path}: the main text overflows sideways at 375 px ({content}); too wide: {got['wide']}"
        assert page[0] <= page[1], f"{path}: the page scrolls sideways at 375 px ({page}); too wide: {got['wide']}"
        # outlined buttons (text on the page background): material draws them primary indigo,
        # 2.3:1 on slate; kernelbook.css recolours them
        assert got["contrast"] and all(ratio >= 4.5 for _, ratio in got["contrast"]), f"notebook links too faint in the dark scheme (WCAG AA 4.5:1): {got['contrast']}"
        assert w.errors == [], "\n".join(w.errors)


# What the chapter shows a reader, each item visible (a box with an area, not hidden, inside
# the page's width): every example with its code, its printed output and its kernel panel
# where it profiled, every figure, the objectives, every question.
_SEEN = """() => {
  const shown = e => { if (!e) return false; const r = e.getBoundingClientRect(); const st = getComputedStyle(e);
    return r.width > 20 && r.height > 8 && st.visibility !== 'hidden' && st.display !== 'none' && r.left >= -1 && r.right <= window.innerWidth + 1; };
  const examples = [...document.querySelectorAll('.kb-example')];
  return {
    examples: examples.map(x => ({id: x.id, code: shown(x.querySelector('.highlight code')),
      output: shown(x.querySelector('.kb-label + div pre, .kb-label + pre')) || (x.querySelector('.kb-label') || {}).textContent?.includes('('),
      kernels: !!x.querySelector('.kb-kernels') && shown(x.querySelector('.kb-kernels table')),
      provenance: shown(x.querySelector('.kb-provenance'))})),
    // a figure holds one drawing per layout: the one the stylesheet shows is what the reader sees
    figures: [...document.querySelectorAll('figure.kb-figure')].map(f => { const svg = [...f.querySelectorAll('svg')].find(v => v.checkVisibility()) || f.querySelector('svg');
      return [f.id, shown(f) && svg.getBoundingClientRect().width > 300, svg.getBoundingClientRect().height]; }),
    objectives: [...document.querySelectorAll('.kb-objectives li')].filter(shown).length,
    questions: [...document.querySelectorAll('.kb-predict')].filter(q => shown(q) && shown(q.querySelector('details summary'))).length,
  };
}"""


def _page_directives(lang: str, chapter: str) -> dict[str, int]:
    text = (ROOT / "docs" / lang / chapter / "index.md").read_text(encoding="utf-8")
    return {"runs": len(_ran_on_the_page(lang, chapter)), "figures": len(re.findall(r"^\[\[kb:figure \w+\]\]$", text, re.M)),
            "predicts": len(re.findall(r"^\[\[kb:predict ", text, re.M)),
            "objectives": len(re.findall(r"^  - ", text.split("\n---\n", 1)[0], re.M))}


@pytest.mark.parametrize("chapter", CHAPTERS)
@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("width", [1280, 375])
def test_screenshot_of_the_chapter_shows_its_examples_panels_figures_and_questions(context, site_url, lang, width, chapter, screenshots):
    want = _page_directives(lang, chapter)
    profiled = {s for s, names in _cpu_kernel_names(lang, chapter).items() if names}
    with open_page(context, viewport={"width": width, "height": 900}) as w:
        load(w, site_url + chapter_path(lang, chapter))
        assert w.page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "default"
        seen = w.page.evaluate(_SEEN)
        out = screenshots / f"{chapter}-{lang}-light-{width}.png"
        w.page.screenshot(path=str(out), full_page=True)
    ids = [f"kb-{s.replace('/', '-').replace('_', '-')}" for s in _ran_on_the_page(lang, chapter)]
    assert [x["id"] for x in seen["examples"]] == ids and len(ids) == want["runs"] >= 5
    for x in seen["examples"]:
        assert x["code"] and x["output"] and x["provenance"], x
        assert x["kernels"] == (x["id"] in {f"kb-{s.replace('/', '-').replace('_', '-')}" for s in profiled}), x
    assert len(seen["figures"]) == want["figures"] == len(CHARTS[chapter]) >= 2 and all(visible and height > 100 for _, visible, height in seen["figures"]), seen["figures"]
    assert seen["objectives"] == want["objectives"] >= 3
    assert seen["questions"] == want["predicts"] >= 1
    assert out.stat().st_size > 10_000


# ---------------------------------------------------------------- figures fit the screen

_FIGURES = """() => [...document.querySelectorAll('figure.kb-figure')].map(fig => {
  const shown = [...fig.querySelectorAll('svg')].filter(s => s.checkVisibility());
  const svg = shown[0];
  const box = svg.getBoundingClientRect();
  const scale = box.width / svg.viewBox.baseVal.width;
  const inside = r => r.width > 0 && r.left >= Math.max(box.left, 0) - 1 && r.right <= Math.min(box.right, innerWidth) + 1;
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim());
  const charts = [...svg.querySelectorAll('.kb-chart')].map(c => [c.dataset.chart, inside(c.getBoundingClientRect())]);
  return {id: fig.id, shown: shown.map(s => [...s.classList].find(c => c.startsWith('kb-layout-'))),
          width: box.width, smallest: Math.min(...texts.map(t => parseFloat(getComputedStyle(t).fontSize) * scale)),
          cut: texts.filter(t => !inside(t.getBoundingClientRect())).map(t => t.textContent),
          arrays: texts.filter(t => ['a', 'b', 'tmp', 'c'].includes(t.textContent) && inside(t.getBoundingClientRect())).map(t => t.textContent),
          charts};
})"""


# Each chapter's figures, and the charts inside each that must be in view (name, in view).
CHARTS = {
    "ch01": {"traffic": [], "timeline": [], "sweep": [["time", True], ["bandwidth", True]]},
    "ch02": {"copy_roof": [["copy", True]], "roofline": [["roofline", True]], "cos_chain": [["launches", True], ["time", True]]},
    "ch03": {"regions": [], "overhead": []},
}


@pytest.mark.parametrize("chapter", CHAPTERS)
@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize(("width", "layout"), [(375, "kb-layout-narrow"), (1280, "kb-layout-wide")])
def test_figures_fit_the_screen_with_legible_text(browser, site_url, lang, chapter, width, layout, screenshots):
    """At 375 px: no figure is wider than the screen or scrolls, no label is cut off, text is at
    least 11 px; every array of the traffic figure and every chart of a figure are in view."""
    with open_page(browser, viewport={"width": width, "height": 812}) as w:
        load(w, site_url + chapter_path(lang, chapter))
        figures_ = {f["id"]: f for f in w.page.evaluate(_FIGURES)}
        page = w.page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        for name in CHARTS[chapter]:
            w.page.locator(f"#kb-figure-{name}").screenshot(path=str(screenshots / f"{name}-{lang}-{width}.png"))
        assert set(figures_) == {f"kb-figure-{name}" for name in CHARTS[chapter]}, list(figures_)
        for name, f in figures_.items():
            assert f["width"] <= width, f"{name} is {f['width']} px wide on a {width}-px screen"
            assert f["cut"] == [], f"{name}: text outside the figure or the screen at {width} px: {f['cut']}"
            assert f["smallest"] >= 11, f"{name}: its smallest text is {f['smallest']:.1f} px on screen at {width} px"
            assert f["charts"] == CHARTS[chapter][name.removeprefix("kb-figure-")], (name, f["charts"])
        if chapter == "ch01":
            assert sorted(figures_["kb-figure-traffic"]["arrays"]) == sorted(["a", "b", "tmp", "c"] * 2)
        assert page[0] <= page[1], f"the page scrolls sideways at {width} px: {page}"
        assert {name: f["shown"] for name, f in figures_.items()} == dict.fromkeys(figures_, [layout])  # one drawing each
        assert w.errors == [], "\n".join(w.errors)


# ---------------------------------------------------------------- Japanese glyphs, not boxes

# The first Japanese characters of the article, each drawn on a canvas in the article's own
# font (the browser falls back through the system's fonts exactly as it does for the page),
# against U+0378, a code point no font has: without a Japanese font every character comes
# out as that missing-glyph box, and all of them alike.
_GLYPHS = """() => {
  const article = document.querySelector('article.md-content__inner');
  const chars = [...new Set(article.innerText.match(/[\\u3040-\\u30ff\\u4e00-\\u9fff]/g))].slice(0, 12);
  const family = getComputedStyle(article).fontFamily;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 48;
  const g = canvas.getContext('2d', {willReadFrequently: true});
  const shape = ch => {
    g.clearRect(0, 0, 48, 48);
    g.font = `32px ${family}`;
    g.textBaseline = 'middle';
    g.fillText(ch, 8, 24);
    return g.getImageData(0, 0, 48, 48).data.filter((v, i) => i % 4 === 3).join(',');
  };
  const missing = shape('\\u0378');
  const shapes = chars.map(shape);
  return {chars: chars.join(''), boxes: chars.filter((c, i) => shapes[i] === missing).join(''),
          distinct: new Set(shapes).size, blank: shapes.filter(s => !/[1-9]/.test(s)).length};
}"""


def glyph_problems(report: dict) -> list[str]:
    """What is wrong with how a page draws its Japanese: [] when every character has a glyph of its own."""
    problems = []
    if len(report["chars"]) < 8:
        problems.append(f"too few Japanese characters to judge: {report['chars']!r}")
    if report["boxes"]:
        problems.append(f"drawn as the missing-glyph box: {report['boxes']}")
    if report["distinct"] < len(report["chars"]):
        problems.append(f"{len(report['chars'])} different characters ({report['chars']}) drawn as {report['distinct']} shape(s)")
    if report["blank"]:
        problems.append(f"{report['blank']} character(s) drawn as nothing")
    return problems


@pytest.mark.parametrize("path", ["/", "/ch01/", "/ch02/", "/instructors/"])
def test_japanese_text_renders_with_real_glyphs(context, site_url, path):
    with open_page(context) as w:
        load(w, site_url + path)
        report = w.page.evaluate(_GLYPHS)
        assert glyph_problems(report) == [], (f"{path}: Japanese renders as boxes; is a Japanese font installed "
                                               f"(Debian: fonts-noto-cjk)? {glyph_problems(report)}")


def test_the_glyph_check_fails_without_a_japanese_font(browser, site_url, tmp_path):
    """The check above, in a Chromium whose fontconfig holds every font of the system except
    those that cover Japanese: the page must come out in boxes, and the check must say so."""
    system = Path("/etc/fonts/fonts.conf")
    assert system.is_file(), f"no {system}: this test needs the system's fontconfig (Debian: fontconfig-config)"
    config = tmp_path / "fonts.conf"
    config.write_text(f"""<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include>{system}</include>
  <cachedir>{tmp_path / "cache"}</cachedir>
  <selectfont><rejectfont><pattern><patelt name="lang"><string>ja</string></patelt></pattern></rejectfont></selectfont>
</fontconfig>
""", encoding="utf-8")
    bare = browser.browser_type.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, env={**os.environ, "FONTCONFIG_FILE": str(config)})
    try:
        page = bare.new_page()
        page.goto(site_url + CHAPTER["ja"])
        report = page.evaluate(_GLYPHS)
    finally:
        bare.close()
    problems = glyph_problems(report)
    assert any("missing-glyph box" in p for p in problems) and any("shape(s)" in p for p in problems), (
        f"without a Japanese font the check saw nothing wrong: {report}")


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


# ---------------------------------------------------------------- the glossary

GLOSSARY = {"ja": "/glossary/", "en": "/en/glossary/"}


def _definitions(lang: str) -> dict[str, tuple[str, str]]:
    """Term id -> (headword, definition as a tooltip shows it), in ``lang``."""
    from kernelbook.site.glossary.terms import load as load_glossary

    found = load_glossary(ROOT / "docs" / "glossary.yml", ("ja", "en"))
    return {t.id: (t.words[lang].term, t.words[lang].plain) for t in found.terms}


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_later_link_to_a_term_shows_the_same_tooltip_though_the_page_writes_the_definition_once(browser, site_url, lang):
    """glossary.titles_once leaves the title on a term's first link only; kernelbook.js gives it back before material's tooltips."""
    words = _definitions(lang)
    written = urlopen(site_url + CHAPTER[lang]).read().decode("utf-8")
    links = re.findall(r'<a class="kb-term" href="[^"]*#kernel"[^>]*>', written)
    assert len(links) > 2 and 'title="' in links[0] and all("title=" not in a for a in links[1:]), links[:3]
    with open_page(browser) as w:
        load(w, site_url + CHAPTER[lang])
        later = w.page.locator("a.kb-term[href$='#kernel']").nth(2)
        later.scroll_into_view_if_needed()
        later.hover()
        w.page.wait_for_function("e => e.hasAttribute('aria-describedby')", arg=later.element_handle())
        tip = w.page.locator("#" + later.get_attribute("aria-describedby"))
        tip.wait_for(state="visible")
        assert tip.inner_text().strip() == words["kernel"][1]
        assert w.errors == [], "\n".join(w.errors)


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (375, "dark")])
def test_a_term_shows_its_definition_as_a_tooltip_and_leads_to_its_entry_in_the_same_language(browser, site_url, lang, width, scheme, screenshots):
    words = _definitions(lang)
    with open_page(browser, color_scheme=scheme, viewport={"width": width, "height": 800}) as w:
        load(w, site_url + CHAPTER[lang])
        search_ready(w.page, timeout=30_000)  # before a click leaves the page: the worker's loads finish
        link = w.page.locator("a.kb-term[href$='#launch']").first
        link.scroll_into_view_if_needed()
        link.hover()  # material's tooltip (content.tooltips): the link's title, moved into a tooltip of its own
        w.page.wait_for_function("e => e.hasAttribute('aria-describedby')", arg=link.element_handle())
        tip = w.page.locator("#" + link.get_attribute("aria-describedby"))
        tip.wait_for(state="visible")
        assert tip.get_attribute("role") == "tooltip"
        assert tip.inner_text().strip() == words["launch"][1]
        box, view = tip.bounding_box(), w.page.viewport_size
        assert box["x"] >= -1 and box["x"] + box["width"] <= view["width"] + 1, f"the tooltip runs off the screen: {box}"
        w.page.screenshot(path=str(screenshots / f"term-tooltip-{lang}-{scheme}-{width}.png"))
        link.click()
        w.page.wait_for_url(lambda url: urlsplit(url).path == GLOSSARY[lang])
        assert w.page.evaluate("location.hash") == "#launch"
        entry = w.page.locator("#launch")
        assert entry.inner_text().replace("¶", "").strip() == words["launch"][0]  # the entry, in the page's language
        top = entry.bounding_box()["y"]
        assert 0 <= top < 200, f"the entry is not where the page landed (its top at {top} px)"
        assert w.errors == [], "\n".join(w.errors)


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (1280, "dark"), (375, "light"), (375, "dark")])
def test_glossary_and_notebook_pages_fit_the_screen_in_both_schemes(browser, site_url, lang, width, scheme, screenshots):
    for path in (GLOSSARY[lang], CHAPTER[lang] + "notebook/"):
        with open_page(browser, color_scheme=scheme, viewport={"width": width, "height": 900}) as w:
            load(w, site_url + path)
            got = w.page.evaluate(_OVERFLOW)
            name = path.strip("/").replace("/", "-") or "home"
            w.page.screenshot(path=str(screenshots / f"{name}-{scheme}-{width}.png"))
            assert got["scheme"] == ("slate" if scheme == "dark" else "default")
            assert got["page"][0] <= got["page"][1], f"{path}: the page scrolls sideways at {width} px; too wide: {got['wide']}"
            if path == GLOSSARY[lang]:
                assert w.page.locator("h3#kernel").is_visible() and w.page.locator(".kb-term-other").first.is_visible()
            else:  # the notebook's figures are images on a ground of their own, as wide as the column at most
                images = w.page.locator(".jp-RenderedMarkdown img")
                assert images.count() == 3
                for i in range(images.count()):
                    images.nth(i).scroll_into_view_if_needed()
                    box = images.nth(i).bounding_box()
                    assert box["width"] > 200 and box["x"] + box["width"] <= width + 1
                    assert images.nth(i).evaluate("img => img.complete && img.naturalWidth > 0"), "a figure did not load"
            assert w.errors == [], "\n".join(w.errors)


# ---------------------------------------------------------------- the notebook pages teach


SUMMARY = {"ja": "まとめ", "en": "Summary"}
FUSION = {"ja": "融合", "en": "fusion"}  # a section of the notebook, found by search in each language


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_notebook_page_shows_the_chapters_prose_and_its_search_titles_carry_no_pilcrow(context, site_url, lang):
    """A section of the notebook page holds the chapter's words, not just its heading; search finds it by a clean title."""
    with open_page(context) as w:
        load(w, site_url + CHAPTER[lang] + "notebook/")
        cell = w.page.locator(".jp-RenderedMarkdown:has(#summary)")
        assert cell.locator("#summary").inner_text().replace("¶", "").strip() == SUMMARY[lang]
        prose = cell.locator("p, li")
        prose.first.scroll_into_view_if_needed()
        words = "".join(prose.all_inner_texts())
        assert prose.first.is_visible() and prose.count() >= 3 and len(words) > 100, f"the summary section of the notebook is all but empty: {words!r}"
        assert cell.locator("a[href*='glossary/#']").count() >= 1, "the notebook's prose links no glossary term"
        search_ready(w.page, timeout=30_000)
        results = search(w, FUSION[lang], keystrokes=False)
        titles = w.page.locator(".md-search-result__article h1, .md-search-result__article h2").all_inner_texts()
        assert titles and not [t for t in titles if "¶" in t], titles
        links = [link for result in results for link in result]
        assert any(link.endswith("/notebook/#fusion") for link in links), links  # the notebook's own section, found
        assert w.errors == [], "\n".join(w.errors)
