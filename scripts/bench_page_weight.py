"""Page weight: each chapter page as a reader loads it, ours against plain mkdocs-material; each notebook page against its chapter.

    .venv/bin/python scripts/bench_page_weight.py [--site SITE_DIR] [--lang ja en] [--chapters ch01 ...]

Builds (once, into a temporary folder) the real site and, from the same chapter
Markdown, a plain mkdocs-material site (our theme and Markdown settings, but no kernelbook
plugin, no i18n, no kernelbook CSS/JS), the
``[[kb:...]]`` directives left as literal text; and the same with each ``[[kb:run X]]``
replaced by X's code (the page a hand-written tutorial would be). Serves each on
127.0.0.1, loads every chapter page (all four, both languages) and every chapter's
notebook page in Chromium (the system's, as the browser tests do), and sums the bytes of
every response the load fetched. Prints the sizes and the ratios against the targets:
a chapter page <= 1.2x the plain page with the code pasted in, gzipped; a notebook page
<= 1.3x its chapter page. A benchmark, not a test: it prints figures and exits 0 either
way (exit 1 only if it cannot measure).

Excluded from both sides, and said so in the output: material's search, which a reader
only pays for on using it (search_index.json, the search worker, lunr and its language
files). Both sides use ``font: false`` (no web fonts), as ours does.
"""

from __future__ import annotations

import argparse
import functools
import re
import gzip
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.2  # a chapter page, gzipped, against the plain page with the code pasted in
NOTEBOOK_TARGET = 1.3  # a notebook page against its chapter page
CHAPTERS = ("ch01", "ch02", "ch03", "ch04")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"]
EXCLUDED = ("search/search_index.json", "/assets/javascripts/lunr/", "/assets/javascripts/workers/search.")

def plain_config(lang: str) -> str:
    """Our mkdocs.yml with what the book adds taken out: its plugins (kernelbook, i18n), extra CSS/JS.

    Theme (palette, features) and Markdown extensions stay as they are, so the ratio
    measures what kernelbook puts on the page, not the theme everyone would configure.
    """
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    # not strict: the chapters link the glossary page, which a plain project does not have
    drop = ("plugins", "extra_css", "extra_javascript", "watch", "nav", "docs_dir", "extra", "strict")
    kept, skipping = [], False
    for line in text.splitlines():
        top = re.match(r"^([a-z_]+):", line)
        if top:
            skipping = top.group(1) in drop
        if not skipping:
            kept.append(line)
    config = "\n".join(kept).replace("language: ja", f"language: {lang}")
    return config + "\nplugins:\n  - search\n"




def build(project: Path, site: Path, strict: bool = True) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env["PYTHONPATH"] = str(ROOT / "scripts") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", *(["--strict"] if strict else []), "--site-dir", str(site)],
                          cwd=project, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"mkdocs build of {project} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")


def plain_project(tmp: Path, lang: str, with_code: bool = False, chapters=CHAPTERS) -> Path:
    """The chapters' Markdown in a bare material project.

    As is (directive lines stay literal text), or ``with_code``: each ``[[kb:run X]]``
    replaced by X's source as a plain fenced block, the page a hand-written tutorial
    would be, so that the ratio shows what the captures and pictures add.
    """
    project = tmp / f"plain-{lang}{'-code' if with_code else ''}"
    (project / "docs").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(plain_config(lang), encoding="utf-8")
    (project / "docs" / "index.md").write_text("# plain\n", encoding="utf-8")
    for chapter in chapters:
        (project / "docs" / chapter).mkdir()
        text = (ROOT / "docs" / lang / chapter / "index.md").read_text(encoding="utf-8")
        if with_code:
            text = re.sub(r"^\[\[kb:run (\S+)\]\]$",
                          lambda m: "```python\n" + (ROOT / "snippets" / f"{m.group(1)}.py").read_text(encoding="utf-8") + "```",
                          text, flags=re.MULTILINE)
        (project / "docs" / chapter / "index.md").write_text(text, encoding="utf-8")
    return project


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def kind(path: str) -> str:
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else "html"
    return {"css": "css", "js": "js", "html": "html", "png": "image", "svg": "image", "jpg": "image", "ico": "image", "woff2": "font", "woff": "font"}.get(ext, ext)


def weigh(browser, url: str) -> dict:
    """Load url in a fresh context; the bytes of every response, by kind, search excluded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    responses = []
    page.on("response", lambda r: responses.append(r))
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    html = page.content()
    parts = {  # where a kernelbook page's HTML goes: what the plugin put there
        "figures (inline SVG)": sum(len(m.encode()) for m in re.findall(r'<figure class="kb-figure.*?</figure>', html, re.S)),
        "executed examples": sum(len(m.encode()) for m in re.findall(r'<div class="kb-example".*?<p class="kb-provenance".*?</p>', html, re.S)),
    }
    counted, excluded, outside = defaultdict(lambda: [0, 0, 0]), [], []
    for response in responses:
        path = urlsplit(response.url).path
        if urlsplit(response.url).hostname != "127.0.0.1":
            outside.append(response.url)
            continue
        try:
            body = response.body()
        except Exception:  # a redirect has no body
            continue
        if any(x in path for x in EXCLUDED):
            excluded.append((path, len(body)))
            continue
        entry = counted[kind(path)]
        entry[0] += 1
        entry[1] += len(body)
        entry[2] += len(gzip.compress(body, 9))
    context.close()
    return {"kinds": dict(counted), "excluded": excluded, "outside": outside, "parts": parts,
            "bytes": sum(v[1] for v in counted.values()), "gzip": sum(v[2] for v in counted.values())}


def report(name: str, got: dict) -> None:
    print(f"  {name}: {got['bytes']:>9,} bytes ({got['gzip']:,} gzipped)")
    for k, (n, raw, gz) in sorted(got["kinds"].items()):
        print(f"      {k:<6} {n:>2} file(s) {raw:>9,} bytes ({gz:,} gzipped)")
    for part, n in got["parts"].items():
        if n:
            print(f"        of the HTML: {part}: {n:,} bytes")
    if got["outside"]:
        print(f"      requests outside localhost (not counted): {got['outside']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="an already built kernelbook site (default: build one)")
    parser.add_argument("--lang", nargs="+", default=["ja", "en"], choices=["ja", "en"])
    parser.add_argument("--chapters", nargs="+", default=list(CHAPTERS), choices=list(CHAPTERS))
    parser.add_argument("--detail", action="store_true", help="also print each page's responses by kind")
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        print("no `chromium` on PATH (Debian: apt-get install chromium); cannot measure", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="kb-weight-") as tmp_name:
        tmp = Path(tmp_name)
        ours = args.site
        if ours is None:
            ours = tmp / "ours"
            build(ROOT, ours)
        plains, coded = {}, {}
        for lang in args.lang:
            plains[lang] = tmp / f"plain-{lang}-site"
            build(plain_project(tmp, lang, chapters=args.chapters), plains[lang], strict=False)
            coded[lang] = tmp / f"plain-{lang}-code-site"
            build(plain_project(tmp, lang, with_code=True, chapters=args.chapters), coded[lang], strict=False)
        servers = []
        try:
            ours_server, ours_url = serve(ours)
            servers.append(ours_server)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
                print("Page weight: every response of one page load in a fresh browser, summed (uncompressed; gzip -9 in brackets)")
                print("Excluded on both sides (fetched for search only): " + ", ".join(EXCLUDED))
                print("Both sides: material, font: false (no web fonts). Plain: same Markdown, no kernelbook plugin, no i18n, no extra CSS/JS.")
                rows = []
                for lang in args.lang:
                    plain_server, plain_url = serve(plains[lang])
                    code_server, code_url = serve(coded[lang])
                    servers += [plain_server, code_server]
                    for chapter in args.chapters:
                        path = f"/{chapter}/" if lang == "ja" else f"/en/{chapter}/"
                        mine = weigh(browser, ours_url + path)
                        notebook = weigh(browser, ours_url + path + "notebook/")
                        theirs = weigh(browser, plain_url + f"/{chapter}/")
                        with_code = weigh(browser, code_url + f"/{chapter}/")
                        rows.append((lang, chapter, mine, notebook, theirs, with_code))
                        if args.detail:
                            print(f"\n[{lang}] {path}")
                            for name, got in (("kernelbook     ", mine), ("its notebook   ", notebook),
                                              ("plain material ", theirs), ("plain + code   ", with_code)):
                                report(name, got)
                browser.close()
        finally:
            for server in servers:
                server.shutdown()
                server.server_close()
    print(f"\n{'page':<12} {'ours':>9} {'(gz)':>8} {'plain+code':>10} {'(gz)':>8} {'x plain':>7} {'x +code':>7} {'x +code gz':>10}"
          f" {'notebook':>9} {'(gz)':>8} {'nb/ch':>6} {'nb/ch gz':>8}")
    worst_gz, worst_nb = 0.0, 0.0
    for lang, chapter, mine, notebook, theirs, with_code in rows:
        code_gz = mine["gzip"] / with_code["gzip"]
        nb = notebook["bytes"] / mine["bytes"]
        worst_gz, worst_nb = max(worst_gz, code_gz), max(worst_nb, nb)
        print(f"{lang + '/' + chapter:<12} {mine['bytes']:>9,} {mine['gzip']:>8,} {with_code['bytes']:>10,} {with_code['gzip']:>8,}"
              f" {mine['bytes'] / theirs['bytes']:>7.3f} {mine['bytes'] / with_code['bytes']:>7.3f} {code_gz:>10.3f}"
              f" {notebook['bytes']:>9,} {notebook['gzip']:>8,} {nb:>6.3f} {notebook['gzip'] / mine['gzip']:>8.3f}")
    print(f"\nworst chapter page, gzipped, against the plain page with the code pasted in: {worst_gz:.3f}x "
          f"(target <= {TARGET}x): {'met' if worst_gz <= TARGET else 'NOT met'}")
    print(f"worst notebook page against its chapter page (uncompressed): {worst_nb:.3f}x "
          f"(target <= {NOTEBOOK_TARGET}x): {'met' if worst_nb <= NOTEBOOK_TARGET else 'NOT met'}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
