"""The one-pass term linker against the algorithm it replaced: the same output, byte for byte.

``reference_link_terms`` below is the linker as it was (one alternation of every form,
longest first, tried at every position of the page), kept here as the reference. The new
one (``term_links.link_terms``: a trie of the forms, only their own patterns tried where the
trie says one may start) must write exactly what it wrote: on the real glossary and every
real page, in both languages and as a page of every chapter, on a generated glossary of
many terms, and on the cases that are easy to get wrong.
"""

from __future__ import annotations

import bisect
import random
import re

import pytest

from conftest import ROOT
from kernelbook.site.glossary import terms as G
from kernelbook.site.glossary import links as T
from kernelbook.site.prose.text import FENCE

LANGS = ("ja", "en")
BOOK = G.load(ROOT / "docs" / "glossary.yml", LANGS, source="docs/glossary.yml")
PAGES = sorted((ROOT / "docs").glob("*/**/*.md"))
CHAPTERS = ("", "ch01", "ch02", "ch03", "ch04", "ch05")


# ---------------------------------------------------------------- the reference: the linker as it was

def _reference_form_pattern(form: str) -> str:
    body = r"\s+".join(re.escape(part) for part in form.split())
    head, tail = form[0], form[-1]
    if T._ASCII_WORD.match(head):
        body = r"(?<![\w.\-])" + body
    elif re.match(f"[{T._KATAKANA}]", head):
        body = f"(?<![{T._KATAKANA}])" + body
    if T._ASCII_WORD.match(tail):
        body += r"(?![\w\-/]|\.\w)"
    elif re.match(f"[{T._KATAKANA}]", tail):
        body += f"(?![{T._KATAKANA}])"
    return body


def _reference_matcher(glossary, lang, chapter):
    owner, written = {}, {}
    for term in glossary.terms:
        if term.links_itself_on(chapter):
            for form in term.words[lang].forms:
                if T._key(form) not in owner:
                    owner[T._key(form)], written[T._key(form)] = term, form
    forms = sorted(written.values(), key=len, reverse=True)
    if not forms:
        return re.compile(r"(?!)"), owner
    return re.compile("|".join(_reference_form_pattern(f) for f in forms), re.IGNORECASE), owner


def reference_link_terms(markdown, glossary, lang, chapter, link):
    spans = T.protected(markdown)
    heads = [m.start() for m in T.HEADING_LINE.finditer(markdown)
             if not any(f.start() <= m.start() < f.end() for f in FENCE.finditer(markdown))]
    used: dict[int, set[str]] = {}
    for term_id, offset in T.explicit(markdown):
        used.setdefault(bisect.bisect_right(heads, offset), set()).add(term_id)
    pattern, owner = _reference_matcher(glossary, lang, chapter)
    out, last = [], 0
    for m in pattern.finditer(markdown):
        if T._inside(spans, m.start(), m.end()):
            continue
        term = owner[T._key(m.group(0))]
        if T._avoided(markdown, m.start(), m.end(), term.words[lang].avoid):
            continue
        section = used.setdefault(bisect.bisect_right(heads, m.start()), set())
        if term.id in section:
            continue
        section.add(term.id)
        out += [markdown[last:m.start()], link(term, m.group(0))]
        last = m.end()
    return "".join(out) + markdown[last:]


def _link(term, words):
    return f"<{term.id}:{words}>"


def _both(markdown, glossary, lang, chapter):
    return (T.link_terms(markdown, glossary, lang, chapter, _link),
            reference_link_terms(markdown, glossary, lang, chapter, _link))


# ---------------------------------------------------------------- the real book

def test_the_book_has_pages_to_compare():
    assert {p.parent.name for p in PAGES} >= {"ch01", "ch02", "ch03", "ch04"}
    assert len(BOOK.terms) > 40


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT / "docs").as_posix())
def test_every_real_page_links_as_before(page):
    lang = page.relative_to(ROOT / "docs").parts[0]
    text = page.read_text(encoding="utf-8")
    for chapter in CHAPTERS:  # as a page of its own chapter and of every other: every `auto` set
        new, old = _both(text, BOOK, lang, chapter)
        assert new == old, f"{page.name} as a page of {chapter or 'no chapter'}"
    if page.parent.name.startswith("ch"):  # a chapter links terms: the two do not agree on linking nothing
        assert "<kernel:" in T.link_terms(text, BOOK, lang, page.parent.name, _link)


def test_the_real_page_with_the_real_link_writer():
    page = ROOT / "docs" / "en" / "ch01" / "index.md"
    text = page.read_text(encoding="utf-8")
    link = T.page_link("../../glossary/", "en")
    assert T.link_terms(text, BOOK, "en", "ch01", link) == reference_link_terms(text, BOOK, "en", "ch01", link)


# ---------------------------------------------------------------- cases that are easy to get wrong

def _glossary(*entries):
    raw = {"terms": [{"id": i, "chapter": "ch01", **extra, "ja": {"term": ja, "definition": "定義。", **jx},
                      "en": {"term": en, "definition": "A definition.", **ex}}
                     for i, ja, en, extra, jx, ex in entries]}
    return G.parse(raw, "test.yml", LANGS)


TRICKY = _glossary(
    ("kernel", "カーネル", "kernel", {}, {"avoid": ["カーネル空間"]}, {"forms": ["kernels"]}),
    ("launch", "起動", "launch", {}, {"avoid": ["起動直後"]}, {"forms": ["launches", "launched"]}),
    ("kernel-launch", "カーネル起動", "kernel launch", {}, {}, {"forms": ["Kernel  launches"]}),
    ("gpu-memory", "GPU メモリ", "GPU memory", {}, {}, {}),
    ("view", "ビュー", "view", {}, {}, {}),
    ("sync", "同期", "synchronise", {}, {}, {"forms": ["sync"]}),
    ("async", "非同期", "asynchronous", {}, {}, {}),
    ("flop", "FLOP", "FLOP", {}, {}, {"forms": ["FLOPs"]}),
    ("profiler", "プロファイラ", "profiler", {}, {}, {}),
    ("program", "プログラム", "program", {"auto": ["ch04"]}, {}, {}),
    ("ss", "ſs", "ſtress", {}, {}, {"forms": ["kelvin", "s-curve", "a.b", "c++"]}),
    ("l2", "L2 キャッシュ", "L2 cache", {}, {}, {}),
)

CASES = [
    "kernel kernels KERNEL Kernel launch kernel  launches kernel\nlaunch kernel\tlaunched",
    "The torch.profiler and profiler. profiler.x profiler-ish pre-profiler profiler/ FLOP/s FLOPs FLOP.",
    "GPU memory GPU\n  memory gpu MEMORY GPU memoryless GPU",
    "レビュー ビュー ビューア ビューとカーネル空間とカーネル、起動直後の起動、非同期と同期。カーネル起動",
    "# kernel heading\nkernel kernel\n## view\nview launch view\n```\nkernel in code\n```\nkernel after code",
    "`kernel` [kernel](x) <a>kernel</a> <b>kernel</b> {#kernel} https://kernel.org/kernel kernel",
    "[[kb:term kernel]] kernel\n\n## next\n[[kb:term launch the launch]] launch kernel",
    "!!! note \"kernel\"\n    kernel in the body",
    "ſtress STRESS stress KELVIN \u212aelvin kelvin s-curve S-CURVE a.b A.B c++ C++x",
    "program program\n# program\nprogram",
    "kernel",
    "",
    "L2 cache l2 CACHE L2キャッシュ L2 キャッシュ",
    "İkernel ıkernel kernelİ",
]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("chapter", ["", "ch04"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_tricky_cases_link_as_before(case, chapter, lang):
    try:
        new, old = _both(CASES[case], TRICKY, lang, chapter)
    except KeyError as exc:  # the old linker crashed where a form's "ſ" matched an "s" (its key was the text's)
        assert "s" in str(exc)
        new = T.link_terms(CASES[case], TRICKY, lang, chapter, _link)
        assert "<ss:" in new  # the new one links the form's term there
        return
    assert new == old


def test_tricky_cases_do_link():
    """The comparison above is not between two linkers that link nothing."""
    got = T.link_terms(CASES[0], TRICKY, "en", "", _link)
    assert got.startswith("<kernel:kernel> kernels KERNEL <kernel-launch:Kernel launch>"), got


def test_the_glossary_is_read_once_per_language_and_chapter():
    assert T.matcher(BOOK, "en", "ch01") is T.matcher(BOOK, "en", "ch01")
    assert T.matcher(BOOK, "en", "ch01") is not T.matcher(BOOK, "ja", "ch01")


def _generated(n: int, seed: int = 1) -> G.Glossary:
    """n made-up terms, many sharing their first letters and words with each other and the book's."""
    rng = random.Random(seed)
    words = "kernel launch memory cache thread block warp graph guard compile view copy fused".split()
    ja = "カーネル 起動 メモリ キャッシュ スレッド ブロック ワープ グラフ 融合 同期 ア イ ウ カ キ ク 計 算 量 型".split()
    seen_en, seen_ja, entries = set(), set(), []
    while len(entries) < n:
        en = " ".join(rng.choice(words) + rng.choice(["", "s", "x", "ing", "ed", "er"]) for _ in range(rng.randint(1, 4)))
        jp = "".join(rng.choice(ja) for _ in range(rng.randint(1, 4)))
        if T._key(en) in seen_en or jp in seen_ja:
            continue
        seen_en.add(T._key(en))
        seen_ja.add(jp)
        entries.append((f"t{len(entries)}", jp, en, {}, {}, {}))
    return _glossary(*entries)


def test_a_generated_glossary_links_as_before():
    glossary = _generated(600)
    for lang in LANGS:
        text = (ROOT / "docs" / lang / "ch01" / "index.md").read_text(encoding="utf-8")[:20000]
        new, old = _both(text, glossary, lang, "ch01")
        assert new == old
        assert new != text
