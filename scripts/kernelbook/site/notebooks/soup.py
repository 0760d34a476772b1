"""What nbconvert's HTML exporter does with BeautifulSoup, done without building a tree.

After rendering a notebook, ``HTMLExporter.from_notebook_node`` (nbconvert 7) parses the
whole page with BeautifulSoup only to add three kinds of attribute: ``alt`` on pictures
that have none, ``tabindex="0"`` on each cell's input and output. The page holds
JupyterLab's stylesheet and every highlighted token as an element, so building that tree,
matching the selectors and writing the tree back out is half of a notebook's conversion
(about 0.3 s of 0.55 s a page on the 2-core machine).

:class:`MarkedHTML` stands in for ``BeautifulSoup`` there (:func:`in_nbconvert`): one pass of
Python's ``html.parser`` (the tokenizer BeautifulSoup's ``html.parser`` builder uses) finds
the elements the selectors name, and the new attributes are written into the page's own
text, which is otherwise left as nbconvert rendered it. Parsed again, the result is the
tree BeautifulSoup would have written (``tests/test_notebook_soup.py`` checks it on every
notebook of the book). Anything else (another selector, an attribute that would change
rather than be added) raises :class:`Unforeseen`, and the caller converts the notebook
again with BeautifulSoup itself.

Most of a notebook page's tags are Pygments' spans inside ``<pre>`` (a tag per token): none of
them is an element nbconvert selects, and balanced they change no other element's parent. Each
``<pre>`` holding nothing but such spans and text is scanned as blank text of the same length
(:func:`without_code_spans`: the same offsets, a fraction of the parser's callbacks; where the
parser does not take such a ``<pre>`` for an element, the page is scanned whole); a selector
that could name one of those spans is refused (:class:`Unforeseen`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser


class Unforeseen(Exception):
    """nbconvert asked for something this stand-in does not do the way BeautifulSoup would."""


# Elements with no end tag, as BeautifulSoup's html.parser builder knows them (bs4.builder.HTMLTreeBuilder).
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "menuitem", "meta",
                  "param", "source", "track", "wbr", "basefont", "bgsound", "command", "frame", "image", "isindex",
                  "nextid", "spacer"})
# The selectors nbconvert uses: "img:not([alt])" and ".ancestor-class tag.class".
_WITHOUT = re.compile(r"(?P<tag>[a-z][a-z0-9]*):not\(\[(?P<attr>[a-z][a-z0-9-]*)\]\)")
_INSIDE = re.compile(r"\.(?P<outer>[A-Za-z_][\w-]*) (?P<tag>[a-z][a-z0-9]*)\.(?P<cls>[A-Za-z_][\w-]*)")
_PLAIN_VALUE = re.compile(r"[\w .,:;!?()/-]*")  # written between double quotes as it is, as BeautifulSoup would
# A <pre>'s body, and one of nothing but text and Pygments' spans (``<span class="...">``, ``<span>``, ``</span>``).
_PRE = re.compile(r"(<pre\b[^<>]*>)(.*?)</pre>", re.S)
_CODE_ONLY = re.compile(r'(?:[^<>]+|<span(?: class="[^"<>]*")?>|</span>)*')  # no ">": no "-->" or "]]>" blanked
_SPAN_TAG = re.compile(r"<(/?)span\b")
_LEFT_OUT = "span"  # the only tag :func:`without_code_spans` blanks


@dataclass
class Element:
    """A start tag of the page: where its text is, and its attributes (whoever selected it may set them)."""

    tag: str
    start: int  # offset of "<" in the page
    end: int  # offset just past its ">"
    parent: int | None  # index of the enclosing element, None at the top
    attrs: dict[str, str | None]
    given: dict[str, str | None] | None = None  # its attributes as the page wrote them, once selected

    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()


class _Scan(HTMLParser):
    """Every start tag of a page with its parent, as BeautifulSoup's html.parser builder nests them."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[int] = []
        self._lines = [0] + [m.end() for m in re.finditer("\n", text)]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line, column = self.getpos()
        start = self._lines[line - 1] + column
        text = self.get_starttag_text() or ""
        parent = self._open[-1] if self._open else None
        self.elements.append(Element(tag, start, start + len(text), parent, dict(attrs)))
        if tag not in VOID:
            self._open.append(len(self.elements) - 1)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        opened = len(self._open)
        self.handle_starttag(tag, attrs)
        del self._open[opened:]  # "<div/>": BeautifulSoup closes it at once

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._open) - 1, -1, -1):  # closes up to the innermost open element of that name
            if self.elements[self._open[depth]].tag == tag:
                del self._open[depth:]
                return  # an end tag nothing opened is dropped, as BeautifulSoup drops it


class MarkedHTML:
    """``BeautifulSoup(html, features="html.parser")`` for nbconvert's post-pass: ``select``, then ``str``."""

    def __init__(self, markup: str, features: str | None = None) -> None:
        if features not in (None, "html.parser") or not isinstance(markup, str):
            raise Unforeseen(f"a parse with features={features!r} of {type(markup).__name__}")
        self.markup = markup
        scanned, blanked = without_code_spans(markup)
        self.elements = _scanned(scanned)
        pres = {e.start for e in self.elements if e.tag == "pre"}
        if not set(blanked) <= pres:  # a "<pre" the parser did not take for one (in a comment, a script): all of it scanned
            self.elements, blanked = _scanned(markup), []
        self.blanked = bool(blanked)
        self.selected: list[Element] = []

    def select(self, selector: str) -> list[Element]:
        m = _WITHOUT.fullmatch(selector) or _INSIDE.fullmatch(selector)
        if m is not None and self.blanked and m["tag"] == _LEFT_OUT:
            raise Unforeseen(f"the selector {selector!r}, which may name a span of highlighted code (not scanned)")
        if m := _WITHOUT.fullmatch(selector):
            found = [e for e in self.elements if e.tag == m["tag"] and m["attr"] not in e.attrs]
        elif m := _INSIDE.fullmatch(selector):
            found = [e for e in self.elements if e.tag == m["tag"] and m["cls"] in e.classes() and self._within(e, m["outer"])]
        else:
            raise Unforeseen(f"the selector {selector!r}")
        for element in found:
            if element.given is None:
                element.given = dict(element.attrs)
                self.selected.append(element)
        return found

    def _within(self, element: Element, cls: str) -> bool:
        index = element.parent
        while index is not None:
            if cls in self.elements[index].classes():
                return True
            index = self.elements[index].parent
        return False

    def __str__(self) -> str:
        out, done = [], 0
        for element in sorted(self.selected, key=lambda e: e.start):  # only they can have changed
            added = added_attributes(element)
            if added:
                at = _insertion_point(self.markup, element)
                out += [self.markup[done:at], added]
                done = at
        out.append(self.markup[done:])
        return "".join(out)


def without_code_spans(markup: str) -> tuple[str, list[int]]:
    """``markup`` with the body of each ``<pre>`` that holds only text and balanced ``<span class="...">``
    tags blanked (every character but a line break a space: the same length and lines), and where
    those ``<pre>`` start."""
    starts: list[int] = []

    def blank(pre: re.Match[str]) -> str:
        body = pre.group(2)
        if "<" not in body or not _CODE_ONLY.fullmatch(body) or not _balanced(body):
            return pre.group()
        starts.append(pre.start())
        return pre.group(1) + re.sub(r"[^\n]", " ", body) + "</pre>"

    return (_PRE.sub(blank, markup) if "<pre" in markup else markup), starts


def _scanned(text: str) -> list[Element]:
    scan = _Scan(text)
    scan.feed(text)
    scan.close()
    return scan.elements


def _balanced(body: str) -> bool:
    """Each ``</span>`` closes a span opened in ``body``, and each opened one is closed there."""
    depth = 0
    for m in _SPAN_TAG.finditer(body):
        depth += -1 if m.group(1) else 1
        if depth < 0:
            return False
    return depth == 0


def added_attributes(element: Element) -> str:
    """The attributes the selectors' callers added, as BeautifulSoup writes them (`` name="value"``)."""
    if element.given is None:
        return ""
    if any(element.attrs.get(name) != value for name, value in element.given.items()) or \
            list(element.attrs)[:len(element.given)] != list(element.given):
        raise Unforeseen(f"an attribute of <{element.tag}> changed or was removed")
    new = [(name, value) for name, value in element.attrs.items() if name not in element.given]
    for name, value in new:
        if not isinstance(value, str) or not _PLAIN_VALUE.fullmatch(value) or not re.fullmatch(r"[a-z][a-z0-9-]*", name):
            raise Unforeseen(f"the attribute {name}={value!r}")
    return "".join(f' {name}="{value}"' for name, value in new)


def _insertion_point(markup: str, element: Element) -> int:
    """Just before the ``>`` (or ``/>``) that ends the element's start tag."""
    end = element.end - 1
    if markup[end] != ">":
        raise Unforeseen(f"a start tag of <{element.tag}> that does not end in '>'")
    if markup[end - 1] == "/":
        if markup[end - 2] not in " \t\n\"'":
            raise Unforeseen(f"<{element.tag} .../> whose '/' may belong to an unquoted value")
        end -= 1
        while markup[end - 1] in " \t\n":  # <img src="z" />: the attribute after "z"
            end -= 1
    return end


@contextlib.contextmanager
def in_nbconvert() -> Iterator[bool]:
    """While inside, nbconvert's HTML exporter uses :class:`MarkedHTML` for BeautifulSoup.

    Yields False (and changes nothing) when nbconvert's exporter has no ``BeautifulSoup`` to
    stand in for: another nbconvert, converted as it converts.
    """
    try:
        from nbconvert.exporters import html
    except ImportError:
        yield False
        return
    real = getattr(html, "BeautifulSoup", None)
    if real is None:
        yield False
        return
    html.BeautifulSoup = MarkedHTML
    try:
        yield True
    finally:
        html.BeautifulSoup = real
