"""How long a build of the book takes against plain MkDocs builds of the same pages, side by side.

    .venv/bin/python scripts/bench_build.py [--repeats 5] [--also DIR ...]

Times the whole process (``python -m mkdocs build`` from start to exit: imports, config,
both languages) of each of these, round-robin so that a change of load on the machine
touches all of them alike, and prints the median of ``--repeats`` runs and the ratios:

* ours, warm: the book as it is, its caches filled by an earlier build (a rebuild, a
  ``mkdocs serve`` reload, a second ``make site``);
* ours, cold: the same with the plugin's cache emptied before each run (a fresh clone, CI);
* ours, cold but the notebook pages: the same with only the rendered notebook pages kept
  (nbconvert converting the notebooks, which the baseline never renders, taken out);
* baseline: mkdocs-material + mkdocs-static-i18n + mkdocs-jupyter over the same docs and
  the same mkdocs.yml, without the kernelbook plugin (its directives stay literal text).
  static-i18n turns the .ipynb files back into downloads, so it renders no notebook page;
* plain Material: the same without mkdocs-jupyter (and without the notebooks in the nav);
* ``--also DIR``: the book in another checkout, built as that checkout configures it
  (e.g. ``git archive main | tar -x -C /tmp/main`` to compare with main), its own
  ``scripts/`` first on PYTHONPATH;
* ours, 10,000 more terms: the book with :data:`GENERATED` made-up terms added to its
  glossary (warm), against ours with the real glossary (target <= 2x): what a glossary's
  size costs (their glossary pages list them all, which is part of it).

Then ``mkdocs serve`` of the book: the time from saving a one-word prose edit of a chapter
page to the server answering with the edited page (median of ``--reloads``; target <= 2 s).

``--chapters N``: the scaled book instead (``--also DIR``: that checkout's code building it, cold): the book's R
chapters copied, in both languages, as chapters R+1..N (chapter k a copy of chapter (k - R - 1) % R + 1, the nav
extended with each copy's page and notebook; everything else as is). Ours warm, ours cold and the baseline are each
timed at R chapters and at N, round-robin in the same run, and the bench prints each variant's
slope (seconds per added chapter, both languages) and the ratio of the slopes (target: cold's
slope <= 2x the baseline's, and cold at R chapters <= 2x the baseline), and the same cold build with only
the rendered notebook pages kept: what of the slope is nbconvert rendering pages the baseline never renders.
And the baseline over our Markdown: the baseline's build with each Markdown page replaced by the text ours
hands to Python-Markdown (directives rendered, terms linked; written out by a cold build of ours), code
highlighted once per process as ours does it: what converting the book's pages costs the generator
without kernelbook, the floor under a cold build that converts each of these pages in one process as
MkDocs does; ours over it is what kernelbook adds.

``--profile``: one cold build of the book (``--chapters N``: of the scaled book) in this
process, sampled every millisecond (the stack of the build's thread), and what each part
of it costs: the share of samples with that part's function on the stack (parts nest: the
highlighting is inside the Markdown conversion), and the wall time. The notebook pages, which
``notebooks/ahead.py`` converts in a child beside the build, are converted in the build's own
process here, so that their work is sampled too. To profile another checkout's code, copy this script
into that checkout's ``scripts/`` and run it from there (a script's own folder comes first on
``sys.path``, before PYTHONPATH; that checkout's ``notebooks/ahead.py`` must be where this one's is).

Every build reads a copy of the book in a temporary folder (the checkout is never
written) and writes its own site folder. Targets: ours (warm) <= 1.5x the baseline (the
compass: 1.3x), cold <= 2.5x.
A benchmark, not a test: it prints figures and exits 0 (1 only if a build fails).
"""

from __future__ import annotations

import argparse
import socket
import urllib.request
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.5
COLD_TARGET = 2.5
GENERATED = 10_000
GLOSSARY_TARGET = 2.0
RELOAD_TARGET = 2.0
SLOPE_TARGET = 2.0  # --chapters: ours (cold) per added chapter / the baseline's
SCALED_COLD_TARGET = 2.0  # --chapters: ours (cold) at the book's own chapters / the baseline
CONVERTED = "baseline over our Markdown"  # --chapters: the baseline given the Markdown ours converts (with_our_markdown)


def copy_book(source: Path, dest: Path) -> Path:
    for name in ("docs", "snippets", "scripts"):
        shutil.copytree(source / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(source / "mkdocs.yml", dest / "mkdocs.yml")
    return dest


def without_plugin(config: str, name: str) -> str:
    """mkdocs.yml with the plugin ``name`` (and the comment lines just above it) taken out."""
    lines = config.splitlines()
    out: list[str] = []
    skipping = False
    for line in lines:
        if re.match(rf"^  - {re.escape(name)}\s*:?\s*$", line):
            while out and out[-1].lstrip().startswith("#"):
                out.pop()
            skipping = True
            continue
        if skipping and (line.startswith("    ") or not line.strip()):
            continue
        skipping = False
        out.append(line)
    return "\n".join(out) + "\n"


def scaled(book: Path, chapters: int) -> Path:
    """``book`` with its chapters (docs/<lang>/chNN/) copied as chapters up to ``chapters``, in every
    language, each copy's page and notebook added to the nav after the last chapter's."""
    real = sorted(p.name for p in (book / "docs").glob("*/ch[0-9][0-9]") if p.is_dir())
    real = sorted(set(real))
    langs = sorted(p.parent.name for p in (book / "docs").glob(f"*/{real[0]}"))
    added = []
    for k in range(len(real) + 1, chapters + 1):
        name, source = f"ch{k:02d}", real[(k - len(real) - 1) % len(real)]
        for lang in langs:
            shutil.copytree(book / "docs" / lang / source, book / "docs" / lang / name)
        added.append(name)
    config = book / "mkdocs.yml"
    lines = config.read_text(encoding="utf-8").splitlines()
    last = max(i for i, line in enumerate(lines) if re.match(rf"^  - {real[-1]}/", line))
    lines[last + 1:last + 1] = [f"  - {name}/{page}" for name in added for page in ("index.md", "notebook.ipynb")]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return book


def baseline(tmp: Path, name: str, *, jupyter: bool, chapters: int = 0) -> Path:
    book = copy_book(ROOT, tmp / name)
    if chapters:
        scaled(book, chapters)
    config = without_plugin((book / "mkdocs.yml").read_text(encoding="utf-8"), "kernelbook")
    if not jupyter:
        config = without_plugin(config, "mkdocs-jupyter")
        config = "\n".join(line for line in config.splitlines() if not line.strip().endswith("notebook.ipynb")) + "\n"
    (book / "mkdocs.yml").write_text(config, encoding="utf-8")
    return book


# Run in a build of ours: each Markdown page's text as MkDocs hands it to Python-Markdown, written under OUT.
_DUMP = """
import sys
from pathlib import Path
from mkdocs.structure import pages
out, convert = Path(sys.argv[1]), pages.Page.render
def render(self, config, files):
    path = out / self.file.src_uri
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(self.markdown, encoding="utf-8")
    return convert(self, config, files)
pages.Page.render = render
sys.argv = ["mkdocs", "build", "-q", "--site-dir", sys.argv[2]]
from mkdocs.__main__ import cli
cli()
"""


def with_our_markdown(tmp: Path, name: str, ours: Path, chapters: int = 0) -> Path:
    """The baseline over the Markdown that ours hands to Python-Markdown (``ours`` built cold once, each
    page's text written out): every directive rendered, terms linked. What converting the book's pages
    costs the generator by itself; ours over it is what kernelbook adds. Code is highlighted once per
    process, as ours does (``caches/pages.keep_highlights``, from a MkDocs hook): the chapters' copies and
    the two languages show the same code, and the generator would otherwise pay for highlighting it again
    where ours does not. The pages' front matter is not in that text (MkDocs reads it first): the
    baseline's pages have none. Every Markdown page of the baseline's docs must have been written out."""
    dumped = tmp / f"{name}-markdown"
    empty(ours / ".kernelbook" / "cache", ())  # a page kept in the cache is never converted, so never written
    done = subprocess.run([sys.executable, "-c", _DUMP, str(dumped), str(tmp / f"{name}-site")], cwd=ours,
                          env=dict(os.environ, NO_MKDOCS_2_WARNING="1"), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench: the build of {ours} that writes its pages' Markdown failed:\n{done.stderr[-4000:]}")
    book = baseline(tmp, name, jupyter=True, chapters=chapters)
    pages = {p.relative_to(dumped) for p in dumped.rglob("*.md")}
    if pages != {p.relative_to(book / "docs") for p in (book / "docs").rglob("*.md")}:
        sys.exit(f"bench: the build of {ours} wrote the Markdown of {len(pages)} pages, not of every page of its docs/")
    for page in pages:
        shutil.copyfile(dumped / page, book / "docs" / page)
    (book / "kept_highlights.py").write_text(
        "from kernelbook.site.caches.pages import keep_highlights\n\n\ndef on_config(config):\n    keep_highlights()\n",
        encoding="utf-8")
    config = book / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "hooks:\n  - kept_highlights.py\n", encoding="utf-8")
    return book


def run(book: Path, site: Path, scripts: Path | None) -> float:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    if scripts is not None:
        env["PYTHONPATH"] = str(scripts) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "--site-dir", str(site)],
                          cwd=book, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"bench: the build of {book} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return seconds


def with_generated_terms(book: Path, n: int = GENERATED) -> Path:
    """The book with ``n`` made-up terms appended to its glossary (valid entries, words no page uses)."""
    def letters(i: int, alphabet: str) -> str:
        out = ""
        while True:
            i, r = divmod(i, len(alphabet))
            out = alphabet[r] + out
            if i == 0:
                return out
            i -= 1

    kana = "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモ"
    lines = ["", "  # generated by scripts/bench_build.py: a glossary of many terms"]
    for i in range(n):
        word = letters(i, "bcdfghjklmnpqrstvwxz")
        lines += [f"  - id: zz-gen-{word}", "    chapter: ch01",
                  f"    ja: {{term: ゾゾ{letters(i, kana)}, definition: 生成された用語です。}}",
                  f"    en: {{term: zzgen{word}, definition: A generated term.}}"]
    glossary = book / "docs" / "glossary.yml"
    glossary.write_text(glossary.read_text(encoding="utf-8").rstrip("\n") + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return book


# (part, a frame on the stack that is in it: (file name ending, function name)); parts nest
PARTS = (
    ("imports and config (mkdocs.yml, plugins)", ("mkdocs/config/base.py", "load_config")),
    ("the build (mkdocs.commands.build.build)", ("mkdocs/commands/build.py", "build")),
    ("kernelbook on_pre_build (captures, notebooks)", ("kernelbook/site/plugin.py", "on_pre_build")),
    ("  the chapter notebooks' plan", ("kernelbook/site/glossary/build.py", "planned_notebooks")),
    ("  reading the captures", ("kernelbook/site/book.py", "load_book")),
    ("  checking the captures", ("kernelbook/common/freshness.py", "check_inputs")),
    ("pages' Markdown (directives, term links)", ("kernelbook/site/plugin.py", "on_page_markdown")),
    ("term linking (pages and notebooks)", ("kernelbook/site/glossary/links.py", "link_terms")),
    ("Markdown to HTML (Python-Markdown)", ("markdown/core.py", "convert")),
    ("  code highlighting (pymdownx.highlight)", ("pymdownx/highlight.py", "highlight")),
    ("notebook pages (nbconvert)", ("kernelbook/site/caches/notebooks.py", "render")),
    ("  their code highlighting (nbconvert)", ("nbconvert/filters/highlight.py", "_pygments_highlight")),
    ("  the HTML export (nb2html)", ("mkdocs_jupyter/nbconvert2.py", "nb2html")),
    ("    nbconvert's app and its config files", ("mkdocs_jupyter/nbconvert2.py", "get_nbconvert_app")),
    ("    making an exporter", ("nbconvert/exporters/templateexporter.py", "__init__")),
    ("    loading the template (a new Jinja environment)", ("nbconvert/exporters/templateexporter.py", "_load_template")),
    ("    preprocessors, then the template's rendering", ("nbconvert/exporters/templateexporter.py", "from_notebook_node")),
    ("      preprocessors (each followed by a validation)", ("nbconvert/exporters/exporter.py", "_preprocess")),
    ("      Markdown cells (mistune)", ("nbconvert/exporters/html.py", "markdown2html")),
    ("    the alt/tabindex pass (notebooks/soup.py)", ("kernelbook/site/notebooks/soup.py", "__init__")),
    ("  the table of contents (nb2md, then Python-Markdown)", ("mkdocs_jupyter/plugin.py", "_get_nb_toc_tokens")),
    ("  styles and pictures as files (notebooks/assets.py)", ("kernelbook/site/notebooks/assets.py", "externalize")),
    ("search entries (material's parse)", ("material/plugins/search/plugin.py", "on_page_context")),
    ("templates (jinja)", ("mkdocs/commands/build.py", "_build_template")),
    ("English phrases marked (prose/language.py)", ("kernelbook/site/prose/language.py", "marked")),
    ("served pages (minify, titles)", ("kernelbook/site/minify.py", "html_kept")),
    ("per-language search indexes (kernelbook)", ("kernelbook/site/plugin.py", "_split_search")),
    ("the other language's build (static-i18n, nested)", ("mkdocs_static_i18n/plugin.py", "on_post_build")),
)


def profile(book: Path, site: Path) -> None:
    """One build of ``book`` in this process, sampled; prints each of :data:`PARTS`' share. The notebook
    pages are converted in this process too (no child forked): what the whole build's work costs."""
    import threading
    from collections import Counter
    from mkdocs.__main__ import cli
    from kernelbook.site.notebooks import ahead as notebook_ahead

    notebook_ahead.can_fork = lambda: False

    main = threading.get_ident()
    samples: Counter = Counter()
    total = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal total
        while not done.wait(0.001):
            frame = sys._current_frames().get(main)
            on: set[str] = set()
            while frame is not None:
                code = frame.f_code
                for part, (ending, function) in PARTS:
                    if code.co_name == function and code.co_filename.endswith(ending):
                        on.add(part)
                frame = frame.f_back
            samples.update(on)
            total += 1

    os.chdir(book)
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    sampler = threading.Thread(target=sample, daemon=True)
    start = time.perf_counter()
    sampler.start()
    try:
        cli(["build", "-q", "--site-dir", str(site)], standalone_mode=False)
    finally:
        done.set()
        sampler.join()
    seconds = time.perf_counter() - start
    print(f"a cold build of {book.name}, in-process, sampled: {seconds:.2f} s, {total} samples; "
          f"load average {os.getloadavg()[0]:.2f}")
    for part, _ in PARTS:
        share = samples[part] / max(total, 1)
        print(f"  {part:<50} {share:6.1%}  {share * seconds:6.2f} s")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return ""


def serve_reloads(book: Path, reloads: int) -> list[float]:
    """Seconds from saving a one-word edit of docs/en/ch01/index.md to ``mkdocs serve`` answering with it."""
    page = book / "docs" / "en" / "ch01" / "index.md"
    original = page.read_text(encoding="utf-8")
    word = re.search(r"^[A-Z][a-z]+ [a-z]+ (?P<w>[a-z]{4,}) ", original, re.MULTILINE)
    port = free_port()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
                              cwd=book, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    root = f"http://127.0.0.1:{port}/"
    times = []
    try:
        deadline = time.time() + 900
        while "<html" not in fetch(root):  # "/" redirects to where site_url's path mounts the site
            if time.time() > deadline or server.poll() is not None:
                sys.exit(f"bench: mkdocs serve did not come up (exit status {server.poll()})")
            time.sleep(0.2)
        with urllib.request.urlopen(root, timeout=5) as response:
            url = response.geturl().rstrip("/") + "/en/ch01/"
        if "<html" not in fetch(url):
            sys.exit(f"bench: mkdocs serve does not serve {url}")
        for i in range(reloads):
            marker = f"reloadmark{i}x"
            time.sleep(1.0)  # the watcher settles
            start = time.perf_counter()
            page.write_text(original[:word.start("w")] + marker + original[word.end("w"):], encoding="utf-8")
            while marker not in fetch(url):
                if time.perf_counter() - start > 120:
                    sys.exit("bench: the edit did not reach the served page in 120 s")
                time.sleep(0.02)
            times.append(time.perf_counter() - start)
    finally:
        page.write_text(original, encoding="utf-8")
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--reloads", type=int, default=3, help="serve reloads to time (0: none)")
    parser.add_argument("--no-generated", action="store_true", help="skip the build with a generated glossary")
    parser.add_argument("--serve-only", action="store_true", help="only the serve reloads (after one build of the book)")
    parser.add_argument("--chapters", type=int, default=0, metavar="N",
                        help="time the book scaled to N chapters (copies of its own) against the book, and print the slopes")
    parser.add_argument("--profile", action="store_true", help="profile one cold build (of the scaled book with --chapters)")
    parser.add_argument("--also", type=Path, action="append", default=[], metavar="DIR",
                        help="also time the book in this other checkout (as it configures itself)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kb-build-bench-") as tmp_name:
        tmp = Path(tmp_name)
        ours = copy_book(ROOT, tmp / "ours")
        if args.serve_only:
            run(ours, tmp / "site", None)
            return serve_report(ours, args.reloads)
        if args.profile:
            book = scaled(copy_book(ROOT, tmp / f"ours-{args.chapters}"), args.chapters) if args.chapters else ours
            run(book, tmp / "site-warmup", None)  # the copies' notebooks written; then the cache emptied
            empty(book / ".kernelbook" / "cache", ())
            profile(book, tmp / "site")
            return 0
        if args.chapters:
            return scaled_bench(args, tmp, ours)
        cache = ours / ".kernelbook" / "cache"
        # name: (book, PYTHONPATH first, the cache folders kept when the cache is emptied before each run; None: not emptied)
        variants: dict[str, tuple[Path, Path | None, tuple[str, ...] | None]] = {
            "ours, warm cache": (ours, None, None),
            "ours, cold cache": (ours, None, ()),
            "ours, cold but the notebook pages": (ours, None, ("notebooks",)),
            "baseline (material + i18n + jupyter)": (baseline(tmp, "baseline", jupyter=True), None, None),
            "plain material + i18n, no notebooks": (baseline(tmp, "plain", jupyter=False), None, None),
        }
        if not args.no_generated:
            variants[f"ours, warm, +{GENERATED:,} terms"] = (with_generated_terms(copy_book(ROOT, tmp / "generated")), None, None)
        for i, other in enumerate(args.also):
            book = copy_book(other.resolve(), tmp / f"also-{i}")
            variants[f"also: {other}"] = (book, book / "scripts", None)
        for name, (book, scripts, _) in variants.items():  # warm-up: imports in the page cache, caches filled
            run(book, tmp / "site-warmup", scripts)
        times: dict[str, list[float]] = {name: [] for name in variants}
        load_before = os.getloadavg()
        for _ in range(args.repeats):
            for name, (book, scripts, kept) in variants.items():
                if kept is not None:
                    empty(cache, kept)
                times[name].append(run(book, tmp / f"site-{len(times[name])}", scripts))
        load_after = os.getloadavg()
        report(args, times, load_before, load_after)
        if args.reloads:  # the book built above, its cache warm, as `mkdocs serve` finds it after a first build
            serve_report(ours, args.reloads)
    return 0


def scaled_bench(args, tmp: Path, ours: Path) -> int:
    """Ours (warm, cold), the baseline and the baseline over our Markdown at the book's chapters and at
    ``--chapters``, round-robin; their slopes."""
    n = args.chapters
    real = len({p.name for p in (ROOT / "docs").glob("*/ch[0-9][0-9]") if p.is_dir()})
    if n <= real:
        sys.exit(f"bench: --chapters {n}: the book has {real} chapters already; give more")
    big = scaled(copy_book(ROOT, tmp / f"ours-{n}"), n)
    books = {real: (ours, baseline(tmp, "baseline", jupyter=True)),
             n: (big, baseline(tmp, f"baseline-{n}", jupyter=True, chapters=n))}
    converted = {real: with_our_markdown(tmp, "converted", ours), n: with_our_markdown(tmp, f"converted-{n}", big, n)}
    # (variant, chapters): (book, the cache folders kept when it is emptied before each run (None: not emptied),
    # PYTHONPATH first). "cold but the notebook pages": nbconvert's rendering of the two notebook pages a chapter
    # has (the baseline renders none: static-i18n makes them downloads) taken out of the cold build.
    variants: dict[tuple[str, int], tuple[Path, tuple[str, ...] | None, Path | None]] = {}
    for size, (book, base) in books.items():
        variants[("ours, warm", size)] = (book, None, None)
        variants[("ours, cold", size)] = (book, (), None)
        variants[("ours, cold but the notebook pages", size)] = (book, ("notebooks",), None)
        variants[("baseline", size)] = (base, None, None)
        variants[(CONVERTED, size)] = (converted[size], None, None)
    names = ["baseline", CONVERTED, "ours, warm", "ours, cold", "ours, cold but the notebook pages"]
    for i, other in enumerate(args.also):  # another checkout's code over this book: its cold build, side by side
        names.append(f"also {other}, cold")
        for size in books:
            book = copy_book(ROOT, tmp / f"also-{i}-{size}")
            shutil.rmtree(book / "scripts")
            shutil.copytree(other.resolve() / "scripts", book / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
            variants[(names[-1], size)] = (scaled(book, n) if size == n else book, (), book / "scripts")
    for (_, size), (book, _, scripts) in variants.items():  # warm-up: imports in the page cache, caches (and copies' notebooks) made
        run(book, tmp / "site-warmup", scripts)
    times: dict[tuple[str, int], list[float]] = {key: [] for key in variants}
    load_before = os.getloadavg()
    for _ in range(args.repeats):
        for key, (book, kept, scripts) in variants.items():
            if kept is not None:
                empty(book / ".kernelbook" / "cache", kept)
            times[key].append(run(book, tmp / f"site-{key[1]}-{len(times[key])}", scripts))
    load_after = os.getloadavg()
    medians = {key: statistics.median(ts) for key, ts in times.items()}
    print(f"mkdocs build of the book (ja + en) at {real} and at {n} chapters (chapters {real + 1}-{n}: copies of 1-{real}), "
          f"whole process, median of {args.repeats}, round-robin; {os.cpu_count()} CPUs, "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    width = max(map(len, names))
    print(f"  {'':<{width}}  {f'{real} chapters':>16}  {f'{n} chapters':>16}  per added chapter")
    slopes = {}
    for name in names:
        small, large = medians[(name, real)], medians[(name, n)]
        slopes[name] = (large - small) / (n - real)
        base = medians[("baseline", real)], medians[("baseline", n)]
        print(f"  {name:<{width}}  {small:6.2f} s ({small / base[0]:4.2f}x)  {large:6.2f} s ({large / base[1]:4.2f}x)  "
              f"{slopes[name]:6.3f} s ({slopes[name] / slopes['baseline'] if slopes['baseline'] > 0 else float('nan'):4.2f}x)")
    slope = slopes["ours, cold"] / slopes["baseline"] if slopes["baseline"] > 0 else float("inf")
    cold = medians[("ours, cold", real)] / medians[("baseline", real)]
    print(f"ours (cold) slope / baseline slope = {slope:.2f}: target <= {SLOPE_TARGET}: {'met' if slope <= SLOPE_TARGET else 'NOT met'}")
    print(f"ours (cold) / baseline at {real} chapters = {cold:.2f}x: target <= {SCALED_COLD_TARGET}x: "
          f"{'met' if cold <= SCALED_COLD_TARGET else 'NOT met'}")
    but = "ours, cold but the notebook pages"
    print(f"  of the cold slope, rendering the notebook pages is "
          f"{slopes['ours, cold'] - slopes[but]:.3f} s a chapter; without it, slope / baseline slope = "
          f"{slopes[but] / slopes['baseline'] if slopes['baseline'] > 0 else float('inf'):.2f}")
    print(f"  converting ours' pages alone (the baseline over kernelbook's Markdown) has slope / baseline slope = "
          f"{slopes[CONVERTED] / slopes['baseline'] if slopes['baseline'] > 0 else float('inf'):.2f}; ours (cold) over it: "
          f"slope {slopes['ours, cold'] / slopes[CONVERTED] if slopes[CONVERTED] > 0 else float('inf'):.2f}x, "
          f"at {real} chapters {medians[('ours, cold', real)] / medians[(CONVERTED, real)]:.2f}x")
    return 0


def empty(cache: Path, kept: tuple[str, ...]) -> None:
    """Remove the plugin's cache but its folders named in ``kept``."""
    for entry in cache.iterdir() if cache.is_dir() else ():
        if entry.name not in kept:
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def serve_report(book: Path, reloads: int) -> int:
    times = serve_reloads(book, reloads)
    reload = statistics.median(times)
    print(f"mkdocs serve, one-word prose edit of en/ch01 to the served page: median {reload:.2f} s of {len(times)} "
          f"({', '.join(f'{t:.2f}' for t in times)} s; load average {os.getloadavg()[0]:.2f}): target <= {RELOAD_TARGET} s: "
          f"{'met' if reload <= RELOAD_TARGET else 'NOT met'}")
    return 0


def report(args, times: dict[str, list[float]], load_before, load_after) -> None:
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    base = medians["baseline (material + i18n + jupyter)"]
    plain = medians["plain material + i18n, no notebooks"]
    print(f"mkdocs build of the book (ja + en), whole process, median of {args.repeats}, round-robin; "
          f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    width = max(map(len, medians))
    for name, median in medians.items():
        spread = f"{min(times[name]):.2f}–{max(times[name]):.2f}"
        print(f"  {name:<{width}}  {median:6.2f} s  ({spread} s)  {median / base:5.2f}x baseline  {median / plain:5.2f}x plain")
    warm = medians["ours, warm cache"] / base
    cold = medians["ours, cold cache"] / base
    print(f"ours (warm) / baseline = {warm:.2f}x: target <= {TARGET}x: {'met' if warm <= TARGET else 'NOT met'}")
    print(f"ours (cold) / baseline = {cold:.2f}x (every notebook page rendered, every figure drawn): "
          f"target <= {COLD_TARGET}x: {'met' if cold <= COLD_TARGET else 'NOT met'}")
    but = medians["ours, cold but the notebook pages"]
    print(f"  with the rendered notebook pages kept (the baseline renders none), cold / baseline = {but / base:.2f}x; "
          f"converting them (beside the build, notebook_ahead.py) adds {medians['ours, cold cache'] - but:+.2f} s")
    generated = f"ours, warm, +{GENERATED:,} terms"
    if generated in medians:
        ratio = medians[generated] / medians["ours, warm cache"]
        print(f"ours with {GENERATED:,} generated terms / ours = {ratio:.2f}x: target <= {GLOSSARY_TARGET}x: "
              f"{'met' if ratio <= GLOSSARY_TARGET else 'NOT met'}")


if __name__ == "__main__":
    sys.exit(main())
