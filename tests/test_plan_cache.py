"""The chapter notebooks' plan kept in the cache by what it is made of (glossary_site._kept_plan)."""

from __future__ import annotations

from kernelbook.site.glossary import build as glossary_site
from kernelbook.site.settings import BookSettings


def _settings(tmp_path):
    docs = tmp_path / "docs"
    (docs / "ja" / "ch01").mkdir(parents=True)
    (docs / "ja" / "ch01" / "index.md").write_text("# 一\n\n[[kb:run ch01/a]]\n", encoding="utf-8")
    return BookSettings(root=tmp_path, docs_dir=docs, site_url="https://example.org/", repository="", branch="main",
                        snippets_dir="snippets", languages=("ja",), language_folders=True, cache_dir=tmp_path / "cache")


def _plan(settings, made, problems=()):
    def plan(report):
        made.append(1)
        for problem in problems:
            report(problem)
        return {settings.docs_dir / "ja" / "ch01" / "notebook.ipynb": {"cells": [{"source": ["x"]}], "nbformat": 4}}
    return plan


def test_a_plan_is_made_once_and_read_back_until_a_page_changes(tmp_path):
    settings, made = _settings(tmp_path), []
    first = glossary_site._kept_plan(settings, {}, _plan(settings, made), None)
    assert glossary_site._kept_plan(settings, {}, _plan(settings, made), None) == first and len(made) == 1
    (settings.docs_dir / "ja" / "ch01" / "notebook.ipynb").write_text("{}", encoding="utf-8")  # what is made: not in the key
    assert glossary_site._kept_plan(settings, {}, _plan(settings, made), None) == first and len(made) == 1
    (settings.docs_dir / "ja" / "ch01" / "index.md").write_text("# 二\n", encoding="utf-8")
    glossary_site._kept_plan(settings, {}, _plan(settings, made), None)
    assert len(made) == 2


def test_a_plan_that_reported_a_problem_is_made_again_and_reports_again(tmp_path):
    settings, made, heard = _settings(tmp_path), [], []
    for _ in range(2):
        glossary_site._kept_plan(settings, {}, _plan(settings, made, ["left as written"]), heard.append)
    assert len(made) == 2 and heard == ["left as written"] * 2


def test_a_damaged_entry_is_made_again(tmp_path):
    settings, made = _settings(tmp_path), []
    first = glossary_site._kept_plan(settings, {}, _plan(settings, made), None)
    for entry in (settings.cache_dir / "planned").glob("*.json"):
        entry.write_text("[1, 2", encoding="utf-8")
    assert glossary_site._kept_plan(settings, {}, _plan(settings, made), None) == first and len(made) == 2


def test_only_the_plans_used_last_are_kept(tmp_path, monkeypatch):
    settings, made = _settings(tmp_path), []
    monkeypatch.setattr(glossary_site, "PLANS_KEPT", 2)
    for n in range(4):
        (settings.docs_dir / "ja" / "ch01" / "index.md").write_text(f"# {n}\n", encoding="utf-8")
        glossary_site._kept_plan(settings, {}, _plan(settings, made), None)
    assert len(list((settings.cache_dir / "planned").glob("*.json"))) == 2


def test_an_edit_of_one_page_makes_only_that_pages_notebook_again_in_this_process(tmp_path, monkeypatch):
    """notebooks.planned(made=...): what `mkdocs serve` does after a one-word edit (every other chapter's
    notebook is the one made before, the same object); a notebook something was reported of is made each time."""
    from conftest import book_settings, copy_project
    from kernelbook.site.notebooks import chapter as notebooks
    from kernelbook.site.book import load_book

    root = copy_project(tmp_path / "book")
    settings = book_settings(root)
    book, glossary = load_book(root, settings.snippets_dir), notebooks.book_glossary(settings)
    calls, heard, made = [], [], {}
    real_notebook, real_left = notebooks.notebook, notebooks.left_as_written
    monkeypatch.setattr(notebooks, "notebook", lambda text, lang, chapter, *a, **k: calls.append((lang, chapter)) or
                        real_notebook(text, lang, chapter, *a, **k))
    monkeypatch.setattr(notebooks, "left_as_written", lambda nb, source: ["left as written"] * (source == "ja/ch02/index.md")
                        + real_left(nb, source))

    def plan():
        calls.clear()
        return notebooks.planned(settings, book, glossary=glossary, report=heard.append, made=made)

    first = plan()
    chapters = len(first)
    assert len(calls) == chapters and chapters >= 4
    assert plan() == first and calls == [("ja", "ch02")]  # reported of: made again (and reported again)
    assert heard == ["left as written"] * 2
    page = root / "docs" / "en" / "ch01" / "index.md"
    page.write_text(page.read_text(encoding="utf-8").replace("\n\n", "\n\nAn edited sentence.\n\n", 1), encoding="utf-8")
    third = plan()
    assert sorted(calls) == [("en", "ch01"), ("ja", "ch02")]
    assert "An edited sentence." in notebooks.dumps(third[page.parent / notebooks.NAME])
    again = {root / "docs" / "ja" / "ch02" / notebooks.NAME, page.parent / notebooks.NAME}
    assert all(third[path] is first[path] for path in first if path not in again)


def test_a_pages_linked_terms_are_kept_by_what_they_are_made_of(tmp_path, monkeypatch):
    """glossary_site.link keeps each page's linked Markdown on disk: a new process links no unchanged page again;
    another text, glossary, language, chapter or glossary address links it again; a damaged entry is linked again."""
    from types import SimpleNamespace

    from conftest import ROOT
    from kernelbook.site.glossary import links as term_links
    from kernelbook.site.glossary.terms import load

    settings = BookSettings(root=tmp_path, docs_dir=tmp_path / "docs", site_url="", repository="", branch="main",
                            snippets_dir="snippets", languages=("ja", "en"), language_folders=True,
                            cache_dir=tmp_path / "cache", glossary=ROOT / "docs" / "glossary.yml")
    glossary = load(settings.glossary, settings.languages)
    term = glossary.terms[0]
    text = f"## A section\n\nThe {term.words['en'].term} again.\n"
    calls = []
    real = term_links.link_terms
    monkeypatch.setattr(term_links, "link_terms", lambda *a: calls.append(a[2:4]) or real(*a))

    def link(markdown=text, glossary=glossary, lang="en", page="en/ch01/index.md", url="../glossary/"):
        ctx = SimpleNamespace(glossary=glossary, lang=lang, glossary_url=url, error=lambda *a: None)
        term_links._LINKED.clear()  # as a new process would start
        glossary_site._GLOSSARY_DIGEST.clear()
        return glossary_site.link(markdown, ctx, settings, page)

    first = link()
    assert f'<a class="kb-term" href="../glossary/#{term.id}"' in first
    assert link() == first and len(calls) == 1  # read back
    assert link(url="../../glossary/") != first and len(calls) == 2
    link(markdown=text + "\nMore.\n")
    link(page="en/ch02/index.md")
    link(glossary=load(settings.glossary, ("en", "ja")))  # the same terms, the languages in another order: another glossary
    assert len(calls) == 5
    for entry in (settings.cache_dir / "linked").glob("*.md"):
        entry.write_bytes(b"\xff\xfe not UTF-8")
    assert link() == first and len(calls) == 6
