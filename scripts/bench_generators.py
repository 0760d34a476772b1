"""The rendered tree (`kernelbook render`) built by plain MkDocs and by Zensical, side by side in Chromium.

    .venv/bin/python scripts/bench_generators.py [--repeats 3] [--plugin-site SITE_DIR]

Renders the book from a copy in a temporary folder (the checkout is never written), builds
it with `mkdocs build --strict` (Material theme + search, no plugin) and with `zensical
build`, timing each (median of ``--repeats``), then loads chapter 1 in each language in
Chromium and checks what a reader uses: the executed examples and their outputs, figures
(the SVG files loaded), glossary tooltips, the CUDA/CPU tabs, code copy, search in the
page's language (Japanese: a katakana word inside a longer run, and a kanji+katakana
compound), the language switch, dark mode, and the bytes the page loads (search excluded).
``--plugin-site``: a site built by the kernelbook plugin (`kernelbook build --no-capture`
writes site/) to weigh beside them. A benchmark: prints a table, exits 0 (1 if it cannot run).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
LANGS = {"ja": "", "en": "en/"}
QUERIES = {"ja": ("カーネル", "再コンパイル", "融合"), "en": ("kernel", "recompile", "roofline")}
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"]
SEARCH_FILES = ("search_index.json", "search.json", "/lunr/", "/workers/search", "search.")


def env() -> dict[str, str]:
    e = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    e["PYTHONPATH"] = str(ROOT / "scripts") + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    return e


def render(tmp: Path) -> Path:
    book = tmp / "book"
    for name in ("docs", "snippets", "scripts"):
        shutil.copytree(ROOT / name, book / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy2(ROOT / name, book / name)
    out = tmp / "plain"
    done = subprocess.run([sys.executable, "-m", "kernelbook", "render", str(out)], cwd=book, env=env(), capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"kernelbook render failed:\n{done.stderr[-3000:]}")
    return out


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return time.perf_counter() - start


def build(out: Path, generator: str, repeats: int) -> tuple[Path, dict[str, float]]:
    """The site built by ``generator`` (mkdocs | zensical), and the median seconds per language."""
    site = out.parent / f"site-{generator}"
    seconds = {}
    for lang, prefix in LANGS.items():
        config = str(out / f"mkdocs.{lang}.yml")
        if generator == "mkdocs":
            cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", config, "--site-dir", str(site / prefix)]
        else:
            cmd = [str(BIN / "zensical"), "build", "--clean", "-f", config]
        seconds[lang] = statistics.median(timed(cmd, out) for _ in range(repeats))
    if generator == "zensical":  # it writes the config's site_dir, out/site
        shutil.rmtree(site, ignore_errors=True)
        shutil.move(str(out / "site"), site)
    return site, seconds


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def serve(site: Path) -> str:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def check(browser, base: str, lang: str) -> dict[str, object]:
    """What a reader of chapter 1 in ``lang`` gets from this site."""
    found: dict[str, object] = {}
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    context.set_default_timeout(8000)
    page = context.new_page()
    sizes: list[tuple[str, int]] = []
    page.on("response", lambda r: sizes.append((r.url, len(r.body()) if r.ok and r.request.method == "GET" else 0)))
    url = f"{base}/{LANGS[lang]}ch01/"
    page.goto(url, wait_until="networkidle")
    found["weight KiB (no search)"] = round(sum(n for u, n in sizes if not any(s in u for s in SEARCH_FILES)) / 1024)
    found["examples"] = page.locator("div.kb-example").count()
    found["outputs"] = page.locator("div.kb-example pre").count()
    found["figures shown"] = page.evaluate("""() => [...document.querySelectorAll('figure.kb-figure')].filter(f => {
        const i = f.querySelector('img'), s = f.querySelector('svg');
        return (i && i.complete && i.naturalWidth > 0) || (s && s.getBoundingClientRect().width > 0); }).length""")
    term = page.locator("a.kb-term").first
    term.scroll_into_view_if_needed()
    term.hover(force=True)
    page.wait_for_timeout(600)
    found["tooltip"] = page.evaluate("""() => [...document.querySelectorAll('.md-tooltip2, .md-tooltip, [role=tooltip]')]
        .some(t => t.offsetParent !== null && t.textContent.trim().length > 0)""")
    tabs = page.locator(".tabbed-set > .tabbed-labels > label")
    found["tabs"] = tabs.count()
    if tabs.count() > 1:
        tabs.nth(1).click()
        found["tab switch"] = page.evaluate("""() => { const s = document.querySelector('.tabbed-set');
            const inputs = [...s.querySelectorAll(':scope > input')]; return inputs.findIndex(i => i.checked) === 1; }""")
    found["copy buttons"] = page.locator("button.md-clipboard, button.md-code__button").count()
    twin = page.locator("p.kb-twin a")
    found["language switch"] = False
    if twin.count():
        twin.first.click()
        page.wait_for_load_state("networkidle")
        other = next(o for o in LANGS if o != lang)
        found["language switch"] = page.url.rstrip("/").endswith(f"{LANGS[other]}ch01".rstrip("/")) and page.evaluate("document.documentElement.lang") == other
        page.goto(url, wait_until="networkidle")
    toggle = page.locator("label.md-header__button[for^='__palette'], form[data-md-component=palette] label").first
    if toggle.count():
        toggle.click()
        page.wait_for_timeout(300)
    found["dark mode"] = page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "slate"
    for query in QUERIES[lang]:
        page.goto(url, wait_until="networkidle")
        button = page.locator("button.md-search__button")  # zensical: its search is a dialog in a shadow root
        if button.count():
            button.first.click()
        box = page.locator("input.md-search__input, input[role=combobox]").first
        box.click()
        box.press_sequentially(query)  # typed: material searches on key events
        page.keyboard.press("End")
        items = page.locator(".md-search-result__item, ol[role=listbox] > li")  # locators pierce the shadow root
        for _ in range(40):  # the index loads in a worker: up to 10 s for the first results
            if items.count():
                break
            page.wait_for_timeout(250)
        found[f"search {query}"] = items.count()
    context.close()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--plugin-site", type=Path, default=None)
    args = parser.parse_args()
    if shutil.which("chromium") is None or not (BIN / "zensical").exists():
        print("needs `chromium` on PATH and zensical in this venv (pip install zensical)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="kb-generators-") as tmp:
        out = render(Path(tmp))
        sites, times = {}, {}
        for generator in ("mkdocs", "zensical"):
            sites[generator], times[generator] = build(out, generator, args.repeats)
        if args.plugin_site:
            sites["plugin (mkdocs)"] = args.plugin_site.resolve()
        version = subprocess.run([str(BIN / "zensical"), "--version"], capture_output=True, text=True).stdout.strip()
        print(f"zensical {version}; build seconds (median of {args.repeats}, one language each):")
        for generator, seconds in times.items():
            print(f"  {generator:10} " + "  ".join(f"{lang} {s:.2f}" for lang, s in seconds.items()))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
            results = {(g, lang): check(browser, serve(site), lang) for g, site in sites.items() for lang in LANGS}
            browser.close()
        keys = list(dict.fromkeys(k for r in results.values() for k in r))
        print(f"{'chapter 1':28}" + "".join(f"{g + ' ' + lang:>18}" for g, lang in results))
        for key in keys:
            print(f"{key:28}" + "".join(f"{str(r.get(key, '-')):>18}" for r in results.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
