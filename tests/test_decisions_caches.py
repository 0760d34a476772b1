"""What the caches' keys hold: a re-capture, mkdocs-jupyter's options, the site's files (issue 47)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from conftest import make_project, mkdocs_build, write
from kernelbook.common.records import Capture, Environment, Freshness, Kernel, Session
from kernelbook.site.glossary import build as glossary_site
from kernelbook.site.caches import notebooks as notebook_cache
from kernelbook.site.book import Entry
from kernelbook.common.snippets import Snippet
from test_plan_cache import _plan, _settings


def _entry(tmp_path: Path, launches: int) -> dict[str, Entry]:
    snippet = Snippet("ch01/a", write(tmp_path / "snippets/ch01/a.py", "print('a')\n"))
    cpu = Capture("ch01/a", "cpu", Freshness("0" * 64, 2, "2.13.0"),
                  Environment("cpu", "CPU (test)", "2.13.0", "3.12", "Linux", "2026-01-02T03:04:05Z"),
                  1.0, "a\n", "", (Session(0, "cpu", (Kernel("aten::add", launches, 1.0),), launches),))
    return {snippet.id: Entry(snippet, None, cpu, (), ())}


def test_a_kept_plan_is_made_again_when_a_shown_capture_changes(tmp_path):
    settings, made = _settings(tmp_path), []
    book = _entry(tmp_path, 1)
    glossary_site._kept_plan(settings, book, _plan(settings, made), None)
    glossary_site._kept_plan(settings, _entry(tmp_path, 1), _plan(settings, made), None)
    assert len(made) == 1  # the same captures: read back
    recaptured = _entry(tmp_path, 2)  # a re-capture: the page's numbers are others
    assert glossary_site.plan_key(settings, recaptured) != glossary_site.plan_key(settings, book)
    glossary_site._kept_plan(settings, recaptured, _plan(settings, made), None)
    assert len(made) == 2
    entry = book["ch01/a"]
    stale = {"ch01/a": dataclasses.replace(entry, cpu=dataclasses.replace(entry.cpu, stdout="b\n"))}  # its output too
    assert glossary_site.plan_key(settings, stale) != glossary_site.plan_key(settings, book)


def test_a_notebooks_cache_key_holds_mkdocs_jupyters_rendering_options():
    nb, renderers = b'{"cells": []}', {"nbconvert": "7.16.6"}
    base = notebook_cache.key(nb, {"include_source": False, "execute": False, "theme": "light"}, renderers)
    assert notebook_cache.key(nb, {"include_source": False, "execute": False, "theme": "dark"}, renderers) != base
    assert notebook_cache.key(nb, {"include_source": False, "execute": True, "theme": "light"}, renderers) != base
    assert notebook_cache.key(nb, {"include_source": True, "execute": False, "theme": "light", "cache_dir": "x"}, renderers) == base
    assert notebook_cache.key(nb, {"include_source": False, "execute": False, "theme": "light"}, {"nbconvert": "7.17"}) != base
    assert notebook_cache.key(nb + b" ", {"include_source": False, "execute": False, "theme": "light"}, renderers) != base


def test_with_a_warm_cache_removing_a_linked_page_converts_the_linking_page_again_and_warns(tmp_path):
    book = make_project(tmp_path / "book")
    write(book / "mkdocs.yml", "site_name: t\nsite_url: https://example.org/t/\ntheme:\n  name: material\nplugins:\n  - kernelbook\n")
    write(book / "docs/index.md", "# Home\n\nSee [the other page](other.md).\n")
    write(book / "docs/other.md", "# Other\n\nHello.\n")
    first = mkdocs_build(book, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert first.returncode == 0, first.stderr[-3000:]
    (book / "docs/other.md").unlink()
    again = mkdocs_build(book, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert again.returncode != 0, again.stderr[-3000:]  # strict: the broken link fails the build
    assert "Doc file 'index.md' contains a link 'other.md', but the target is not found" in again.stderr
    assert "other pages: 1 rendered, 0 from the cache" in again.stderr


def test_a_search_entrys_key_holds_the_pages_url_title_and_headings():
    from types import SimpleNamespace

    from mkdocs.structure.toc import get_toc
    from kernelbook.site.caches import search as search_cache

    toc = [{"level": 1, "id": "t", "name": "Title", "children": []}]

    def page(url="ch01/", title="Title", heading="Title"):
        return SimpleNamespace(content="<h1 id=\"t\">Title</h1><p>x</p>", url=url, title=title, meta={},
                               toc=get_toc([{**toc[0], "name": heading}]))

    base = search_cache.key(page(), {"mkdocs-material": "1"}, False)
    assert search_cache.key(page(), {"mkdocs-material": "1"}, False) == base
    assert search_cache.key(page(url="ch02/"), {"mkdocs-material": "1"}, False) != base  # where a result links to
    assert search_cache.key(page(title="Another"), {"mkdocs-material": "1"}, False) != base  # what a result is called
    assert search_cache.key(page(heading="Renamed"), {"mkdocs-material": "1"}, False) != base
