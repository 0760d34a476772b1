"""Japanese typography for what the renderer inserts into a sentence. Pure.

A claim written ``…は [[kb:ratio …]] にとどまりました`` has a half-width space on each side,
as the author typed it beside a directive. Once the value is inserted the space is right
beside a digit or Latin text (「は 2.1 µs で」), but wrong between two Japanese characters
(「の 約 0.08 倍 にとどまりました」): Japanese puts no space there. :func:`join` drops exactly
those spaces, between an inserted value and its neighbour when both characters that meet are
Japanese. English pages are left as written.
"""

from __future__ import annotations

import html
import re

# kana, CJK ideographs and their extensions, CJK punctuation (、。「」), full-width forms
_JAPANESE = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
_TAG = re.compile(r"<[^>]*>")


def japanese(ch: str) -> bool:
    """Is ``ch`` (one character) Japanese: kana, a kanji, Japanese punctuation or a full-width form?"""
    return bool(ch) and bool(_JAPANESE.fullmatch(ch))


def _seen(fragment: str) -> str:
    """The text a reader sees of an HTML fragment: tags dropped, entities read."""
    return html.unescape(_TAG.sub("", fragment)).strip()


def join(page: str, inserted: list[str], marker: re.Pattern[str]) -> str:
    """``page`` with the ASCII space dropped between each ``marker`` (whose group 1 indexes
    ``inserted``) and a Japanese character beside it, when the inserted text's own edge on
    that side is Japanese too."""
    out, at = [], 0
    for m in marker.finditer(page):
        text = _seen(inserted[int(m.group(1))])
        start = m.start()
        if text and japanese(text[0]) and page[start - 1:start] == " " and japanese(page[start - 2:start - 1]):
            start -= 1  # "は ⟨予想…⟩" -> "は⟨予想…⟩"
        out.append(page[at:start] + m.group(0))
        at = m.end()
        if text and japanese(text[-1]) and page[at:at + 1] == " " and japanese(page[at + 1:at + 2]):
            at += 1  # "⟨約 0.08 倍⟩ に" -> "⟨…倍⟩に"
    return "".join(out) + page[at:]
