"""A page's Markdown as a notebook shows it: what Jupyter, Colab and GitHub read. Pure.

The site's Markdown has extensions a notebook does not: admonitions (``!!! note "Title"``
and an indented body) become a quotation headed by the title in bold, collapsible ones
(``???``) a ``<details>`` with the title as its ``<summary>``, content tabs (``=== "CUDA"``)
the tab's name in bold over its content; attribute lists (``{ #id }``, ``{: .class }``)
are dropped; ``markdown`` attributes on HTML go. Links are made absolute against the
page's published URL (``#first-call``, ``../ch02/index.md#copy-roof``), so they work from
Colab and GitHub. Fenced code is left exactly as written.
"""

from __future__ import annotations

import posixpath
import re
import textwrap

from ..prose.text import FENCE

_BOX = re.compile(r'^(?P<mark>!!!|\?\?\?\+?|===[!+]?)[ \t]+(?P<rest>[^\n]*?)[ \t]*$')
_TITLE = re.compile(r'^(?P<kind>[\w-]+(?:[ \t]+[\w-]+)*)?[ \t]*(?:"(?P<title>[^"\n]*)")?$')
_HEADING_ATTRS = re.compile(r"^(#{1,6}[ \t].*?)[ \t]*\{[ \t]*[#.:][^}\n]*\}[ \t]*$", re.MULTILINE)
_ATTR_LINE = re.compile(r"^[ \t]*\{:?[ \t]*[#.:][^}\n]*\}[ \t]*\n?", re.MULTILINE)
_ATTR_TAIL = re.compile(r"(?<=\S)[ \t]*\{:[^}\n]*\}[ \t]*$", re.MULTILINE)
_MARKDOWN_ATTR = re.compile(r"(<[A-Za-z][^<>]*?)\s+markdown(?:=\"[^\"]*\"|='[^']*'|=\S+)?(?=[\s/>])")
_INLINE_LINK = re.compile(r"(?P<head>!?\[(?:[^\]\\\n]|\\.)*\]\()(?P<url><[^>\n]*>|[^)\s]*)(?P<tail>(?:\s+\"[^\"\n]*\")?\))")
_REF_DEF = re.compile(r"^(?P<head>[ \t]*\[[^\]\n]+\]:[ \t]*)(?P<url>\S+)", re.MULTILINE)
_HTML_URL = re.compile(r"(?P<head>\b(?:href|src)=\")(?P<url>[^\"]*)(?P<tail>\")")
_SCHEME = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)


def jupyter_markdown(markdown: str, page_url: str) -> str:
    """``markdown`` (a page's, without front matter) as a notebook's Markdown; links absolute against ``page_url``.

    ``page_url`` is where the page is published (``https://…/en/ch01/``), or a relative
    URL that leads to it from where the notebook is shown (``../`` from ``ch01/notebook/``).
    """
    return _links(_boxes(markdown), page_url)


_LINK_TEXT = r'\[(?:[^\]\\\n*]|\\.)+\]\((?:[^)"\n]|"(?:[^"\\\n]|\\.)*")*\)'  # [words](url "title"): a title may hold ")"
_BOLD_EDGE_LINK = re.compile(r"(?P<mark>\*\*|__)(?:(?P<first>" + _LINK_TEXT + r")(?P<after>[^*_\n]*?)"
                             r"|(?P<before>[^*_\n\[]*?)(?P<last>" + _LINK_TEXT + r"))(?P=mark)")
_WORDS = re.compile(r"^\[(?P<words>.*?)\](?P<target>\(.*\))$", re.DOTALL)


def bold_inside_links(text: str) -> str:
    """A bold span that starts or ends with a link, written so CommonMark reads it: ``**[words](url)rest**`` as
    ``[**words**](url)**rest**`` (and ``**rest[words](url)**`` as ``**rest**[**words**](url)``): the same bold text.

    A term link at the edge of bold puts a ``**`` between the link's bracket and a letter: with no space around
    it, as between Japanese characters, CommonMark's flanking rule does not open or close the bold there and the
    notebook shows the asterisks. Inside the link text, and beside ``)`` towards a letter, it always does.
    """
    def bold(part: str, mark: str) -> str:
        return f"{mark}{part}{mark}" if part else ""

    def link(target: str, mark: str) -> str:
        found = _WORDS.match(target)
        return f"[{mark}{found.group('words')}{mark}]{found.group('target')}"

    def change(m: re.Match) -> str:
        mark, after, before = m.group("mark"), m.group("after") or "", m.group("before") or ""
        if after[:1].isspace() or before[-1:].isspace():
            return m.group(0)  # a space beside the link: the bold already opens and closes there
        if m.group("first") is not None:
            return link(m.group("first"), mark) + bold(after, mark)
        return bold(before, mark) + link(m.group("last"), mark)

    return _BOLD_EDGE_LINK.sub(change, text)


def _outside(pattern: re.Pattern[str], text: str, change) -> str:
    """``text`` with ``change`` applied to what lies between the matches of ``pattern``, which stay as written."""
    out, last = [], 0
    for kept in pattern.finditer(text):
        out += [change(text[last:kept.start()]), kept.group(0)]
        last = kept.end()
    return "".join(out + [change(text[last:])])


def _outside_code(markdown: str, change) -> str:
    return _outside(FENCE, markdown, change)


def _boxes(markdown: str) -> str:
    """Admonitions and tabs as plain Markdown, attribute lists dropped; code as written."""
    lines = markdown.split("\n")
    code = _code_lines(markdown)
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _BOX.match(lines[i]) if i not in code else None
        if m is None:
            out.append(lines[i])
            i += 1
            continue
        body, i = _indented(lines, i + 1)
        out += _box(m.group("mark"), m.group("rest"), _boxes("\n".join(body)))
    return _outside_code("\n".join(out), _drop_attributes)


def _code_lines(markdown: str) -> set[int]:
    """Indices of the lines inside fenced code blocks (the fences included)."""
    found: set[int] = set()
    for m in FENCE.finditer(markdown):
        first = markdown.count("\n", 0, m.start())
        found.update(range(first, first + m.group(0).count("\n") + 1))
    return found


def _indented(lines: list[str], i: int) -> tuple[list[str], int]:
    """The body below a box's first line: lines indented 4 spaces (blank lines between them), dedented."""
    body: list[str] = []
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith("    ") or lines[i].startswith("\t")):
        body.append(lines[i])
        i += 1
    while body and not body[-1].strip():  # trailing blank lines belong to what follows
        body.pop()
        i -= 1
    return textwrap.dedent("\n".join(body)).split("\n") if body else [], i


def _box(mark: str, rest: str, body: str) -> list[str]:
    m = _TITLE.match(rest)
    kind = (m.group("kind") or "").split()[0] if m and m.group("kind") else ""
    title = m.group("title") if m and m.group("title") is not None else kind.replace("-", " ").capitalize()
    if mark.startswith("==="):
        return [f"**{title}**", "", body] if title else [body]
    if mark.startswith("???"):
        opened = " open" if mark.endswith("+") else ""
        summary = f"<summary>{title}</summary>" if title else ""
        return [f"<details{opened}>{summary}", "", body, "", "</details>"]
    quoted = [f"> **{title}**", ">"] if title else []
    return quoted + [("> " + line) if line.strip() else ">" for line in body.split("\n")]


def _drop_attributes(text: str) -> str:
    text = _HEADING_ATTRS.sub(r"\1", text)
    text = _ATTR_LINE.sub("", text)
    text = _ATTR_TAIL.sub("", text)
    return _MARKDOWN_ATTR.sub(r"\1", text)


def _links(markdown: str, page_url: str) -> str:
    def inline(m: re.Match) -> str:
        url = m.group("url")
        bare = url.strip("<>")
        return m.group("head") + (absolute(bare, page_url) if bare else url) + m.group("tail")

    def change(text: str) -> str:
        text = _INLINE_LINK.sub(inline, text)
        text = _REF_DEF.sub(lambda m: m.group("head") + absolute(m.group("url").strip("<>"), page_url), text)
        return _HTML_URL.sub(lambda m: m.group("head") + absolute(m.group("url"), page_url) + m.group("tail"), text)

    return _outside_code(markdown, lambda text: _outside_inline_code(text, change))


_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)


def _outside_inline_code(text: str, change) -> str:
    return _outside(_CODE_SPAN, text, change)


def absolute(url: str, page_url: str) -> str:
    """``url`` as written on the page, made to work from anywhere: a ``.md`` path becomes its page's URL
    (``../ch02/index.md#x`` -> ``../ch02/#x``), then it is joined to ``page_url``. URLs with a scheme stay."""
    if not url or _SCHEME.match(url):
        return url
    path, hash_, anchor = url.partition("#")
    if path.endswith(".md"):
        stem = path[: -len(".md")]
        path = stem[: -len("index")] if stem == "index" or stem.endswith("/index") else stem + "/"
    if not path:
        return page_url + hash_ + anchor
    if _SCHEME.match(page_url):
        from urllib.parse import urljoin

        return urljoin(page_url, path) + hash_ + anchor
    joined = posixpath.normpath(posixpath.join(page_url or ".", path))
    return joined + ("/" if path.endswith("/") and not joined.endswith("/") else "") + hash_ + anchor
