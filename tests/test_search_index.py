"""search_index.py: one search index per language, and each page pointed at its own.

The reader-facing proof (a search on each site returns only its language's pages) is in
test_browser.py; here the pieces, and the built site's two index files.
"""

from __future__ import annotations

import json
import re

import pytest

from kernelbook.site import search_index

PREFIXES = {"ja": "", "en": "en/"}


def test_split_keeps_each_languages_entries_relative_to_its_folder():
    entries = [
        {"location": "", "title": "ホーム", "text": "GPU"},
        {"location": "en/ch01/#fusion", "title": "Fusion", "text": "one kernel"},
        {"location": "ch01/#fusion", "title": "融合", "text": "カーネル"},
        {"location": "en/", "title": "Home", "text": "GPU"},
    ]
    got = search_index.split(entries, PREFIXES)
    assert [e["location"] for e in got["ja"]] == ["", "ch01/#fusion"]
    assert [e["location"] for e in got["en"]] == ["ch01/#fusion", ""]
    assert got["en"][0]["title"] == "Fusion" and entries[1]["location"] == "en/ch01/#fusion"  # the input is not touched


def test_the_longest_folder_wins_and_a_stray_location_is_an_error():
    assert search_index.language_of("en/ch01/", PREFIXES) == "en"
    assert search_index.language_of("english/", PREFIXES) == "ja"  # "en/" is a folder, not a word prefix
    with pytest.raises(ValueError, match="'ch01/' is in no language's folder"):
        search_index.language_of("ch01/", {"ja": "ja/", "en": "en/"})


def test_narrowed_languages():
    assert search_index.narrowed_languages(["ja", "en"], "en") == ["en"]
    assert search_index.narrowed_languages(["ja", "en"], "ja") == ["ja", "en"]
    assert search_index.narrowed_languages(["en", "ja"], "ja") == ["ja", "en"]
    assert search_index.narrowed_languages(["en"], "xx") == ["en"]  # not a lunr language: left as configured


@pytest.mark.parametrize(("base", "expected"), [("../..", "../../en/"), ("..", "../en/"), (".", "en/"), ("/book", "/book/en/")])
def test_rebase_moves_materials_base_into_the_language_folder(base, expected):
    page = f'<head></head><body><script id="__config" type="application/json">{{"annotate": null, "base": "{base}", "features": []}}</script></body>'
    out = search_index.rebase(page, "en/")
    assert f'"base": "{expected}"' in out
    assert out.replace(f'"base": "{expected}"', f'"base": "{base}"') == page  # nothing else changes


def test_rebase_refuses_a_page_without_materials_config():
    with pytest.raises(ValueError, match="no material __config"):
        search_index.rebase("<html><body>plain</body></html>", "en/")


def test_a_chapters_notebook_ranks_below_the_chapter_and_loses_its_pilcrows():
    entries = [
        {"location": "ch03/", "title": "Chapter 3", "text": "recompile"},
        {"location": "ch03/#guards-recompiles", "title": "Guards and recompiles", "text": ""},
        {"location": "ch03/notebook/", "title": "Chapter 3 (notebook)", "text": "recompile"},
        {"location": "ch03/notebook/#guards-recompiles", "title": "Guards and recompiles\u00b6", "text": ""},
        {"location": "notebooks/", "title": "Notebooks", "text": ""},  # another page's folder name
    ]
    got = search_index.demote(entries, {"notebook"})
    assert [e.get("boost") for e in got] == [None, None, search_index.NOTEBOOK_BOOST, search_index.NOTEBOOK_BOOST, None]
    assert search_index.NOTEBOOK_BOOST < 1
    assert got[3]["title"] == "Guards and recompiles" and got[1] == entries[1]
    assert entries[3]["title"].endswith("\u00b6") and "boost" not in entries[2]  # the input is not touched
    both = search_index.demote(entries + [{"location": "glossary/#kernel", "title": "kernel", "text": ""}], {"notebook", "glossary"})
    assert [e.get("boost") for e in both] == [None, None, *[search_index.NOTEBOOK_BOOST] * 2, None, search_index.NOTEBOOK_BOOST]


def test_built_site_has_one_index_per_language(built_site):
    ja = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    en = json.loads((built_site / "en" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert ja["docs"] and en["docs"]
    assert not any(d["location"].startswith("en/") for d in ja["docs"] + en["docs"])
    japanese = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
    assert all(japanese.search(d["title"] + d["text"]) for d in ja["docs"] if d["text"]), "an entry of the Japanese index has no Japanese"
    assert not any(japanese.search(d["title"]) for d in en["docs"]), "an English page's title holds Japanese"
    assert ja["config"]["lang"] == ["ja", "en"] and en["config"]["lang"] == ["en"]
    # a notebook ranks below its chapter page, its headings' titles as the page's
    notebook = [d for d in en["docs"] if d["location"].startswith("ch01/notebook/")]
    assert notebook and all(d["boost"] == search_index.NOTEBOOK_BOOST and not d["title"].endswith("\u00b6") for d in notebook)
    glossary = [d for d in en["docs"] if d["location"].split("#")[0].rstrip("/").endswith("glossary")]
    assert glossary and all(d["boost"] == search_index.NOTEBOOK_BOOST for d in glossary)  # ranked below the chapters
    assert not any("boost" in d for d in en["docs"] if "notebook/" not in d["location"] and d not in glossary)
    # the pages point at their own language's index
    for page, base in (("en/ch01/index.html", "../../en/"), ("en/index.html", "../en/"), ("ch01/index.html", "..")):
        assert f'"base": "{base}"' in (built_site / page).read_text(encoding="utf-8"), page
