"""English phrases inside Japanese prose, marked ``lang="en"`` for screen readers. Pure.

A Japanese voice reads a run of English words (「eager mode の PyTorch」, 「CUDA C++
Programming Guide の表」) with Japanese sounds, or letter by letter; marked as English, a
screen reader switches to an English voice for it (WCAG 2.2, 3.1.2 Language of Parts).

What is marked: a run of two or more Latin-script words in the page's text, as
``<span lang="en">…</span>``. A single word is left as it is: WCAG excepts proper names and
technical terms (GPU, PyTorch, Triton, eager), and a voice that changed for every one of them
would be harder to follow, not easier. Left alone too: code (``pre``, ``code``, ``kbd``,
``samp``), what is not prose (``script``, ``style``, ``textarea``, drawings in ``svg`` and
``math``, whose text says its language on its own element), comments, attributes, anything
inside an element that already says its language, and the hidden text material's copy
button copies (``.clipboard-copy-txt``).
"""

from __future__ import annotations

import re

MARKED_IN = frozenset({"ja"})  # the pages' languages whose prose is marked: written in another script than English

# Elements whose text is not prose to mark: their whole content is copied as it is.
SKIPPED = frozenset({"pre", "code", "kbd", "samp", "script", "style", "textarea", "svg", "math", "template"})
# Of those, the ones whose content is raw text (a "<" there is no tag): skipped to their end tag at once.
_RAW_TEXT = frozenset({"script", "style", "textarea"})
_HIDDEN_COPY = re.compile(r"""\bclass\s*=\s*["'][^"']*\bclipboard-copy-txt\b""", re.I)
_HAS_LANG = re.compile(r"""\slang\s*=""", re.I)

# A tag (attribute values may hold ">"), a comment, or a doctype/processing instruction.
_QUOTED = r"""(?:"[^"]*"|'[^']*')"""
_MARKUP = re.compile(rf"""<!--.*?-->|<[!?][^>]*>|</?([a-zA-Z][a-zA-Z0-9-]*)(?:[^"'>]|{_QUOTED})*>""", re.S)
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
_TAG_START = re.compile(r"<[A-Za-z/!?]")  # in text between tags: something the tag pattern could not read

# A Latin token: letters and digits, with inner _ ' ’ . - + / ("don't", "C++", "2.13.0+cpu"),
# never ending in "." or "-" (a sentence's full stop stays outside). Words are tokens holding a letter.
_TOKEN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_'’.+\-/]*[A-Za-z0-9+])?")
# Not inside a token: after a letter, digit or inner mark, or after a quote that follows one ("don't").
_RUN = re.compile(rf"(?<![A-Za-z0-9_.+\-/])(?<![A-Za-z0-9]['’]){_TOKEN.pattern}(?:[ \u00a0]+{_TOKEN.pattern})+(?![A-Za-z0-9_])")
# An entity: a no-break space reads as a space between two words; any other breaks a run.
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_SPACES = frozenset({"&nbsp;", "&#160;", "&#xa0;", "&#xA0;", "&#Xa0;", "&#XA0;"})
_LETTER = re.compile(r"[A-Za-z]")
OPEN = '<span lang="en">'
CLOSE = "</span>"


def _masked(text: str) -> str:
    """``text`` with each entity replaced, length for length, by spaces (a no-break space) or by
    a character no run holds (any other): offsets in it are offsets in ``text``."""
    return _ENTITY.sub(lambda m: " " * len(m.group()) if m.group() in _SPACES else "\x00" * len(m.group()), text)


def english_runs(text: str) -> list[tuple[int, int]]:
    """Where ``text`` (plain text, or HTML text between tags) holds a run of two or more Latin
    words: (start, end) of each run, trimmed to start and end on a word."""
    runs = []
    for m in _RUN.finditer(_masked(text)):
        words = [t for t in _TOKEN.finditer(m.group()) if _LETTER.search(t.group())]
        if len(words) >= 2:
            runs.append((m.start() + words[0].start(), m.start() + words[-1].end()))
    return runs


def _mark_text(text: str) -> str:
    if " " not in text and "\u00a0" not in text and "&" not in text:  # no two words without a space between them
        return text
    if _TAG_START.search(text):  # a tag the pattern could not read (an unquoted value with a quote in it): never a span in it
        return text
    out, at = [], 0
    for start, end in english_runs(text):
        out += [text[at:start], OPEN, text[start:end], CLOSE]
        at = end
    out.append(text[at:])
    return "".join(out)


def mark_english(html: str) -> str:
    """``html`` (a page's content) with every run of two or more English words in its text marked
    ``<span lang="en">``; everything else byte for byte as it was."""
    out: list[str] = []
    at = 0
    skipping: str | None = None  # the element whose content is copied as it is (appended when it ends)
    depth = 0  # how many of ``skipping`` are open
    found = _MARKUP.finditer(html)
    while (m := next(found, None)) is not None:
        tag, name = m.group(), m.group(1)
        if skipping:  # only its own name's tags count (a comment has no name)
            if name is not None and len(name) == len(skipping) and name.lower() == skipping and not tag.endswith("/>"):
                depth += -1 if tag.startswith("</") else 1
                if not depth:
                    out.append(html[at:m.end()])
                    at, skipping = m.end(), None
            continue
        if m.start() > at:
            out.append(_mark_text(html[at:m.start()]))
        out.append(tag)
        at = m.end()
        if name is None or tag.startswith("</") or tag.endswith("/>"):
            continue  # a comment or a doctype, an end tag, a self-closed element
        name = name.lower()
        if name in _VOID:
            continue
        if name in _RAW_TEXT:  # copied to its end tag as it is, whatever it holds
            end = re.compile(rf"</{name}\s*>", re.I).search(html, at)
            stop = end.end() if end else len(html)
            out.append(html[at:stop])
            at = stop
            found = _MARKUP.finditer(html, at)  # the next tag is searched for from its end
        elif name in SKIPPED or _HAS_LANG.search(tag) or _HIDDEN_COPY.search(tag):
            skipping, depth = name, 1
    out.append(html[at:] if skipping else _mark_text(html[at:]))
    return "".join(out)


def marked(html: str, lang: str) -> str:
    """A page's content in ``lang``: its English phrases marked where the language is one of :data:`MARKED_IN`."""
    return mark_english(html) if lang in MARKED_IN else html


_MARKED = re.compile(re.escape(OPEN) + r"([^<]*)" + re.escape(CLOSE))


def unmark(html: str) -> str:
    """``html`` without the marks of English phrases (:func:`mark_english`'s, or an author's own
    ``<span lang="en">`` around text): for what reads a page's text as written (a leftover directive,
    a capture's string as the page shows it)."""
    return _MARKED.sub(r"\1", html) if OPEN in html else html
