"""Glossary terms on a page: the first use of each term in each section links to its entry. Pure.

Rules, the same on the site and in the notebooks:

* A section runs from one heading to the next (the text above the first heading is one too).
  In each, the first use of a term links to the glossary page in the page's language, at the
  term's anchor, with its definition as the link's title (the site shows it as a tooltip);
  later uses in that section stay plain.
* Never inside code (fenced or inline), a heading, an admonition's title, a link or any
  raw HTML element's tag, ``<a>``, ``<code>``, ``<pre>``, ``<svg>``, ``<figure>`` ... , an
  attribute list, a URL, or a directive (``[[kb:...]]`` with its indented body): what a
  directive renders (kernel tables, figures, questions) is never linked.
* A term is found by its forms in the page's language (``glossary.Words.forms``), longest
  first, so a term inside a longer term is that longer term (``非同期``, not ``同期``). English
  forms match whole words (a hyphenated word is one word; ``torch.profiler`` is not
  ``profiler``), any case. Japanese has no spaces, so a form matches inside a longer word,
  except where the form starts or ends with katakana and the text goes on in katakana
  (``ビュー`` is not in ``レビュー``), and except inside the words its ``avoid`` list names
  (``起動`` in ``起動直後``, the start of a process). ``カーネル`` in ``カーネル名`` links.
* A term whose ``auto`` names chapters links by itself only on those chapters' pages
  (Triton's ``program`` is not chapter 1's "program"); anywhere, ``[[kb:term ID]]`` (or
  ``[[kb:term ID the words shown]]``) links it explicitly, and takes the section's link.
"""

from __future__ import annotations

import _sre
import bisect
import functools
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from re._casefix import _EXTRA_CASES

from ..directives import REGISTRY
from ..directives.registry import LEFTOVER
from .terms import Glossary, Link, Term, notebook_link, page_link  # noqa: F401 - the link writers, re-exported
from ..prose.markdown_code import fences, in_fences, within
from ..prose.sections import page_url

HEADING_LINE = re.compile(r"^#{1,6}[ \t][^\n]*$", re.MULTILINE)
# Where no term is linked, besides fenced code and directives.
_PROTECTED = [
    HEADING_LINE,
    re.compile(r"^[ \t]*(?:!!!|\?\?\?\+?|===[!+]?)[ \t][^\n]*$", re.MULTILINE),  # admonition and tab titles
    re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL),  # inline code
    re.compile(r"<!--.*?-->", re.DOTALL),
    re.compile(r"<(a|code|pre|kbd|samp|script|style|svg|figure|button|abbr|textarea)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE),
    re.compile(r"</?[A-Za-z][^<>]*>"),  # any other tag (its text between tags is prose)
    re.compile(r"!?\[(?:[^\]\\\n]|\\.)*\]\([^)\n]*\)"),  # [text](url), ![alt](src)
    re.compile(r"!?\[(?:[^\]\\\n]|\\.)*\]\[[^\]\n]*\]"),  # [text][ref]
    re.compile(r"^[ \t]*\[[^\]\n]+\]:[^\n]*$", re.MULTILINE),  # [ref]: url
    re.compile(r"^\*\[[^\]\n]+\]:[^\n]*$", re.MULTILINE),  # *[abbr]: ...
    re.compile(r"\{[ \t]*[:#.][^}\n]*\}"),  # attribute lists
    re.compile(r"<?https?://[^\s<>)\]]+>?"),
]
_KATAKANA = "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_ASCII_WORD = re.compile(r"[A-Za-z0-9_]")


def protected(markdown: str) -> list[tuple[int, int]]:
    """The spans of ``markdown`` where no term may be linked, sorted and merged."""
    spans = fences(markdown)
    patterns = [REGISTRY.block_pattern(), REGISTRY.inline_pattern(), LEFTOVER, *_PROTECTED]
    for pattern in patterns:
        spans += [(m.start(), m.end()) for m in pattern.finditer(markdown)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _inside(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) touches a span."""
    i = bisect.bisect_right(spans, (start, float("inf"))) - 1
    if i >= 0 and spans[i][1] > start:
        return True
    return i + 1 < len(spans) and spans[i + 1][0] < end


def _before(head: str) -> str:
    """What a form starting with ``head`` requires before it."""
    if _ASCII_WORD.match(head):
        return r"(?<![\w.\-])"  # a whole word; "torch.profiler" is not "profiler"
    if re.match(f"[{_KATAKANA}]", head):
        return f"(?<![{_KATAKANA}])"
    return ""


def _form_pattern(form: str) -> str:
    body = _before(form[0]) + r"\s+".join(re.escape(part) for part in form.split())
    tail = form[-1]
    if _ASCII_WORD.match(tail):
        body += r"(?![\w\-/]|\.\w)"  # "FLOP/s" is not "FLOP"; a full stop ends a sentence, not a name
    elif re.match(f"[{_KATAKANA}]", tail):
        body += f"(?![{_KATAKANA}])"
    return body


def _key(words: str) -> str:
    return " ".join(words.lower().split())


@functools.cache
def _fold(char: str) -> str:
    """One representative of the characters a case-insensitive ``re`` pattern takes for ``char``
    (``re``'s own lower-casing and its extra cases: ``s`` and ``ſ``, ``k`` and the Kelvin sign)."""
    low = _sre.unicode_tolower(ord(char))
    return chr(min((low, *_EXTRA_CASES.get(low, ()))))


_SPACE = " "  # the trie's edge for a run of whitespace (a form's words are joined by \s+)
_END = ""  # the trie's key for the forms that end at a node


@dataclass(frozen=True)
class Matcher:
    """Every form that links itself on a page of one chapter, found in one pass over a page.

    The forms in the order the single alternation of them would try them (longest first),
    a trie of their case-folded characters, and a pattern for the positions where a form can
    start. At each such position the trie names the few forms that may match there, and the
    first of them (in that order) whose own pattern matches is the match: what the
    alternation would find, at a cost that does not grow with the number of terms.
    """

    forms: tuple[str, ...]
    owner: dict[str, Term]  # form (lower-case, single spaces) -> its term
    starts: re.Pattern[str]
    trie: dict
    patterns: dict[int, re.Pattern[str]] = field(default_factory=dict)  # compiled when first needed

    def finditer(self, text: str) -> Iterator[tuple[int, int, Term]]:
        """``(start, end, term)`` of each match, left to right, as ``re.finditer`` over the alternation."""
        at = 0
        while True:
            found = self.starts.search(text, at)
            if found is None:
                return
            start = found.start()
            match = self._at(text, start)
            if match is None:
                at = start + 1
                continue
            yield start, match[0], match[1]
            at = match[0]

    def _at(self, text: str, start: int) -> tuple[int, Term] | None:
        node, i, candidates = self.trie, start, []
        while node is not None:
            candidates += node.get(_END, ())
            if i >= len(text):
                break
            char = text[i]
            if char.isspace():
                node = node.get(_SPACE)
                while i < len(text) and text[i].isspace():
                    i += 1
            else:
                node = node.get(_fold(char))
                i += 1
        for index in sorted(candidates):
            pattern = self.patterns.get(index)
            if pattern is None:
                pattern = self.patterns[index] = re.compile(_form_pattern(self.forms[index]), re.IGNORECASE)
            m = pattern.match(text, start)
            if m is not None:
                return m.end(), self.owner[_key(self.forms[index])]
        return None


def _trie(forms: tuple[str, ...]) -> dict:
    root: dict = {}
    for index, form in enumerate(forms):
        node = root
        for n, word in enumerate(form.split()):
            if n:
                node = node.setdefault(_SPACE, {})
            for char in word:
                node = node.setdefault(_fold(char), {})
        node.setdefault(_END, []).append(index)
    return root


def _starts(forms: tuple[str, ...]) -> re.Pattern[str]:
    """Where a form can start: its first character, after what its own pattern requires before it."""
    groups: dict[str, set[str]] = {}
    for form in forms:
        groups.setdefault(_before(form[0]), set()).add(form[0])
    if not groups:
        return re.compile(r"(?!)")
    return re.compile("|".join(before + "[" + "".join(re.escape(c) for c in sorted(chars)) + "]"
                               for before, chars in groups.items()), re.IGNORECASE)


def matcher(glossary: Glossary, lang: str, chapter: str, *, every: bool = False) -> Matcher:
    """The forms of every term that links itself on a page of ``chapter`` (``every``: all terms),
    made once per glossary, language and set of terms (chapters that link the same terms share one)."""
    cache = _MATCHERS.get(id(glossary))
    if cache is None or cache[0] is not glossary:
        cache = _MATCHERS[id(glossary)] = (glossary, {})
        while len(_MATCHERS) > 4:  # the glossaries of the last few builds
            del _MATCHERS[next(iter(_MATCHERS))]
    made = cache[1].get((lang, chapter, every))
    if made is None:
        terms = tuple(i for i, term in enumerate(glossary.terms) if every or term.links_itself_on(chapter))
        made = cache[1].get((lang, terms))
        if made is None:
            made = cache[1][(lang, terms)] = _matcher([glossary.terms[i] for i in terms], lang)
        cache[1][(lang, chapter, every)] = made
    return made


_MATCHERS: dict[int, tuple[Glossary, dict]] = {}


def _matcher(terms: list[Term], lang: str) -> Matcher:
    owner: dict[str, Term] = {}
    written: dict[str, str] = {}
    for term in terms:
        for form in term.words[lang].forms:
            if _key(form) not in owner:
                owner[_key(form)], written[_key(form)] = term, form
    forms = tuple(sorted(written.values(), key=len, reverse=True))  # the alternation's order: longest first
    return Matcher(forms, owner, _starts(forms), _trie(forms))


def _avoided(text: str, start: int, end: int, avoid: tuple[str, ...]) -> bool:
    """Whether the match [start, end) is part of one of the longer words ``avoid`` names."""
    found = text[start:end].lower()
    for word in avoid:
        lowered = word.lower()
        at = lowered.find(found)
        while at >= 0:
            if text[start - at:start - at + len(word)].lower() == lowered:
                return True
            at = lowered.find(found, at + 1)
    return False


def link_terms(markdown: str, glossary: Glossary, lang: str, chapter: str, link: Link) -> str:
    """``markdown`` with the first use of each term in each section linked by ``link`` (see the module's rules).

    ``chapter`` is the page's chapter folder ("ch01"; "" for a page outside the chapters).
    A text linked before with the same glossary and link writer is answered from memory:
    a ``mkdocs serve`` rebuild after an edit of one page links every page and notebook again.
    """
    cells = tuple(c.cell_contents for c in getattr(link, "__closure__", None) or ())
    key = (markdown, id(glossary), lang, chapter, getattr(link, "__code__", None), cells)
    try:
        held = _LINKED.get(key)
    except TypeError:  # a link writer holding something unhashable: linked afresh
        return _link_terms(markdown, glossary, lang, chapter, link)
    if held is not None and held[0] is glossary and key[4] is not None:
        return held[1]
    linked = _link_terms(markdown, glossary, lang, chapter, link)
    if len(_LINKED) >= 1024:  # a few builds' pages and notebook cells
        _LINKED.clear()
    _LINKED[key] = (glossary, linked)  # the glossary kept with it: no other object takes its id meanwhile
    return linked


_LINKED: dict[tuple, tuple[Glossary, str]] = {}


def _link_terms(markdown: str, glossary: Glossary, lang: str, chapter: str, link: Link) -> str:
    spans = protected(markdown)
    in_fence = in_fences(markdown)
    heads = [m.start() for m in HEADING_LINE.finditer(markdown) if not in_fence(m.start())]
    used: dict[int, set[str]] = {}
    for term_id, offset in explicit(markdown):  # an explicit link takes its section's link
        used.setdefault(bisect.bisect_right(heads, offset), set()).add(term_id)
    out, last = [], 0
    for start, end, term in matcher(glossary, lang, chapter).finditer(markdown):
        if _inside(spans, start, end):
            continue
        if _avoided(markdown, start, end, term.words[lang].avoid):
            continue
        section = used.setdefault(bisect.bisect_right(heads, start), set())
        if term.id in section:
            continue
        section.add(term.id)
        out += [markdown[last:start], link(term, markdown[start:end])]
        last = end
    return "".join(out) + markdown[last:]


def explicit(markdown: str) -> list[tuple[str, int]]:
    """``(id, offset)`` of each ``[[kb:term ID ...]]`` outside code."""
    in_fence = in_fences(markdown)
    found = []
    for m in REGISTRY.inline_pattern().finditer(markdown):
        if m.group("name") == "term" and not in_fence(m.start()):
            found.append((m.group("arg").split()[0] if m.group("arg").split() else "", m.start()))
    return found


# ---------------------------------------------------------------- links to the glossary written by hand

_MD_LINK = re.compile(r"!?\[(?P<text>(?:[^\]\\\n]|\\.)*)\]\((?P<url><[^>\n]*>|[^)\s]*)(?:\s+\"[^\"\n]*\")?\)")
_HTML_LINK = re.compile(r"<a\b[^>]*\bhref=\"(?P<url>[^\"]*)\"[^>]*>(?P<text>.*?)</a>", re.IGNORECASE | re.DOTALL)


def unknown_terms(markdown: str, glossary: Glossary, page: str, glossary_page: str) -> list[tuple[str, str]]:
    """``(link as written, id)`` for each link to the glossary page whose anchor is no term of it.

    ``page`` and ``glossary_page`` are paths relative to the language's folder
    (``ch01/index.md``, ``glossary.md``); links are read as MkDocs resolves them, to the
    ``.md`` file or to its directory URL (``../glossary/#kernel``).
    """
    in_code = within(fences(markdown) + [(m.start(), m.end()) for m in _PROTECTED[2].finditer(markdown)])
    known = set(glossary.ids) | {t.chapter for t in glossary.terms}
    found = []
    for pattern in (_MD_LINK, _HTML_LINK):
        for m in pattern.finditer(markdown):
            if in_code(m.start()):
                continue
            url = m.group("url").strip("<>")
            path, _, anchor = url.partition("#")
            if not path or re.match(r"^[a-z][a-z0-9+.-]*:", path, re.IGNORECASE) or not anchor:
                continue
            if _lands_on(path, page, glossary_page) and anchor not in known:
                found.append((m.group(0), anchor))
    return found


def _lands_on(path: str, page: str, glossary_page: str) -> bool:
    """Whether a link ``path`` written on ``page`` leads to ``glossary_page``."""
    stem = glossary_page[: -len(".md")]
    if path.endswith(".md"):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        return target in (glossary_page, stem + "/index.md")
    return posixpath.normpath(posixpath.join(page_url(page) or ".", path)) == stem
