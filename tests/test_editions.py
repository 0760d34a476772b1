"""Editions: two editions of a small bilingual book published with mike, checked in a browser.

A tiny book (two languages, one chapter, one snippet) lives in a temporary git repository.
Edition 2026.06 is captured (``kernelbook capture``), tagged and published with
``kernelbook edition publish``; then the snippet counts one more, is captured again, one
sentence changes in both languages, and edition 2026.12 is published the same way. The
gh-pages branch's tree is served on 127.0.0.1 and read in Chromium. No network: mike
builds and commits locally, and nothing is pushed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, run_cli, serving, write

MKDOCS = """
site_name: Editions test
site_url: https://example.org/book/
docs_dir: docs
strict: true
theme:
  name: material
  language: ja
  font: false
extra:
  generator: false
extra_javascript:
  - assets/kernelbook.js
nav:
  - index.md
  - ch01/index.md{more}
  - instructors.md
  - changes.md
plugins:
  - search
  - i18n:
      docs_structure: folder
      fallback_to_default: false
      reconfigure_material: true
      reconfigure_search: true
      languages:
        - locale: ja
          name: 日本語
          default: true
          build: true
        - locale: en
          name: English
          build: true
  - kernelbook:
      notebooks: false
markdown_extensions:
  - attr_list
  - toc:
      permalink: true
"""

SNIPPET = """
# How many items the list holds.
items = list(range({n}))
results = {{"count": len(items)}}
print("count:", len(items))
"""

PAGES = {
    "ja": ("""
# 数える { #counting }

## 要素の数 { #how-many }

リストの要素は [[kb:value ch01/count count]] 個です。{sentence}

[[kb:run ch01/count]]

## まとめ { #summary }

数えるだけの例です。
""", "この文は版ごとに変わりません。", "この文は新しい版で書き直しました。"),
    "en": ("""
# Counting { #counting }

## How many { #how-many }

The list holds [[kb:value ch01/count count]] items. {sentence}

[[kb:run ch01/count]]

## Summary { #summary }

Only counting here.
""", "This sentence stays the same.", "This sentence was rewritten for the new edition."),
}

CITATION = """
cff-version: 1.2.0
message: "Cite it as below."
type: software
title: "Editions test"
authors:
  - name: "the authors"
version: 0.1.0
"""

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "NO_MKDOCS_2_WARNING": "1", "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}


def _git(book: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", *args], cwd=book,
                          capture_output=True, text=True, env={**os.environ, **GIT_ENV}, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _pages(book: Path, which: int) -> None:
    for lang, (page, *sentences) in PAGES.items():
        write(book / f"docs/{lang}/ch01/index.md", page.replace("{sentence}", sentences[which]))


MORE = {"ja": "# もっと数える { #more }\n\n新しい版だけにあるページです。\n", "en": "# More counting { #more }\n\nA page only the newer edition has.\n"}
INSTRUCTORS = {"ja": "# 授業で使う方へ\n\n## 節へのリンク { #section-links }\n\n[[kb:sections]]\n",
               "en": "# For instructors\n\n## Links to sections { #section-links }\n\n[[kb:sections]]\n"}


def _edition(book: Path, name: str, count: int, which: int) -> None:
    write(book / "snippets/ch01/count.py", SNIPPET.format(n=count))
    _pages(book, which)
    write(book / "mkdocs.yml", MKDOCS.replace("{more}", "\n  - ch01/more.md" if which else ""))
    for lang in PAGES:
        write(book / f"docs/{lang}/instructors.md", INSTRUCTORS[lang])
        if which:
            write(book / f"docs/{lang}/ch01/more.md", MORE[lang])
    _git(book, "add", "-A")
    _git(book, "commit", "-q", "-m", f"snippet counts {count}")
    done = run_cli("capture", "--device", "cpu", root=book)  # a real run of the snippet, from a clean tree
    assert done.returncode == 0, done.stdout + done.stderr
    _git(book, "add", "-A")
    _git(book, "commit", "-q", "-m", f"captured for {name}")
    cut = run_cli("edition", "cut", name, root=book, **GIT_ENV)  # the version set in CITATION.cff, committed, tagged
    assert cut.returncode == 0 and f"tag edition-{name}" in cut.stdout, cut.stdout + cut.stderr
    done = run_cli("edition", "publish", name, root=book, **GIT_ENV)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]


@pytest.fixture(scope="module")
def editions(tmp_path_factory):
    """The gh-pages tree with editions 2026.06 (count 3) and 2026.12 (count 4, one sentence rewritten)."""
    if not shutil.which("git"):
        pytest.skip("no git")
    book = tmp_path_factory.mktemp("editions") / "book"
    write(book / "pyproject.toml", '[project]\nname = "editionsbook"\nversion = "0"\n')
    shutil.copy2(ROOT / "mkdocs.editions.yml", book / "mkdocs.editions.yml")
    write(book / ".gitignore", ".kernelbook/\nsite/\n")
    write(book / "CITATION.cff", CITATION)
    shutil.copytree(ROOT / "docs/assets", book / "docs/assets")  # kernelbook.js: the selector in the other language
    for lang, home in (("ja", "# 版のテスト\n"), ("en", "# Editions test\n")):
        write(book / f"docs/{lang}/index.md", home)
        shutil.copy2(ROOT / f"docs/{lang}/changes.md", book / f"docs/{lang}/changes.md")
    _git(book, "init", "-q", "-b", "main")
    _edition(book, "2026.06", 3, 0)
    _edition(book, "2026.12", 4, 1)
    served = book.parent / "served"
    served.mkdir()
    archive = subprocess.run(["git", "archive", "gh-pages"], cwd=book, capture_output=True, check=True, timeout=120)
    subprocess.run(["tar", "-x", "-C", str(served)], input=archive.stdout, check=True, timeout=120)
    return book, served


@pytest.fixture(scope="module")
def editions_url(editions):
    with serving(editions[1]) as url:
        yield url


# ---------------------------------------------------------------- the published tree


def test_both_editions_are_on_the_branch_with_their_own_captures(editions):
    book, served = editions
    versions = json.loads((served / "versions.json").read_text(encoding="utf-8"))
    assert [v["version"] for v in versions] == ["2026.12", "2026.06"]
    for edition, count in (("2026.06", 3), ("2026.12", 4)):
        for prefix in ("", "en/"):
            page = (served / edition / prefix / "ch01/index.html").read_text(encoding="utf-8")
            assert f"count: {count}" in page, (edition, prefix)  # the run's output, as captured for that edition
    listed = run_cli("edition", "list", root=book, **GIT_ENV)
    assert listed.returncode == 0 and listed.stdout.split() == ["2026.12", "2026.06"], listed.stdout + listed.stderr


def test_a_frozen_edition_is_never_published_again(editions):
    from kernelbook.site.editions import publishing

    book, served = editions
    before = _git(book, "rev-parse", "gh-pages")
    # From the edition's own tagged commit, where CITATION.cff gives 2026.06 (at main's head it gives
    # 2026.12, and the citation check would refuse too): only "already published" can refuse it here.
    _git(book, "checkout", "-q", "edition-2026.06")
    try:
        assert publishing.citation_version(book) == "2026.06"
        done = run_cli("edition", "publish", "2026.06", root=book, **GIT_ENV)
    finally:
        _git(book, "checkout", "-q", "main")
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "edition 2026.06 is already published" in lines[0] and "delete" in lines[0]
    assert _git(book, "rev-parse", "gh-pages") == before
    bad = run_cli("edition", "publish", "2026.13", root=book, **GIT_ENV)
    assert bad.returncode == 2 and "'2026.13' is not an edition" in bad.stderr


def test_each_edition_is_a_tagged_commit_whose_citation_carries_it(editions):
    book, _ = editions
    for name in ("2026.06", "2026.12"):
        cited = _git(book, "show", f"edition-{name}:CITATION.cff")
        assert f'\nversion: "{name}"\n' in cited and re.search(r'\ndate-released: "\d{4}-\d\d-\d\d"\n', cited)
        assert f'version = "{name}"' in _git(book, "show", f"edition-{name}:pyproject.toml")
    again = run_cli("edition", "cut", "2026.12", root=book, **GIT_ENV)
    assert again.returncode == 2 and "already exists" in again.stderr
    uncut = run_cli("edition", "publish", "2027.06", root=book, **GIT_ENV)  # never tagged by cut: the citation says 2026.12
    assert uncut.returncode == 2 and "CITATION.cff gives version 2026.12" in uncut.stderr and "edition cut 2027.06" in uncut.stderr
    latest = run_cli("edition", "cut", "latest", root=book, **GIT_ENV)
    assert latest.returncode == 2 and "never cut" in latest.stderr


def test_instructors_links_point_into_the_edition(editions):
    _, served = editions
    for prefix in ("", "en/"):
        page = (served / "2026.12" / prefix / "instructors/index.html").read_text(encoding="utf-8")
        assert f'data-kb-copy="https://example.org/book/2026.12/{prefix}ch01/#how-many"' in page, prefix
        old = (served / "2026.06" / prefix / "instructors/index.html").read_text(encoding="utf-8")
        assert f'data-kb-copy="https://example.org/book/2026.06/{prefix}ch01/#how-many"' in old, prefix


# ---------------------------------------------------------------- in a browser


@pytest.fixture(scope="module")
def page(editions_url, browser):
    """A tab of the session's one Chromium (Playwright's sync API allows one per process)."""
    tab = browser.new_page()
    tab.requests, tab.failures = [], []
    tab.on("request", lambda r: tab.requests.append(r.url))
    tab.on("response", lambda r: r.status >= 400 and tab.failures.append(f"HTTP {r.status}: {r.url}"))
    yield tab
    tab.close()


def _open(page, url: str) -> None:
    page.requests.clear()
    page.failures.clear()
    page.goto(url)
    page.wait_for_selector(".md-version__link", state="attached", timeout=15000)


LANGS = {"ja": "", "en": "en/"}


@pytest.mark.parametrize("lang", LANGS)
def test_the_selector_lists_both_editions_on_every_page_and_nothing_is_fetched_from_outside(page, editions_url, lang):
    for edition in ("2026.06", "2026.12"):
        for rel in ("", "ch01/", "changes/"):
            _open(page, f"{editions_url}/{edition}/{LANGS[lang]}{rel}")
            links = page.eval_on_selector_all(".md-version__link", "els => els.map(e => [e.textContent.trim(), e.href])")
            assert links == [["2026.12", f"{editions_url}/2026.12/"], ["2026.06", f"{editions_url}/2026.06/"]], (edition, rel)
            assert page.inner_text(".md-version__current").strip() == edition
            assert f"{editions_url}/versions.json" in page.requests
            assert all(u.startswith(editions_url) or u.startswith("data:") for u in page.requests), page.requests
            assert page.failures == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_older_edition_shows_its_own_number_and_sentence(page, editions_url, lang):
    template, old, new = PAGES[lang]
    for edition, count, sentence, other in (("2026.06", "3", old, new), ("2026.12", "4", new, old)):
        _open(page, f"{editions_url}/{edition}/{LANGS[lang]}ch01/")
        text = page.inner_text("article")
        assert sentence in text and other not in text, edition
        assert page.inner_text("#how-many ~ p .kb-value").strip() == count, edition


@pytest.mark.parametrize("lang", LANGS)
def test_section_anchors_resolve_in_both_editions(page, editions_url, lang):
    for edition in ("2026.06", "2026.12"):
        for anchor in ("how-many", "summary"):
            _open(page, f"{editions_url}/{edition}/{LANGS[lang]}ch01/#{anchor}")
            assert page.evaluate("id => !!document.getElementById(id)", anchor), (edition, anchor)


def _choose(page, edition: str) -> None:
    with page.expect_navigation():
        page.eval_on_selector(f".md-version__link[href$='/{edition}/']", "el => el.click()")
    page.wait_for_load_state()


@pytest.mark.parametrize("lang", LANGS)
def test_switching_edition_keeps_the_page_and_anchor_or_falls_back_to_the_chapter(page, editions_url, lang):
    prefix = LANGS[lang]
    _open(page, f"{editions_url}/2026.12/{prefix}ch01/#how-many")
    _choose(page, "2026.06")
    assert page.url == f"{editions_url}/2026.06/{prefix}ch01/#how-many"
    _open(page, page.url)
    _choose(page, "2026.12")
    assert page.url == f"{editions_url}/2026.12/{prefix}ch01/#how-many"
    # a page only the newer edition has: the older one's chapter instead, never a 404
    _open(page, f"{editions_url}/2026.12/{prefix}ch01/more/")
    _choose(page, "2026.06")
    assert page.url == f"{editions_url}/2026.06/{prefix}ch01/"
    assert page.failures == []


@pytest.mark.parametrize("edition", ["2026.06", "2026.12"])
def test_switching_language_stays_inside_the_edition_and_keeps_the_anchor(page, editions_url, edition):
    for here, there in (("", "en/"), ("en/", "")):
        _open(page, f"{editions_url}/{edition}/{here}ch01/#how-many")
        target = "en" if there else "ja"
        with page.expect_navigation():
            page.eval_on_selector(f"a.md-select__link[hreflang={target}]", "el => el.click()")
        assert page.url == f"{editions_url}/{edition}/{there}ch01/#how-many"


@pytest.mark.parametrize("lang", LANGS)
def test_the_changes_page_names_exactly_the_changed_number_and_sentence(page, editions_url, lang):
    template, old, new = PAGES[lang]
    _open(page, f"{editions_url}/2026.12/{LANGS[lang]}changes/")
    changed = page.eval_on_selector_all(".kb-edition-sections tr[data-status=changed]",
                                        "rows => rows.map(r => [r.querySelector('a').getAttribute('href'), r.innerText])")
    assert len(changed) == 1 and changed[0][0].endswith("ch01/#how-many"), changed
    assert old in changed[0][1] and new in changed[0][1]
    assert page.eval_on_selector_all(".kb-edition-sections tr[data-status=added]", "rows => rows.map(r => r.innerText)") \
        and all("ch01/more/" in h for h in page.eval_on_selector_all(
            ".kb-edition-sections tr[data-status=added] a", "els => els.map(e => e.getAttribute('href'))"))
    rows = page.eval_on_selector_all(".kb-edition-numbers tbody tr",
                                     "rows => rows.map(r => [...r.cells].slice(1, 4).map(c => c.innerText.trim()))")
    assert rows == [["[[kb:value ch01/count count]]", "3", "4"], ["results.count", "3", "4"]], rows
    # the edition's own PDFs, at its root, one per language ([[kb:edition-pdfs]])
    pdfs = page.eval_on_selector_all("ul.kb-edition-pdfs a", "els => els.map(e => e.href)")
    assert pdfs == [f"{editions_url}/2026.12/kernelbook-{other}.pdf" for other in LANGS], pdfs
    _open(page, f"{editions_url}/2026.06/{LANGS[lang]}changes/")
    assert page.query_selector(".kb-edition-first") is not None and page.query_selector(".kb-edition-numbers") is None


# ---------------------------------------------------------------- the pieces, without a build


def test_previous_edition_and_names():
    from kernelbook.site.editions import history as editions

    assert editions.previous(["2026.06", "2026.12"], "2026.12") == "2026.06"
    assert editions.previous(["2026.06", "2026.12"], "latest") == "2026.12"
    assert editions.previous(["2026.06", "2026.12"], None) == "2026.12"
    assert editions.previous(["2026.06"], "2026.06") is None
    assert editions.current({"MIKE_DOCS_VERSION": "2026.12"}) == "2026.12" and editions.current({}) is None
    with pytest.raises(ValueError, match="YYYY.MM"):
        editions.edition_name("v1")


def test_section_changes_name_the_sentences_that_changed():
    from kernelbook.site.editions import history as editions

    old = {"a.md": "# A { #a }\n\n## One { #one }\n\nSame. Old words here. Also same.\n\n## Gone { #gone }\n\nx\n"}
    new = {"a.md": "# A { #a }\n\n## One { #one }\n\nSame. New words here. Also same.\n\n## Added { #added }\n\ny\n"}
    found = {(c.anchor, c.status): c for c in editions.section_changes(old, new)}
    assert set(found) == {(None, "unchanged"), ("one", "changed"), ("added", "added"), ("gone", "removed")}
    assert found[("one", "changed")].before == ("Old words here.",) and found[("one", "changed")].after == ("New words here.",)
    assert editions.sentences("一つ目。二つ目。 Third one. Fourth!") == ["一つ目。", "二つ目。", "Third one.", "Fourth!"]


def test_a_page_names_its_edition_and_leaves_materials_selector_to_kernelbook_js_in_another_language():
    from kernelbook.site.editions import history as editions

    page = ('<html><head><title>t</title></head><body><script id="__config" type="application/json">'
            '{"base": "../../en/", "version": {"provider": "mike", "default": "latest"}}</script></body></html>')
    assert editions.mark_page(page, None, "../", "") == page  # a local build: as it was
    ja = editions.mark_page(page, "2026.12", "../", "")
    assert '<meta name="kb-edition" content="2026.12" data-root="../" data-lang-prefix="">' in ja and '"provider": "mike"' in ja
    en = editions.mark_page(page, "2026.12", "../../", "en/")
    assert 'data-root="../../" data-lang-prefix="en/" data-selector>' in en
    config = json.loads(re.search(r'<script id="__config" type="application/json">(.*?)</script>', en).group(1))
    assert config == {"base": "../../en/"}  # Material would read ../versions.json from /2026.12/en/: a 404


def test_every_edition_command_reads_the_editions_from_the_remote_it_was_given(tmp_path, monkeypatch):
    """`kernelbook edition list/delete/publish --remote R` asks mike about R's branch, not origin's."""
    from kernelbook.site.editions import publishing

    sp = subprocess
    sp.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    sp.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
            "-m", "x"], check=True)
    sp.run(["git", "-C", str(tmp_path), "branch", "gh-pages"], check=True)  # not checked out: mike commits onto it
    asked: list[list[str]] = []

    def fake_mike(root, args, edition=None):
        asked.append(args)
        return sp.CompletedProcess(args, 0, stdout='[{"version": "2026.12", "aliases": []}]', stderr="")

    monkeypatch.setattr(publishing, "_mike", fake_mike)
    assert publishing.listing(tmp_path, remote="upstream") == "2026.12\n"
    publishing.delete(tmp_path, "2026.12", remote="upstream")
    # list; delete's own look at the editions, then mike delete
    assert [a[a.index("-r") + 1] for a in asked] == ["upstream"] * 3
