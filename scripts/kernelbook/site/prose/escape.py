"""Strings from captures, made inert wherever the site shows them. Pure.

A capture holds whatever a run printed or reported (device names, kernel names, output,
values in ``results``), and the site is published: none of it may become markup. HTML
escaping is not enough on these pages, because most of what a directive writes is read
again as Markdown (inline claims inside a sentence, a capture's panel inside CUDA/CPU
tabs), where ``[x](javascript:...)``, ``*...*``, backticks or attr_list's ``{: ...}``
would still turn into elements and attributes. So every character that HTML or Markdown
(or a common extension: critic, mark, caret, tilde, arithmatex, magiclink's mentions)
gives a meaning is written as a numeric character reference: Python-Markdown, CommonMark
(Jupyter) and mistune (nbconvert) all show it as the character itself and never parse it
again. Newlines too, so a value never starts a line (a heading, a list, a fence).

What stays as it is means nothing in the middle of a line, and keeps kernel names, device
names and versions readable in the HTML and in a notebook's Markdown source: letters,
digits, ``( ) , . - + / ; ? % :`` and ``_`` between two letters or digits (``clamp_min``:
no renderer takes an underscore inside a word for emphasis). ``:`` is left alone: only
extensions this book does not enable (emoji, magiclink's bare URLs) read it.
"""

from __future__ import annotations

import html
import re

from ...safety.errors import visible

_SPECIAL = "&<>\"'`*[]{}\\!#|~^=$@\n\r"
_TABLE = str.maketrans({c: f"&#{ord(c)};" for c in _SPECIAL})
_LOOSE_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")  # not between two letters or digits


def inert(text: object) -> str:
    """``text`` as characters only: safe as HTML text, in an attribute, and where Markdown reads it; its control
    and format characters (U+202E, escape sequences) written as escapes (``errors.visible``)."""
    return _LOOSE_UNDERSCORE.sub("&#95;", visible(str(text)).translate(_TABLE))


def html_text(text: object) -> str:
    """``text`` HTML-escaped, with ``[`` as ``&#91;``: prose the site writes (a page's title, a changed
    sentence, a claim as written) that is never read again as a directive on the page it is put in."""
    return html.escape(str(text)).replace("[", "&#91;")
