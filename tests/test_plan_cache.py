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
