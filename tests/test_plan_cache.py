"""The chapter notebooks' plan kept in the cache by what it is made of (glossary_site._kept_plan)."""

from __future__ import annotations

from kernelbook.site import glossary_site
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
    from kernelbook.site import notebooks
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
