"""Twin pages in two languages must match: same pages, anchors, directives and number of objectives. Pure."""

from __future__ import annotations

from pathlib import Path

from ..prose import objectives
from ..directives import REGISTRY
from ..prose.labels import LANGUAGE_NAMES
from ..prose.text import headings, strip_code

LANGS = ("ja", "en")


def anchors(markdown: str) -> list[str]:
    return [h.anchor for h in headings(markdown) if h.anchor]


def unanchored(markdown: str) -> list[str]:
    """Headings without an explicit ``{ #id }``: their links would differ by language."""
    return [h.line for h in headings(markdown) if not h.anchor]


def directives(markdown: str) -> list[str]:
    """Every block and inline directive outside code, in order, as written; not those each language
    places its own way (``[[kb:term]]``: where a language names a term is its own)."""
    text = strip_code(markdown)
    found = [(m.start(), REGISTRY.read_block(m).text) for m in REGISTRY.block_pattern().finditer(text)]
    found += [(m.start(), m.group(0)) for m in REGISTRY.inline_pattern().finditer(text) if REGISTRY.inlines[m.group("name")].twin]
    return [d for _, d in sorted(found)]


def compare(name: str, ja: str, en: str, langs: tuple[str, str] = LANGS) -> list[str]:
    """What differs between the twins ``docs/<a>/name`` (text ``ja``) and ``docs/<b>/name`` (``en``)."""
    a, b = langs
    problems = []
    for lang, text in ((a, ja), (b, en)):
        for heading in unanchored(text):
            problems.append(f"docs/{lang}/{name}: heading without an explicit anchor: {heading.strip()!r} (add {{ #id }})")
    if anchors(ja) != anchors(en):
        problems.append(f"docs/{{{a},{b}}}/{name}: anchors differ: {a} {anchors(ja)} vs {b} {anchors(en)}")
    try:
        oj, oe = objectives.of_page(ja), objectives.of_page(en)
        if len(oj) != len(oe):
            problems.append(f"docs/{{{a},{b}}}/{name}: objectives differ in number: {a} {len(oj)} vs {b} {len(oe)}")
    except ValueError as exc:
        problems.append(f"docs/{{{a},{b}}}/{name}: {exc}")
    dj, de = directives(ja), directives(en)
    if dj != de:
        first = next((i for i, (x, y) in enumerate(zip(dj, de)) if x != y), min(len(dj), len(de)))
        x = dj[first] if first < len(dj) else "(nothing)"
        y = de[first] if first < len(de) else "(nothing)"
        problems.append(f"docs/{{{a},{b}}}/{name}: snippet includes/claims differ at #{first + 1}: {a} {x} vs {b} {y}")
    return problems


def check_tree(docs: Path, langs: tuple[str, ...] = LANGS) -> list[str]:
    """Every page of ``docs/<lang>/`` has its twin in each other language, and twins agree.

    The first language is the original; a book in one language has no twins to check.
    """
    if len(langs) < 2:
        return []
    pages = {lang: {p.relative_to(docs / lang).as_posix() for p in (docs / lang).rglob("*.md")} for lang in langs}
    first = langs[0]
    problems = []
    for other in langs[1:]:
        problems += [f"docs/{first}/{p} has no {LANGUAGE_NAMES.get(other, other)} twin docs/{other}/{p}" for p in sorted(pages[first] - pages[other])]
        problems += [f"docs/{other}/{p} has no {LANGUAGE_NAMES.get(first, first)} twin docs/{first}/{p}" for p in sorted(pages[other] - pages[first])]
        for name in sorted(pages[first] & pages[other]):
            original = (docs / first / name).read_text(encoding="utf-8")
            twin = (docs / other / name).read_text(encoding="utf-8")
            problems += compare(name, original, twin, (first, other))
    return problems
