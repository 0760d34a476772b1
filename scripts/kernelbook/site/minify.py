"""What the site serves: the book's own stylesheet and script without comments and indentation,
and its pages without whitespace no reader sees (:func:`html`, kept by content: :func:`html_kept`).

``docs/assets/kernelbook.css`` and ``kernelbook.js`` stay commented and readable in the
repository; the copies written into the site lose what no browser reads (about a third of
their gzipped bytes). Deliberately conservative, so that it cannot change what they do:

- strings (and, in the script, regular expressions and template literals) are copied
  byte for byte; a comment is a comment only outside them;
- the stylesheet's whitespace is collapsed to one space, and dropped only around
  ``{ } ; ,`` (where CSS never needs it); a space before ``:`` or around ``>`` ``+`` stays;
- the script keeps every line break (no reliance on automatic semicolon insertion
  changing): only each line's indentation, trailing spaces and blank lines go.

Input these rules cannot read safely (an unterminated string or comment, a template
literal with a ``${}`` substitution) raises ValueError naming the place, rather than
being guessed at.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .caches import pages as page_cache

# after one of these (or at the start), a "/" begins a regular expression, not a division
_REGEX_AFTER_PUNCT = set("(,=:[!&|?{};+-*%<>~^")
_WORD = re.compile(r"[A-Za-z_$][\w$]*|\d[\w.]*")
_REGEX_AFTER_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "instanceof"}


def _string_end(text: str, start: int, where: str) -> int:
    """Index just past the string literal opening at ``start`` (its quote character)."""
    quote, i = text[start], start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == quote:
            return i + 1
        if ch == "\n" and quote != "`":
            break
        i += 1
    raise ValueError(f"{where}: unterminated string starting at offset {start}")


def _comment_end(text: str, start: int, where: str) -> int:
    end = text.find("*/", start + 2)
    if end < 0:
        raise ValueError(f"{where}: unterminated comment starting at offset {start}")
    return end + 2


def css(text: str, where: str = "stylesheet") -> str:
    """The stylesheet without comments and needless whitespace; strings untouched."""
    parts: list[str] = []  # alternating: code (to squeeze), string (kept)
    code, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            end = _string_end(text, i, where)
            parts.append(_squeeze_css("".join(code)))
            parts.append(text[i:end])
            code, i = [], end
        elif text.startswith("/*", i):
            code.append(" ")
            i = _comment_end(text, i, where)
        else:
            code.append(ch)
            i += 1
    parts.append(_squeeze_css("".join(code)))
    out = "".join(parts).strip()
    return out.replace(";}", "}")


def _squeeze_css(code: str) -> str:
    code = re.sub(r"\s+", " ", code)
    return re.sub(r" ?([{};,]) ?", r"\1", code)


def js(text: str, where: str = "script") -> str:
    """The script without comments, indentation, trailing spaces and blank lines; every line break kept."""
    out: list[str] = []
    last = ""  # the last significant code token: decides whether "/" opens a regular expression
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'`":
            end = _string_end(text, i, where)
            if "${" in text[i:end] or "\n" in text[i:end]:  # a substitution's own code, or a line whose indentation is content
                raise ValueError(f"{where}: string at offset {i} holds a line break or a ${{}} substitution: not minified safely")
            out.append(text[i:end])
            last, i = "a", end  # a value: a "/" after it divides
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif text.startswith("/*", i):
            end = _comment_end(text, i, where)
            out.append("\n" if "\n" in text[i:end] else " ")
            i = end
        elif ch == "/" and (last == "" or last in _REGEX_AFTER_PUNCT or last in _REGEX_AFTER_WORDS):
            end = _regex_end(text, i, where)
            out.append(text[i:end])
            last, i = "a", end
        else:
            word = _WORD.match(text, i)
            if word:
                out.append(word.group())
                last, i = word.group(), word.end()
                continue
            out.append(ch)
            if not ch.isspace():
                last = ch
            i += 1
    lines = (line.strip() for line in "".join(out).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"


def _regex_end(text: str, start: int, where: str) -> int:
    """Index just past the regular expression literal (and its flags) opening at ``start``."""
    i, in_class = start + 1, False
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "\n":
            break
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "/" and not in_class:
            i += 1
            while i < len(text) and (text[i].isalnum() or text[i] in "_$"):
                i += 1
            return i
        i += 1
    raise ValueError(f"{where}: unterminated regular expression starting at offset {start}")


# A comment, an element whose whitespace is its content (material sets pre-wrap on code and
# kbd; an SVG is left exactly as drawn), or a tag with a line break in a quoted attribute value
# (any other tag holds no line break that is not between its attributes, where one is as good as many).
_QUOTED = r"""(?:"[^"]*"|'[^']*')"""
_ATTRS = rf"""(?:[^"'>]|{_QUOTED})*"""
_BREAK_QUOTED = r"""(?:"[^"\n]*\n[^"]*"|'[^'\n]*\n[^']*')"""
_HTML_KEEP = re.compile(rf"<!--.*?-->|<(pre|code|kbd|textarea|script|style|svg)\b{_ATTRS}>.*?</\1\s*>"
                        rf"""|<[a-zA-Z][^"'>]*(?:{_QUOTED}[^"'>]*)*?{_BREAK_QUOTED}{_ATTRS}>""", re.S | re.I)
_LINE_BREAK_RUN = re.compile(r"[ \t\r\f]*\n[ \t\r\n\f]*")  # ASCII whitespace only: never a no-break or ideographic space


def html(text: str) -> str:
    """A page with each run of whitespace that holds a line break, between tags or in text, made one line break.

    Where white-space is normal or nowrap (everywhere outside the elements kept whole),
    spaces around a line break and consecutive line breaks collapse to the one line break
    anyway (CSS Text 3, 4.1.1-4.1.2): the page renders the same, the DOM holds less.
    """
    out, at = [], 0
    for kept in _HTML_KEEP.finditer(text):
        out.append(_LINE_BREAK_RUN.sub("\n", text[at:kept.start()]))
        out.append(kept.group())
        at = kept.end()
    out.append(_LINE_BREAK_RUN.sub("\n", text[at:]))
    return "".join(out)


_RULES = Path(__file__).read_bytes()  # a change of these rules is a change of every page served


def html_kept(text: str, folder: Path) -> str:
    """:func:`html` of ``text``, kept on disk in ``folder`` by the hash of the page and of these rules.

    A warm build serves most pages unchanged; a big one (a glossary of thousands of terms)
    costs a hash and a read instead of the regular expressions' pass over every tag.
    """
    digest = hashlib.sha256(_RULES + b"\0" + text.encode("utf-8")).hexdigest()
    return page_cache.kept_text(folder, digest, ".html", lambda: html(text))


def asset(name: str, text: str) -> str:
    """``text`` as the site serves the asset ``name``: minified by its extension, else as it is."""
    if name.endswith(".css"):
        return css(text, name)
    if name.endswith(".js"):
        return js(text, name)
    return text


def minify_files(files, names) -> None:
    """Give each of ``files`` (MkDocs ``File``s) whose ``src_uri`` is in ``names`` its served, minified text.

    A name that is a URL, or not a file of the build, is left alone.
    """
    for file in files:
        if file.src_uri in names and file.abs_src_path:
            file.content_string = asset(file.src_uri, file.content_string)
