"""The instructors' index: every chapter and section with its stable URL, from the anchors."""

from __future__ import annotations

import html
import re
from pathlib import Path

from .twins import _strip_code

TITLE = re.compile(r"^#\s+(.+?)\s*$", re.MULTILINE)
SECTION = re.compile(r"^(#{2,3})\s+(.*?)\s*\{\s*#([\w-]+)\s*\}\s*$", re.MULTILINE)
SKIP = {"instructors.md"}


def page_url(rel: str) -> str:
    """``ch01/index.md`` -> ``ch01/``; ``foo.md`` -> ``foo/`` (mkdocs directory URLs)."""
    stem = rel[: -len(".md")]
    if stem == "index":
        return ""
    return (stem[: -len("index")] if stem.endswith("/index") else stem + "/")


def chapters(docs: Path, lang: str) -> list[Path]:
    pages = sorted((docs / lang).rglob("*.md"), key=lambda p: (p.parent != docs / lang, p.as_posix()))
    return [p for p in pages if p.name not in SKIP]


def section_index(docs: Path, lang: str, site_url: str) -> str:
    """Markdown: one list per page, each section linked with its absolute, stable URL."""
    base = site_url.rstrip("/") + "/" + ("" if lang == "ja" else f"{lang}/")
    out = []
    for path in chapters(docs, lang):
        rel = path.relative_to(docs / lang).as_posix()
        text = _strip_code(path.read_text(encoding="utf-8"))
        title = TITLE.search(text)
        url = base + page_url(rel)
        out.append(f'<h3 class="kb-sections-page"><a href="{html.escape(url)}">{html.escape(title.group(1) if title else rel)}</a></h3>')
        items = []
        for level, heading, anchor in SECTION.findall(text):
            indent = ' class="kb-sub"' if level == "###" else ""
            target = f"{url}#{anchor}"
            items.append(f'<li{indent}><a href="{html.escape(target)}">{html.escape(_plain(heading))}</a> <code>{html.escape(target)}</code></li>')
        if items:
            out.append(f'<ul class="kb-sections">{"".join(items)}</ul>')
    return "\n\n".join(out) + "\n"


def _plain(heading: str) -> str:
    return re.sub(r"[`*_]", "", heading)
