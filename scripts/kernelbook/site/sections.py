"""The instructors' index: every chapter and section with its stable URL, from the anchors."""

from __future__ import annotations

import html
import re
from pathlib import Path

from .page_text import PageText, headings, title

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


def read_pages(folder: Path, base_url: str) -> list[PageText]:
    """Every page of one language's folder (but this index), read, with its published URL.

    ``base_url`` is where that folder's pages are published (``https://…/en/``).
    """
    base = base_url.rstrip("/") + "/"
    found = []
    for path in chapters(folder):
        rel = path.relative_to(folder).as_posix()
        found.append(PageText(rel, base + page_url(rel), path.read_text(encoding="utf-8")))
    return found


def section_index(pages: list[PageText]) -> str:
    """Markdown: one list per page, each section linked with its absolute, stable URL."""
    out = []
    for page in pages:
        rel, text, url = page.rel, page.text, page.url
        out.append(f'<h3 class="kb-sections-page"><a href="{html.escape(url)}">{html.escape(title(text) or rel)}</a></h3>')
        items = []
        for h in headings(text):
            if h.level > 3 or not h.anchor:
                continue
            indent = ' class="kb-sub"' if h.level == 3 else ""
            target = f"{url}#{h.anchor}"
            items.append(f'<li{indent}><a href="{html.escape(target)}">{html.escape(_plain(h.text))}</a> <code>{html.escape(target)}</code></li>')
        if items:
            out.append(f'<ul class="kb-sections">{"".join(items)}</ul>')
    return "\n\n".join(out) + "\n"


def _plain(heading: str) -> str:
    return re.sub(r"[`*_]", "", heading)
