"""One print document per language, assembled from the pages a build wrote.

The book is printed once, as one document, so that Chromium makes what a book needs without
any merging: links between chapters stay links inside the PDF, the headings become its outline
(bookmarks), and each chapter is a CSS named page, which starts it on a new page and gives it
its own running header (``@page`` margin boxes). The pages come in the order of the site's own
navigation (a chapter added to ``nav`` is printed without a change here), less what is not the
book's text: a chapter's notebook (the same chapter again), and the pages about the site and
its editions; the glossary comes last, and every term on the pages links to its entry there.

What only a screen can show is made for paper: every tab's content one after the other under
its label (the CPU capture, each GPU's, the prediction), closed ``<details>`` opened, each
figure's wide drawing (its narrow one is for phones), and nothing of the site's header,
navigation, search or footer (only the article is taken). Pure: HTML in, HTML out.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup, Tag

from ...safety.errors import KernelbookError

PRINT_CSS = Path(__file__).with_name("print.css")
# Pages of the nav that are not the book's text: a chapter's notebook repeats the chapter, and
# the instructors' and "what changed" pages are about the site and its editions.
LEFT_OUT = ("notebook/", "instructors/", "changes/")
# What the article holds that only a screen uses: permalinks, edit buttons, the search's and tabs' inputs.
SCREEN_ONLY = ("a.headerlink", ".md-content__button", ".md-source-file", ".md-feedback", "script", "input", "button",
               "svg.kb-layout-narrow")

LABELS = {
    "ja": {"language": "日本語版", "edition": "版", "commit": "コミット", "date": "作成日", "contents": "目次",
           "local": "ローカルビルド (版ではありません)",
           "attribution": "引用・改変の例: 「kernelbook (kernelbook の著者たち) {url} をもとに作成、CC BY 4.0」"},
    "en": {"language": "English", "edition": "Edition", "commit": "Commit", "date": "Printed", "contents": "Contents",
           "local": "a local build (not an edition)",
           "attribution": "Credit it as: \u201cAdapted from kernelbook, by the kernelbook authors, {url}, CC BY 4.0.\u201d"},
}


@dataclass(frozen=True)
class Imprint:
    """What the title page says about this copy of the book."""

    lang: str
    edition: str | None  # None: a local build, no edition
    commit: str
    date: str  # YYYY-MM-DD, UTC
    url: str  # where this language's pages are published ("" without site_url)
    paper: str = "A4"  # a CSS page size: A4 or letter


@dataclass(frozen=True)
class Page:
    """One page of the site, ready to print: its key (``ch01/``), title, sections and article."""

    key: str
    title: str
    sections: tuple[tuple[str, str], ...]  # (anchor, title) of each h2, in order
    article: Tag


def anchor(key: str, fragment: str = "") -> str:
    """The id, inside the print document, of ``fragment`` on the page ``key`` (its top without one)."""
    page = "p-" + (key.strip("/").replace("/", "-") or "home")
    return f"{page}--{fragment}" if fragment else page


def nav_keys(home: Path, prefix: str) -> list[str]:
    """The pages of the site's navigation, in order, as keys relative to the language's home (``""``, ``ch01/``)."""
    soup = _read(home / "index.html")
    nav = soup.select_one("nav.md-nav--primary")
    if nav is None:
        raise KernelbookError(f"{home / 'index.html'}: no navigation (nav.md-nav--primary); is this a Material build of the book?")
    keys: list[str] = []
    for link in nav.select("a.md-nav__link[href]"):
        parts = urlsplit(urljoin(f"/{prefix}", link["href"]))
        if parts.scheme or parts.netloc or parts.fragment or not parts.path.startswith(f"/{prefix}"):
            continue
        key = parts.path[len(prefix) + 1:]
        if key not in keys:
            keys.append(key)
    return keys


def site_chrome(home: Path) -> tuple[list[str], str]:
    """From the language's home page: its stylesheets (as file URIs, Material's and the book's) and its licence line."""
    soup = _read(home / "index.html")
    sheets = [(home / link["href"]).resolve().as_uri() for link in soup.select("link[rel=stylesheet][href]")
              if not urlsplit(link["href"]).scheme and not link["href"].startswith("//")]
    licence = soup.select_one(".md-copyright__highlight")
    return sheets, licence.decode_contents().strip() if licence else ""


def printed_keys(keys: list[str], glossary: str) -> list[str]:
    """The pages printed, in the nav's order, the glossary (``glossary/``) moved to the end."""
    kept = [k for k in keys if not any(k == skip or k.endswith("/" + skip) for skip in LEFT_OUT)]
    return [k for k in kept if k != glossary] + [k for k in kept if k == glossary]


def read_page(home: Path, key: str, prefix: str, printed: set[str]) -> Page:
    """The page ``key`` as it prints: its article with ids made unique, links pointed inside the book, tabs laid out."""
    file = home / key / "index.html"
    soup = _read(file)
    article = soup.select_one("article.md-content__inner")
    if article is None:
        raise KernelbookError(f"{file}: no article (article.md-content__inner); is this a Material build of the book?")
    canonical = soup.select_one("link[rel=canonical][href]")
    for selector in SCREEN_ONLY:
        for tag in article.select(selector):
            tag.decompose()
    for details in article.find_all("details"):
        details["open"] = ""
    _lay_out_tabs(soup, article)
    _rename_ids(article, key)
    _point_links(article, f"/{prefix}{key}", prefix, printed, canonical["href"] if canonical else "")
    _absolute_sources(article, file.parent)
    h1 = article.find("h1")
    title = h1.get_text(" ", strip=True) if h1 else key
    sections = tuple((h2["id"], h2.get_text(" ", strip=True)) for h2 in article.find_all("h2") if h2.get("id"))
    article.name, article.attrs = "section", {"class": ["kb-print-page"], "id": anchor(key)}
    return Page(key, title, sections, article)


def document(pages: list[Page], imprint: Imprint, stylesheets: list[str], copyright_html: str, book_title: str) -> str:
    """The whole print document: title page, contents, then each page, each a named page with its own running header."""
    words = LABELS.get(imprint.lang, LABELS["en"])
    named = "\n".join(f"@page kb-p{i} {{ @top-center {{ content: {_css_string(p.title)}; }} }}\n"
                      f".kb-print-page:nth-of-type({i + 1}) {{ page: kb-p{i}; }}" for i, p in enumerate(pages))
    links = "\n".join(f'<link rel="stylesheet" href="{html.escape(href)}">' for href in stylesheets)
    body = "\n".join(str(p.article) for p in pages)
    return (f'<!doctype html>\n<html lang="{imprint.lang}"><head><meta charset="utf-8">'
            f"<title>{html.escape(book_title)}</title>\n{links}\n"
            f"<style>@page {{ size: {imprint.paper}; }}</style>\n"
            f'<link rel="stylesheet" href="{PRINT_CSS.resolve().as_uri()}">\n<style>\n{named}\n</style></head>\n'
            f'<body data-md-color-scheme="default" data-md-color-primary="indigo"><div class="md-typeset kb-print">\n'
            f"{_title_page(imprint, words, copyright_html, book_title)}\n{_contents(pages, words)}\n"
            f'<div class="kb-print-body">\n{body}\n</div></div></body></html>\n')


def _read(file: Path) -> BeautifulSoup:
    try:
        return BeautifulSoup(file.read_text(encoding="utf-8"), "html.parser")
    except OSError as exc:
        raise KernelbookError(f"{file}: cannot read it ({exc.strerror}); is the site built (kernelbook build)?") from None


def _lay_out_tabs(soup: BeautifulSoup, article: Tag) -> None:
    """Each tab set becomes its tabs one after the other, each under its label (inner sets first)."""
    for tabs in reversed(article.select("div.tabbed-set")):
        labels = [label.get_text(" ", strip=True) for label in tabs.select(":scope > div.tabbed-labels > label")]
        blocks = tabs.select(":scope > div.tabbed-content > div.tabbed-block")
        laid = soup.new_tag("div", attrs={"class": "kb-print-tabs"})
        for label, block in zip(labels, blocks):
            tab = soup.new_tag("div", attrs={"class": "kb-print-tab"})
            name = soup.new_tag("p", attrs={"class": "kb-print-tab-label"})
            name.string = label
            block.attrs = {"class": ["kb-print-tab-body"]}
            tab.append(name)
            tab.append(block.extract())
            laid.append(tab)
        tabs.replace_with(laid)


def _outside_svg(tag: Tag) -> bool:
    # a figure's ids and references (its title, markers) are its own, already unique to it
    return tag.name != "svg" and tag.find_parent("svg") is None


def _rename_ids(article: Tag, key: str) -> None:
    for tag in article.find_all(id=True):
        if _outside_svg(tag):
            tag["id"] = anchor(key, tag["id"])
    for tag in article.find_all(attrs={"for": True}):
        tag["for"] = anchor(key, tag["for"])


def _point_links(article: Tag, url: str, prefix: str, printed: set[str], canonical: str) -> None:
    """Links to a printed page point inside the document; links to a page not printed, to the published site."""
    for link in article.find_all("a", href=True):
        if not _outside_svg(link):
            continue
        target = urlsplit(urljoin(url, link["href"]))
        if target.scheme or target.netloc:
            continue
        key = target.path[len(prefix) + 1:] if target.path.startswith(f"/{prefix}") else None
        if key in printed:
            link["href"] = "#" + anchor(key, target.fragment)
        elif canonical:
            link["href"] = urljoin(canonical, link["href"])


def _absolute_sources(article: Tag, folder: Path) -> None:
    for tag in article.find_all(["img", "source"], src=True):
        if not urlsplit(tag["src"]).scheme:
            tag["src"] = (folder / tag["src"]).resolve().as_uri()


def _css_string(text: str) -> str:
    """``text`` as a CSS string: quotes and backslashes escaped, and nothing that could end the <style>."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ").replace("<", "\\3c ")
    return f'"{escaped}"'


def _title_page(imprint: Imprint, words: dict[str, str], copyright_html: str, book_title: str) -> str:
    rows = [(words["edition"], imprint.edition or words["local"]), (words["commit"], imprint.commit), (words["date"], imprint.date)]
    table = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
    url = f'<a href="{html.escape(imprint.url)}">{html.escape(imprint.url)}</a>' if imprint.url else "kernelbook"
    credit = html.escape(words["attribution"]).replace("{url}", url)
    return (f'<section class="kb-print-title"><p class="kb-print-book">{html.escape(book_title)}</p>'
            f'<p class="kb-print-language">{html.escape(words["language"])}</p><table class="kb-print-imprint">{table}</table>'
            f'<p class="kb-print-licence">{copyright_html}</p><p class="kb-print-credit">{credit}</p></section>')


def _contents(pages: list[Page], words: dict[str, str]) -> str:
    items = []
    for page in pages:
        sections = "".join(f'<li><a href="#{a}">{html.escape(t)}</a></li>' for a, t in page.sections)
        items.append(f'<li><a href="#{anchor(page.key)}">{html.escape(page.title)}</a>'
                     + (f"<ol>{sections}</ol>" if sections else "") + "</li>")
    return f'<nav class="kb-print-contents"><h1 id="kb-contents">{html.escape(words["contents"])}</h1><ol>{"".join(items)}</ol></nav>'
