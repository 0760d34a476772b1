"""sections.py: the instructors' index links where the site is served, and shows the published URL."""

from __future__ import annotations

import pytest

from kernelbook.site.prose import sections
from conftest import write


@pytest.mark.parametrize(("target", "page", "expected"), [
    ("en/ch01/", "en/instructors/", "../ch01/"),
    ("en/", "en/instructors/", "../"),
    ("", "instructors/", "../"),
    ("ch01/", "instructors/", "../ch01/"),
    ("instructors/", "instructors/", "./"),
    ("ch01/", "", "ch01/"),
])
def test_relative_links(target, page, expected):
    assert sections.relative(target, page) == expected


def test_url_parts_break_only_between_host_folders_and_anchor():
    assert sections.url_parts("https://kernelbook.github.io/kernelbook/en/ch01/#where-numbers-come-from") == [
        "https://kernelbook.github.io/", "kernelbook/", "en/", "ch01/", "#where-numbers-come-from"]
    assert sections.url_parts("https://example.org/") == ["https://example.org/"]
    assert "".join(sections.url_parts("http://h:8000/a/b#c")) == "http://h:8000/a/b#c"


def test_index_links_relatively_and_shows_the_canonical_url(tmp_path):
    folder = tmp_path / "en"
    write(folder / "index.md", "# Home\n\n## Start { #start }\n")
    write(folder / "ch01" / "index.md", "# Chapter `1`\n\n## Fusion & <b> { #fusion }\n\n### Deeper { #deeper }\n\n## No anchor\n")
    write(folder / "instructors.md", "# For instructors\n")
    pages = sections.read_pages(folder, sections.relative("en/", "en/instructors/"))
    out = sections.section_index(pages, "en", "https://example.org/book/en/")
    assert '<a href="../ch01/#fusion">Fusion &amp; &lt;b&gt;</a>' in out
    assert 'data-kb-copy="https://example.org/book/en/ch01/#fusion"' in out
    assert "<span>#fusion</span>" in out and '<li class="kb-sub"><a href="../ch01/#deeper">' in out
    assert "No anchor" not in out and "For instructors" not in out  # no anchor, no stable link; the page itself is skipped
    assert 'aria-label="Copy the URL of “Fusion &amp; &lt;b&gt;”"' in out and " hidden " in out
    bare = sections.section_index(pages, "en", "")  # no site_url: links only
    assert '<a href="../ch01/#fusion">' in bare and "kb-copy" not in bare and "kb-url" not in bare
