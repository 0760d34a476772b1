"""Every internal link and #anchor in the built site resolves.

Each page of ``built_site`` (conftest.py) is read as the deployed site would serve it, at
``site_url`` + its path: a link is resolved against that URL, and one that lands inside
``site_url`` (relative, root-absolute as in 404.html, or absolute like the URLs the
instructors' copy buttons hand out) must name a file of the build (a folder: its index.html) and, with a
``#fragment``, an element of that page with that id (or an <a name>). Links elsewhere
(GitHub, Colab, mailto:) are not fetched. All failures are listed at once.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from conftest import ROOT

LINKING = {"a": "href", "link": "href", "script": "src", "img": "src", "source": "src", "iframe": "src"}
COPIED = "data-kb-copy"  # the URL a copy button hands out (the instructors' page): it must resolve too


def site_url() -> str:
    match = re.search(r"^site_url:\s*(\S+)", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE)
    assert match, "mkdocs.yml has no site_url"
    return match.group(1).rstrip("/") + "/"


class Page(HTMLParser):
    """The links (tag, attribute value, line) and the anchor targets (id, <a name>) of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, int]] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"] or "")
        if tag == "a" and attrs.get("name"):
            self.ids.append(attrs["name"])
        for value in (attrs.get(LINKING.get(tag, "")), attrs.get(COPIED)):
            if value is not None:
                self.links.append((tag, value, self.getpos()[0]))

    handle_startendtag = handle_starttag


@lru_cache(maxsize=None)
def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def target_file(site: Path, local: str) -> Path | None:
    """The built file a site-relative URL path names (a folder: its index.html), if any."""
    path = site / unquote(local)
    if local == "" or local.endswith("/") or path.is_dir():
        path = path / "index.html"
    return path if path.is_file() else None


def check_site(site: Path) -> tuple[int, list[str]]:
    base = site_url()
    prefix = urlsplit(base)
    checked, failures = 0, []
    pages = sorted(site.rglob("*.html"))
    assert pages, f"no HTML under {site}"
    for html_file in pages:
        rel = html_file.relative_to(site).as_posix()
        page_url = base + (rel.removesuffix("index.html") if rel.endswith("index.html") else rel)
        for tag, value, line in parse(html_file).links:
            value = value.strip()
            if not value or value.startswith(("mailto:", "javascript:", "data:", "tel:")):
                continue
            url = urlsplit(urljoin(page_url, value))
            if url.scheme not in ("http", "https") or url.netloc != prefix.netloc:
                continue  # another site: GitHub, Colab, ...
            if url.path.endswith("sitemap.xml") or url.path.endswith("sitemap.xml.gz"):
                continue
            where = f"{rel}:{line}: <{tag}> {value!r}"
            if not url.path.startswith(prefix.path):
                failures.append(f"{where}: outside the site's path {prefix.path} (a 404 once deployed)")
                continue
            checked += 1
            target = target_file(site, url.path[len(prefix.path):])
            if target is None:
                failures.append(f"{where}: no such file in the build ({url.path})")
                continue
            fragment = unquote(url.fragment)
            if fragment and target.suffix == ".html" and fragment not in parse(target).ids:
                failures.append(f"{where}: no id {fragment!r} in {target.relative_to(site).as_posix()}")
    return checked, failures


def test_every_internal_link_and_anchor_resolves(built_site):
    checked, failures = check_site(built_site)
    assert not failures, f"{len(failures)} broken link(s) of {checked} checked:\n" + "\n".join(failures)
    assert checked > 50, f"only {checked} internal links checked: is the site (or this test) broken?"


def test_anchor_targets_are_unique_and_not_empty(built_site):
    """An id that is empty or appears twice makes a link to it go nowhere, or to the wrong place."""
    problems = []
    for html_file in sorted(built_site.rglob("*.html")):
        ids = Counter(parse(html_file).ids)
        rel = html_file.relative_to(built_site).as_posix()
        if ids.get(""):
            problems.append(f"{rel}: {ids['']} element(s) with an empty id")
        problems += [f"{rel}: id {i!r} used {n} times" for i, n in sorted(ids.items()) if i and n > 1]
    assert not problems, "\n".join(problems)


def test_the_checker_catches_a_broken_link_and_a_broken_anchor(tmp_path):
    """The checker itself: a missing page and a missing id are reported; good links are not."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<h2 id="here">x</h2><a href="../b/">b</a><a href="#here">ok</a>'
                                               '<a href="../a/#gone">gone</a><a href="/elsewhere/">root</a>'
                                               '<a href="https://github.com/x/y">ext</a>', encoding="utf-8")
    (tmp_path / "index.html").write_text('<a href="a/">a</a><a href="a/#here">a#here</a>', encoding="utf-8")
    checked, failures = check_site(tmp_path)
    text = "\n".join(failures)
    assert "no such file" in text and "'../b/'" in text
    assert "no id 'gone'" in text
    assert ("outside the site's path" in text) == (urlsplit(site_url()).path != "/")
    assert "#here'" not in text and "github" not in text
    assert checked >= 4
