"""`kernelbook render OUT`: the book as plain docs trees that a generator with no plugin builds.

The real book is rendered (from a throwaway copy: its figure cache is the copy's) and built
with plain `mkdocs build --strict` (Material theme and search only, no kernelbook, i18n or
jupyter plugin); its chapter pages must carry the same executed examples, claim values,
kernel names and figures as the plugin build (``built_site``), in each language.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import MKDOCS_ENV, cli_env, copy_project, run_cli, write

CHAPTERS = ("ch01", "ch02", "ch03", "ch04", "ch05")
LANGS = {"ja": "", "en": "en/"}  # language -> where its pages sit in the site


def _text(node) -> str:
    return re.sub(r"\s+", " ", node.get_text(" ")).strip()


def page_facts(path: Path) -> dict:
    """What a chapter page shows from the captures: each executed example's text, each claim's value
    and kernel name (with the device it was checked on), and its figures."""
    from bs4 import BeautifulSoup

    from kernelbook.site.prose.language import unmark

    # the plugin marks English phrases in Japanese prose lang="en" (a plain build does not): the same text
    soup = BeautifulSoup(unmark(path.read_text(encoding="utf-8")), "html.parser")
    outside_figures = [n for n in soup.select(".kb-value, .kb-kernel") if n.find_parent("figure") is None]
    return {
        "examples": {div["id"]: _text(div) for div in soup.select("div.kb-example")},
        "claims": [(_text(n), n.get("title", "")) for n in outside_figures],
        "figures": [f["id"] for f in soup.select("figure.kb-figure")],
    }


def build_plain(tree: Path, lang: str, generator: list[str] | None = None) -> subprocess.CompletedProcess:
    cmd = generator or [sys.executable, "-m", "mkdocs", "build", "--strict"]
    return subprocess.run([*cmd, "-f", str(tree / f"mkdocs.{lang}.yml")], cwd=tree, env=cli_env(**MKDOCS_ENV),
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    """The real book rendered by the command, from a copy of it."""
    project = copy_project(tmp_path_factory.mktemp("book"))
    out = tmp_path_factory.mktemp("plain")
    done = run_cli("render", str(out), root=project, **MKDOCS_ENV)
    assert done.returncode == 0, done.stderr[-5000:]
    assert f"build the site (into {out / 'site'})" in done.stderr
    return out


@pytest.fixture(scope="module")
def plain_site(rendered: Path) -> Path:
    for lang in LANGS:  # the default language first: its build cleans the site folder
        done = build_plain(rendered, lang)
        assert done.returncode == 0, f"plain mkdocs build --strict ({lang}) failed:\n{done.stderr[-5000:]}"
    return rendered / "site"


def test_the_tree_has_no_plugin_and_no_directive_left(rendered: Path):
    for lang in LANGS:
        config = (rendered / f"mkdocs.{lang}.yml").read_text(encoding="utf-8")
        plugins = yaml.safe_load(config.split("markdown_extensions:")[0])["plugins"]
        assert [next(iter(p)) for p in plugins] == ["search"], plugins
        assert yaml.safe_load(config.split("markdown_extensions:")[0])["theme"]["language"] == lang
        pages = list((rendered / lang).rglob("*.md"))
        assert {p.relative_to(rendered / lang).as_posix() for p in pages} >= {
            "index.md", "glossary.md", "instructors.md", *(f"{ch}/{name}" for ch in CHAPTERS for name in ("index.md", "notebook.md"))}
        for page in pages:
            assert "[[kb:" not in re.sub(r"(?s)```.*?```|`[^`\n]*`", "", page.read_text(encoding="utf-8")), page
        for ch in CHAPTERS:
            assert (rendered / lang / ch / "notebook.ipynb").is_file()


def test_plain_mkdocs_pages_show_what_the_plugin_build_shows(plain_site: Path, built_site: Path):
    for lang, prefix in LANGS.items():
        for ch in CHAPTERS:
            plain, plugin = page_facts(plain_site / prefix / ch / "index.html"), page_facts(built_site / prefix / ch / "index.html")
            assert plugin["examples"] and plugin["claims"], (lang, ch)
            assert plain["examples"] == plugin["examples"], (lang, ch)
            assert plain["claims"] == plugin["claims"], (lang, ch)
            assert plain["figures"] == plugin["figures"], (lang, ch)


def test_figures_are_svg_files_the_pages_reference(plain_site: Path):
    from bs4 import BeautifulSoup

    for lang, prefix in LANGS.items():
        page = plain_site / prefix / "ch02" / "index.html"
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        images = [img["src"] for img in soup.select("figure.kb-figure img")]
        assert images and not soup.select("figure.kb-figure svg"), lang
        for src in images:
            svg = (page.parent / src).resolve()
            assert svg.suffix == ".svg" and svg.read_text(encoding="utf-8").startswith("<svg"), (lang, src)
            assert f'lang="{lang}"' in svg.read_text(encoding="utf-8")


def test_language_switch_and_notebook_pages_are_plain_links(plain_site: Path):
    from bs4 import BeautifulSoup

    for lang, prefix in LANGS.items():
        chapter = plain_site / prefix / "ch01" / "index.html"
        soup = BeautifulSoup(chapter.read_text(encoding="utf-8"), "html.parser")
        (twin,) = soup.select("p.kb-twin a")
        other = next(o for o in LANGS if o != lang)
        assert twin["hreflang"] == other
        assert (chapter.parent / twin["href"] / "index.html").resolve() == (plain_site / LANGS[other] / "ch01" / "index.html").resolve()
        view = soup.select_one("a.kb-nb-view")["href"]
        notebook = (chapter.parent / view / "index.html").resolve()
        assert notebook == (plain_site / prefix / "ch01" / "notebook" / "index.html").resolve()
        nb = BeautifulSoup(notebook.read_text(encoding="utf-8"), "html.parser")
        download = nb.select_one("a.kb-nb-download")["href"]
        assert (notebook.parent / download).resolve().is_file()
        assert nb.select("pre code"), "the notebook page shows its code cells"


def test_a_claim_the_captures_contradict_writes_nothing(tmp_path: Path):
    project = copy_project(tmp_path / "book")
    page = project / "docs" / "en" / "ch01" / "index.md"
    text = page.read_text(encoding="utf-8")
    assert "[[kb:launches ch01/first_kernel == 1]]" in text
    write(page, text.replace("[[kb:launches ch01/first_kernel == 1]]", "[[kb:launches ch01/first_kernel == 987654]]"))
    out = tmp_path / "plain"
    done = run_cli("render", str(out), root=project, **MKDOCS_ENV)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "en/ch01/index.md" in done.stderr and "nothing written" in done.stderr
    assert not out.exists()


@pytest.mark.skipif(shutil.which("zensical", path=str(Path(sys.executable).parent)) is None,
                    reason="zensical is not installed (pip install zensical)")
def test_zensical_builds_the_tree(rendered: Path, tmp_path: Path):
    zensical = shutil.which("zensical", path=str(Path(sys.executable).parent))
    tree = tmp_path / "tree"
    shutil.copytree(rendered, tree, ignore=shutil.ignore_patterns("site"))
    for lang, prefix in LANGS.items():
        done = build_plain(tree, lang, [zensical, "build"])
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        page = tree / "site" / prefix / "ch02" / "index.html"
        facts = page_facts(page)
        assert facts["examples"] and any("aten::" in text or "kernel" in text.lower() for text in facts["examples"].values())
        assert facts["figures"]
        assert (page.parent / "../figures/copy_roof.svg").resolve().is_file()


@pytest.mark.parametrize("target", ["docs", "docs/ja", "snippets", "."])
def test_render_refuses_a_folder_that_holds_or_is_inside_the_books_sources(tmp_path: Path, target: str):
    """`kernelbook render docs` would replace docs/ja and docs/en with the rendered tree: one line, exit 2, nothing touched."""
    project = copy_project(tmp_path / "book")
    before = sorted(p.relative_to(project) for p in (project / "docs").rglob("*"))
    done = run_cli("render", str(project / target), root=project, **MKDOCS_ENV)
    assert done.returncode == 2 and "name a folder of its own" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert sorted(p.relative_to(project) for p in (project / "docs").rglob("*")) == before


def test_the_trees_mkdocs_yml_gets_every_extension_the_plugin_would_add():
    """A book whose mkdocs.yml names no extension: the tree's config lists the plugin's, with their options."""
    from kernelbook.site.prose.extensions import MARKDOWN_EXTENSIONS
    from kernelbook.site.plain_tree import _markdown_extensions

    listed = yaml.safe_load(_markdown_extensions("site_name: x\n"))["markdown_extensions"]
    as_dict = {k: v for item in listed for k, v in (item.items() if isinstance(item, dict) else [(item, {})])}
    assert as_dict == MARKDOWN_EXTENSIONS
    kept = yaml.safe_load(_markdown_extensions("markdown_extensions:\n  - toc:\n      permalink: true\n  - admonition\n"))
    assert kept["markdown_extensions"][0] == {"toc": {"permalink": True}} and len(kept["markdown_extensions"]) == 8
