"""Japanese and English twins must match: same pages, anchors and directives. Pure."""

from __future__ import annotations

from pathlib import Path

from .claims import INLINE
from .page_text import headings, strip_code
from .render import BLOCK

LANGS = ("ja", "en")


def anchors(markdown: str) -> list[str]:
    return [h.anchor for h in headings(markdown) if h.anchor]


def unanchored(markdown: str) -> list[str]:
    """Headings without an explicit ``{ #id }``: their links would differ by language."""
    return [h.line for h in headings(markdown) if not h.anchor]


def directives(markdown: str) -> list[str]:
    """Every block and inline directive outside code, in order, as written."""
    text = strip_code(markdown)
    found = [(m.start(), m.group(0).strip()) for m in BLOCK.finditer(text)]
    found += [(m.start(), m.group(0)) for m in INLINE.finditer(text)]
    return [d for _, d in sorted(found)]


def compare(name: str, ja: str, en: str) -> list[str]:
    problems = []
    for lang, text in (("ja", ja), ("en", en)):
        for heading in unanchored(text):
            problems.append(f"docs/{lang}/{name}: heading without an explicit anchor: {heading.strip()!r} (add {{ #id }})")
    if anchors(ja) != anchors(en):
        problems.append(f"docs/{{ja,en}}/{name}: anchors differ: ja {anchors(ja)} vs en {anchors(en)}")
    dj, de = directives(ja), directives(en)
    if dj != de:
        first = next((i for i, (a, b) in enumerate(zip(dj, de)) if a != b), min(len(dj), len(de)))
        a = dj[first] if first < len(dj) else "(nothing)"
        b = de[first] if first < len(de) else "(nothing)"
        problems.append(f"docs/{{ja,en}}/{name}: snippet includes/claims differ at #{first + 1}: ja {a} vs en {b}")
    return problems


def check_tree(docs: Path) -> list[str]:
    """Every page has its twin, and twins agree."""
    pages = {lang: {p.relative_to(docs / lang).as_posix() for p in (docs / lang).rglob("*.md")} for lang in LANGS}
    problems = [f"docs/ja/{p} has no English twin docs/en/{p}" for p in sorted(pages["ja"] - pages["en"])]
    problems += [f"docs/en/{p} has no Japanese twin docs/ja/{p}" for p in sorted(pages["en"] - pages["ja"])]
    for name in sorted(pages["ja"] & pages["en"]):
        ja = (docs / "ja" / name).read_text(encoding="utf-8")
        en = (docs / "en" / name).read_text(encoding="utf-8")
        problems += compare(name, ja, en)
    return problems
