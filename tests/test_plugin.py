"""kernelbook as a MkDocs plugin: rebuilds in one process (as `mkdocs serve` does), caches, another book."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MKDOCS_ENV, ROOT, cli_env, copy_project, mkdocs_build, run_cli, write

# Builds the book at argv[1] three times in this one process, the way `mkdocs serve`
# does: the config loaded afresh for each build, on_startup called once (so MkDocs keeps
# the plugin's instance), one site folder. Between the builds it edits the book. Prints
# one JSON report per build: did it build, what was logged, what the pages say.
SERVE_LIKE = r'''
import json, logging, sys
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

root, site, cache = (Path(a) for a in sys.argv[1:4])
capture = root / "snippets/ch01/captures/eager_profile.cpu.json"
first_kernel = root / "snippets/ch01/captures/first_kernel.cpu.json"
page = root / "docs/en/ch01/index.md"
original = capture.read_text()


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.records = []

    def emit(self, record):
        self.records.append((record.levelname, record.getMessage()))


def one_build(started):
    config = load_config(str(root / "mkdocs.yml"), site_dir=str(site), strict=True)
    plugin = config.plugins["kernelbook"]
    plugin.config.cache_dir = str(cache)
    if not started:
        config.plugins.on_startup(command="serve", dirty=False)
    log = Collect()
    logging.getLogger("mkdocs").addHandler(log)
    logging.getLogger("mkdocs").setLevel(logging.INFO)
    try:
        build(config)
        ok = True
    except Abort:
        ok = False
    finally:
        logging.getLogger("mkdocs").removeHandler(log)
    html = (site / "en/ch01/index.html").read_text() if (site / "en/ch01/index.html").exists() else ""
    messages = [m for _, m in log.records]
    return {
        "ok": ok,
        "plugin": id(plugin),
        "errors": [m for level, m in log.records if level == "ERROR"],
        "drew": [m for m in messages if m.startswith("kernelbook: drew figure")],
        "rendered": [m for m in messages if m.startswith("kernelbook: rendered notebook page")],
        "wrote": [m for m in messages if m.startswith("kernelbook: wrote ")],
        "summaries": [m for m in messages if m.startswith("kernelbook: figures:")],
        "shows_changed_capture": "changed between the builds" in html,
        "shows_prose_edit": "a sentence added between builds" in html,
    }


# 1. a capture contradicts a claim
raw = json.loads(original)
raw["sessions"][-1]["kernels"].append({"name": "aten::mul", "count": 1, "time_us": 1.0})
raw["sessions"][-1]["launches"] += 1
capture.write_text(json.dumps(raw))
reports = [one_build(False)]
# 2. fixed; another capture changes what a snippet printed
capture.write_text(original)
raw = json.loads(first_kernel.read_text())
raw["stdout"] = ["device: cpu", "c = [changed between the builds]"]
first_kernel.write_text(json.dumps(raw))
reports.append(one_build(True))
# 3. a prose-only edit
text = page.read_text()
start = text.index("\n\n", text.index("\n## ")) + 2  # the first paragraph after the first section heading
page.write_text(text[:start] + "This is a sentence added between builds.\n\n" + text[start:])
reports.append(one_build(True))
# 4. the server stops: the notebooks its builds changed go into docs/ now, not after each rebuild
notebook = root / "docs/en/ch01/notebook.ipynb"
unchanged_while_serving = "a sentence added between builds" not in notebook.read_text()
log = Collect()
logging.getLogger("mkdocs").addHandler(log)
config = load_config(str(root / "mkdocs.yml"), site_dir=str(site), strict=True)
config.plugins["kernelbook"].on_shutdown()  # the instance MkDocs kept (on_startup defined): the same object
reports.append({"unchanged_while_serving": unchanged_while_serving, "wrote": [m for _, m in log.records if m.startswith("kernelbook: wrote ")],
                "holds_edit": "a sentence added between builds" in notebook.read_text()})
print(json.dumps(reports))
'''


@pytest.fixture(scope="module")
def three_builds(tmp_path_factory) -> list[dict]:
    tmp = tmp_path_factory.mktemp("serve-like")
    book = copy_project(tmp / "book")
    done = subprocess.run([sys.executable, "-c", SERVE_LIKE, str(book), str(tmp / "site"), str(tmp / "cache")],
                          cwd=book, env=cli_env(**MKDOCS_ENV), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-5000:]
    reports = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(reports) == 4
    return reports


def test_a_failed_build_names_its_problem(three_builds):
    first = three_builds[0]
    assert not first["ok"]
    assert any("[[kb:launches ch01/eager_profile == 2]]" in e and "the cpu capture eager_profile.cpu.json says 3" in e for e in first["errors"])


def test_the_next_build_sees_the_changed_capture_and_no_leftover_problem(three_builds):
    first, second = three_builds[:2]
    assert second["plugin"] == first["plugin"]  # MkDocs kept the instance, as under `mkdocs serve`
    assert second["ok"] and second["errors"] == []
    assert second["shows_changed_capture"]
    # the changed output is in both languages' notebooks (another chapter's may be rendered for
    # the first time: the failed first build stopped before all of them)
    assert sorted(r for r in second["rendered"] if "/ch01/" in r) == [
        "kernelbook: rendered notebook page en/ch01/notebook.ipynb", "kernelbook: rendered notebook page ja/ch01/notebook.ipynb"]


def test_a_prose_only_edit_re_renders_only_that_chapters_notebook_in_that_language_and_draws_no_figure(three_builds):
    """The notebook carries the prose, so an edit of the English chapter's text rewrites and re-renders the English
    notebook, and nothing else: the Japanese one, and every figure (pages' and notebooks'), come from the cache."""
    third = three_builds[2]
    assert third["ok"] and third["errors"] == [] and third["shows_prose_edit"]
    assert third["drew"] == []
    assert third["wrote"] == []  # under `mkdocs serve`, a write into docs/ would make it build again: written when it stops
    assert third["rendered"] == ["kernelbook: rendered notebook page en/ch01/notebook.ipynb"]
    # one summary per language build: the English build rendered that notebook page, the Japanese one took every page from the cache
    figures = sum(len(re.findall(r"^\[\[kb:figure ", p.read_text(encoding="utf-8"), re.M)) for p in ROOT.glob("docs/ja/ch*/index.md"))
    chapters = len(list(ROOT.glob("docs/ja/ch*/index.md")))
    pages = len(list(ROOT.glob("docs/ja/**/*.md")))
    assert sorted(third["summaries"]) == [
        f"kernelbook: figures: 0 drawn, {figures} from the cache; notebook pages: 0 rendered, {chapters} from the cache; "
        f"other pages: 0 rendered, {pages} from the cache; search entries: 0 pages parsed, {chapters + pages} from the cache",
        f"kernelbook: figures: 0 drawn, {figures} from the cache; notebook pages: 1 rendered, {chapters - 1} from the cache; "
        f"other pages: 1 rendered, {pages - 1} from the cache; "  # the edited page: its HTML converted, the rest from page_cache
        f"search entries: 2 pages parsed, {chapters + pages - 2} from the cache",  # the edited page and its notebook
    ]


def test_the_notebooks_a_serve_changed_are_written_when_it_stops(three_builds):
    stopped = three_builds[3]
    assert stopped["unchanged_while_serving"]
    # the second build's changed output (both languages) and the third's prose edit (English): each written once
    assert sorted(stopped["wrote"]) == ["kernelbook: wrote docs/en/ch01/notebook.ipynb", "kernelbook: wrote docs/ja/ch01/notebook.ipynb"]
    assert stopped["holds_edit"]


def test_the_cache_lives_where_the_option_says(three_builds, tmp_path_factory):
    """The builds above pointed `cache_dir` at a temporary folder: the copy of the book holds no cache."""
    base = Path(str(tmp_path_factory.getbasetemp()))
    serve_like = next(base.glob("serve-like*"))
    assert sorted(p.name for p in (serve_like / "cache").iterdir()) == ["figures", "glossary", "jinja", "linked", "notebooks", "pages", "planned", "search", "served"]
    assert not (serve_like / "book" / ".kernelbook" / "cache").exists()


# ---------------------------------------------------------------- another book


SECOND_BOOK = """
site_name: A second book
site_url: https://example.org/second/
theme:
  name: material
plugins:
  - kernelbook
"""

HELLO = """
# What one addition launches on the CPU.
import torch
from torch.profiler import ProfilerActivity, profile

x = torch.ones(4)
with profile(activities=[ProfilerActivity.CPU]) as prof:
    y = x + 1
print(y)
"""

PAGE = """
# Hello { #hello }

## One addition { #one-addition }

Adding one to a tensor launches [[kb:launches ch01/hello == 1]] kernel: [[kb:kernel ch01/hello ~ add]].

[[kb:run ch01/hello]]

[[kb:notebook ch01]]
"""


def test_another_book_uses_the_plugin_in_one_language_without_i18n_or_jupyter(tmp_path):
    """A separate MkDocs project: one page, one snippet, one language, only `plugins: - kernelbook`."""
    book = tmp_path / "second"
    write(book / "mkdocs.yml", SECOND_BOOK)
    write(book / "docs/index.md", "# A second book\n\nSee [the chapter](ch01/index.md).\n")
    write(book / "docs/ch01/index.md", PAGE)
    write(book / "snippets/ch01/hello.py", HELLO)
    done = run_cli("capture", "--device", "cpu", root=book)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (book / "snippets/ch01/captures/hello.cpu.json").is_file()

    built = mkdocs_build(book, tmp_path / "site")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-5000:]
    page = (tmp_path / "site/ch01/index.html").read_text(encoding="utf-8")
    assert 'class="kb-example"' in page and '<span class="filename">snippets/ch01/hello.py</span>' in page  # the code, from the file
    assert "tensor([2., 2., 2., 2.])" in page  # its captured output
    assert "Kernels launched (CPU)" in page and "aten::add" in page  # the kernel table, in the site's one language
    assert 'class="kb-value"' in page and '<code class="kb-kernel"' in page  # the claims, checked and filled in
    assert "This is a CPU capture" in page
    # notebooks: written beside the page and offered as a download; no mkdocs-jupyter, so no page to view
    assert (book / "docs/ch01/notebook.ipynb").is_file()
    assert 'href="notebook.ipynb"' in page and "kb-nb-view" not in page and "colab" not in page
    assert (tmp_path / "site/ch01/notebook.ipynb").is_file()

    # `kernelbook render` makes the one-language book a plain tree that plain mkdocs builds (no kernelbook plugin)
    rendered = run_cli("render", str(tmp_path / "plain"), root=book, **MKDOCS_ENV)
    assert rendered.returncode == 0, rendered.stderr[-3000:]
    lang = next(p.stem.split(".")[1] for p in (tmp_path / "plain").glob("mkdocs.*.yml"))
    assert "[[kb:" not in (tmp_path / "plain" / lang / "ch01/index.md").read_text(encoding="utf-8")
    plain = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(tmp_path / "plain" / f"mkdocs.{lang}.yml")],
                           cwd=tmp_path / "plain", env=cli_env(**MKDOCS_ENV), capture_output=True, text=True, timeout=600)
    assert plain.returncode == 0, plain.stderr[-3000:]
    plain_page = (tmp_path / "plain/site/ch01/index.html").read_text(encoding="utf-8")
    assert "tensor([2., 2., 2., 2.])" in plain_page and '<code class="kb-kernel"' in plain_page

    # the same book with a claim its capture contradicts fails, naming page and claim
    (book / "docs/ch01/index.md").write_text(PAGE.replace("== 1]]", "== 5]]"), encoding="utf-8")
    failed = mkdocs_build(book, tmp_path / "site2")
    assert failed.returncode != 0
    assert "ch01/index.md: [[kb:launches ch01/hello == 5]]: the cpu capture hello.cpu.json says 1" in failed.stdout + failed.stderr
