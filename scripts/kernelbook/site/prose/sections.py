"""The instructors' index: every page and section, linked where the site is served, with its canonical URL.

Each link is relative to the instructors' page, so it works on a local build, under
``mkdocs serve`` and on a preview deploy alike; under it, the canonical URL (``site_url``
+ the page + ``#anchor``, stable across versions) for a syllabus, with a copy button.
The URL breaks only between its parts (host, each folder, the anchor), never inside
one: each part is a ``<span>`` the CSS keeps on one line, with a ``<wbr>`` between them.
The copy buttons are ``hidden`` until kernelbook.js wires them: without JavaScript the
URL is still plain, selectable text. ``read_pages`` reads the pages once for this index
and for the objectives and device checks (``directives/instructors.py``), which link the
same way. Pure.
"""

from __future__ import annotations

import html
import posixpath
import re
from pathlib import Path

from .labels import label
from .text import PageText, headings, title

SKIP = {"instructors.md"}


def page_url(rel: str) -> str:
    """``ch01/index.md`` -> ``ch01/``; ``foo.md`` -> ``foo/`` (mkdocs directory URLs)."""
    stem = rel[: -len(".md")]
    if stem == "index":
        return ""
    return (stem[: -len("index")] if stem.endswith("/index") else stem + "/")


def chapters(folder: Path) -> list[Path]:
    """The pages of one language's folder: its top-level pages first, then each chapter's."""
    pages = sorted(folder.rglob("*.md"), key=lambda p: (p.parent != folder, p.as_posix()))
    return [p for p in pages if p.name not in SKIP]


def relative(target: str, page: str) -> str:
    """The link from the page at site path ``page`` (``en/instructors/``) to the folder
    ``target`` (``en/ch01/``, ``""`` for the site's root): ``../ch01/``."""
    start = (page if page.endswith("/") else posixpath.dirname(page)).rstrip("/") or "."
    rel = posixpath.relpath(target.rstrip("/") or ".", start)
    return "./" if rel == "." else rel + "/"


def url_parts(url: str) -> list[str]:
    """Where a URL may break: after the host, after each folder, before the ``#anchor``."""
    head, _, anchor = url.partition("#")
    scheme, sep, rest = head.partition("://")
    host, slash, path = rest.partition("/") if sep else ("", "", head)
    parts = [f"{scheme}{sep}{host}{slash}"] if sep else []
    parts += re.findall(r"[^/]*/|[^/]+$", path)
    if anchor:
        parts.append("#" + anchor)
    return [p for p in parts if p]


def canonical_url(url: str, text: str, lang: str) -> str:
    """A copy button, then the canonical URL as text that breaks only between its parts."""
    shown = "<wbr>".join(f"<span>{html.escape(part)}</span>" for part in url_parts(url))
    button = (f'<button type="button" class="kb-copy" hidden data-kb-copy="{html.escape(url)}" '
              f'data-kb-copied="{html.escape(label("copied", lang))}" data-kb-failed="{html.escape(label("copy_failed", lang))}" '
              f'aria-label="{html.escape(label("copy_link", lang, what=text))}">{html.escape(label("copy", lang))}</button>')
    return f'<span class="kb-url">{button}<code>{shown}</code></span>'  # the button first: it never dangles on a line of its own


def read_pages(folder: Path, base_url: str) -> list[PageText]:
    """Every page of one language's folder (but this index), read, with its URL.

    ``base_url`` is where that folder's pages are, as links from the page being rendered
    reach them: relative on the site (``../`` from ``en/instructors/``), or absolute
    (``https://…/en/``).
    """
    base = base_url.rstrip("/") + "/"
    found = []
    for path in chapters(folder):
        rel = path.relative_to(folder).as_posix()
        found.append(PageText(rel, base + page_url(rel), path.read_text(encoding="utf-8")))
    return found


def section_index(pages: list[PageText], lang: str, canonical_base: str) -> str:
    """HTML: one list per page, each section linked by the page's URL, with its canonical URL.

    ``canonical_base``: where these pages are published (the configured ``site_url`` and
    the language's folder: ``https://…/en/``), or ``""`` for no canonical URLs.
    """
    base = canonical_base.rstrip("/") + "/" if canonical_base else ""
    out = []
    for page in pages:
        rel, text, href = page.rel, page.text, page.url
        canonical = base + page_url(rel) if base else None
        name = title(text) or rel
        out.append(f'<h3 class="kb-sections-page"><a href="{html.escape(href)}">{html.escape(name)}</a></h3>')
        if canonical:
            out.append(f'<p class="kb-page-url">{canonical_url(canonical, name, lang)}</p>')
        items = []
        for h in headings(text):
            if h.level > 3 or not h.anchor:
                continue
            words = _plain(h.text)
            line = f'<a href="{html.escape(href)}#{html.escape(h.anchor)}">{html.escape(words)}</a>'
            if canonical:
                line += " " + canonical_url(f"{canonical}#{h.anchor}", words, lang)
            items.append(f'<li class="kb-sub">{line}</li>' if h.level == 3 else f"<li>{line}</li>")
        if items:
            out.append(f'<ul class="kb-sections">{"".join(items)}</ul>')
    return "\n\n".join(out) + "\n"


def _plain(heading: str) -> str:
    return re.sub(r"[`*_]", "", heading)
