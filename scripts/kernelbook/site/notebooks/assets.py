"""A notebook page's stylesheet and pictures as files of the site, not inline on every page. Pure but ``write``.

mkdocs-jupyter writes the whole of JupyterLab's stylesheet (about 590 KB, most of it the
Blueprint widgets' rules, ``.bp3-*``) into every notebook page as ``<style>`` elements, and
nbconvert keeps a Markdown cell's pictures as ``data:`` URIs (base64, a third larger than
the picture). Read on a phone, and parsed by the search plugin on every build, that is most
of the page. So when a notebook page is converted (``notebook_cache``):

* its ``<style>`` elements become one stylesheet, in their order, with the rules no element
  of the page can match left out (a rule is left out only when every selector of it needs a
  class of JupyterLab's own, ``jp-``, ``bp3-``, ``lm-`` ..., that the page's HTML never
  uses: those classes are set by JupyterLab's code, which the page does not run; or puts the
  document's root inside an element: ``.jupyter-wrapper :root``), linked where the first
  ``<style>`` was;
* each ``<img src="data:image/...;base64,...">`` becomes a file, its ``src`` that file.

Files are named by their content (``assets/kernelbook/notebook/<sha256>.css``), so pages
that share a stylesheet share one file, and a reader's browser caches it. The page's HTML
holds :data:`BASE` where the path up to the site's root goes; ``at_page`` replaces it.
The .ipynb files are untouched: Colab and Jupyter still get their pictures inline.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
from pathlib import Path

FOLDER = "assets/kernelbook/notebook"
BASE = "kb-notebook-site-root:/"  # stands for the path from the page to the site's root
# Classes that only JupyterLab's (or its widgets') code sets: a selector needing one the page
# does not hold matches nothing on a page rendered by nbconvert and never scripted.
_JUPYTER_CLASS = re.compile(r"(?:bp3-|jp-|lm-|p-|cm-|CodeMirror|jupyter-widgets|widget-)")
_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>\s*", re.IGNORECASE | re.DOTALL)
_IMG_DATA = re.compile(r'(<img\b[^>]*?\bsrc=")data:image/(png|jpeg|gif|svg\+xml);base64,([A-Za-z0-9+/=\s]+)(")', re.IGNORECASE)
_CLASS_ATTR = re.compile(r'class="([^"]*)"')  # after a word boundary: see class_names
_WORD = re.compile(r"\w")
_TOKEN = re.compile(r"""/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|[{};]|[^{};"'/]+|/""", re.DOTALL)
_FUNCTIONAL = re.compile(r":(?:not|is|where|has|matches|-webkit-any|-moz-any)\(")
_ROOT_INSIDE = re.compile(r"\S[\s>+~]+(?::root\b|(?:html|body)(?![\w-]))", re.IGNORECASE)
_SELECTOR_CLASS = re.compile(r"\.(-?[A-Za-z_][\w-]*)")
_GROUPING = ("@media", "@supports", "@layer", "@container", "@document", "@-moz-document")
EXTENSIONS = {"png": "png", "jpeg": "jpg", "gif": "gif", "svg+xml": "svg"}


def externalize(html: str) -> tuple[str, dict[str, bytes]]:
    """The notebook's HTML with its styles and ``data:`` pictures as files, and those files
    (``{path below the site's root: bytes}``)."""
    files: dict[str, bytes] = {}
    styles = list(_STYLE.finditer(html))
    if styles:
        classes = class_names(html)
        css = "\n".join(_used_rules(style.group(1), classes) for style in styles)
        path = _named(css.encode("utf-8"), "css")
        files[path] = css.encode("utf-8")
        link = f'<link rel="stylesheet" href="{BASE}{path}">\n'
        # the first style replaced by the link, the others removed (one pass over the page, not two)
        cuts = [html[:styles[0].start()], link]
        cuts += [html[a.end():b.start()] for a, b in zip(styles, styles[1:])] + [html[styles[-1].end():]]
        html = "".join(cuts)

    def picture(match: re.Match) -> str:
        try:
            data = base64.b64decode("".join(match.group(3).split()), validate=True)
        except (binascii.Error, ValueError):
            return match.group(0)  # not base64 after all: left as it is
        path = _named(data, EXTENSIONS[match.group(2).lower()])
        files[path] = data
        return f"{match.group(1)}{BASE}{path}{match.group(4)}"

    return _IMG_DATA.sub(picture, html), files


def class_names(html: str) -> set[str]:
    """Every name in a ``class="..."`` of ``html`` (where ``class`` follows no word character), as
    ``re.finditer(r'\\bclass="([^"]*)"')`` finds them: searched from the literal ``class="`` (a
    pattern opening with ``\\b`` is tried at every offset of the page, five times slower)."""
    names: set[str] = set()
    at = 0
    while m := _CLASS_ATTR.search(html, at):
        if m.start() and _WORD.match(html, m.start() - 1):  # "subclass=": no boundary; on from the next offset
            at = m.start() + 1
            continue
        names.update(m.group(1).split())
        at = m.end()
    return names


def at_page(html: str, page_url: str) -> str:
    """``html`` with :data:`BASE` made the relative path from the page at ``page_url`` ("en/ch01/notebook/") to the site's root."""
    return html.replace(BASE, "../" * page_url.count("/"))  # "ch01/notebook/" and "ch01/notebook.html" alike


def write(files: dict[str, bytes], site_dir: Path) -> None:
    """Each file into the site, unless it is there already (its name is its content)."""
    for path, data in files.items():
        target = Path(site_dir) / path
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def _named(data: bytes, extension: str) -> str:
    return f"{FOLDER}/{hashlib.sha256(data).hexdigest()[:20]}.{extension}"


# What a file's name is: the folder, 20 hex digits of its content's sha256, its kind (checked on a cache read).
NAME = re.compile(re.escape(FOLDER) + r"/[0-9a-f]{20}\.(css|svg|png|jpg|gif)")


def name_of(name: str, data: bytes) -> str:
    """The name ``data`` would be given, with the extension ``name`` has."""
    return _named(data, name.rsplit(".", 1)[1])


def _used_rules(css: str, classes: set[str]) -> str:
    """``css`` without the rules no element can match (see the module's notes); the rest byte for byte."""
    return _filtered(css, frozenset(name for name in classes if _JUPYTER_CLASS.match(name)))


@functools.lru_cache(maxsize=8)  # only the page's JupyterLab classes decide: pages with the same ones share the result
def _filtered(css: str, classes: frozenset[str]) -> str:
    tokens = _TOKEN.findall(css)
    out, i = _rules(tokens, 0, classes)
    while i < len(tokens):  # a stray "}" at the top: kept, and on
        part, i = _rules(tokens, i + 1, classes)
        out += ["}"] + part
    return "".join(out)


def _rules(tokens: list[str], i: int, classes: set[str]) -> tuple[list[str], int]:
    """The rules from ``tokens[i]`` to the ``}`` closing their block (or the end), filtered; and where it stopped."""
    out: list[str] = []
    prelude: list[str] = []
    while i < len(tokens):
        token = tokens[i]
        if token == "}":
            out += prelude
            return out, i
        if token == ";":  # an at-statement (@import, @charset) or stray: kept
            out += prelude + [token]
            prelude = []
        elif token == "{":
            head = "".join(prelude).strip()
            if head.lower().startswith(_GROUPING):
                inner, i = _rules(tokens, i + 1, classes)
                if "".join(t for t in inner if not t.startswith("/*")).strip():
                    out += prelude + ["{"] + inner + ["}"]
            else:
                end = _block_end(tokens, i)
                if head.startswith("@") or _may_match(head, classes):
                    out += prelude + tokens[i:end + 1]
                i = end
            prelude = []
        else:
            prelude.append(token)
        i += 1
    return out + prelude, i


def _block_end(tokens: list[str], i: int) -> int:
    """The index of the ``}`` closing the block opened at ``tokens[i]``."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j] == "{":
            depth += 1
        elif tokens[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def _may_match(selectors: str, classes: set[str]) -> bool:
    """Whether some selector of the list needs no JupyterLab class the page lacks."""
    return any(needed <= classes for needed in _needs(selectors))


@functools.lru_cache(maxsize=16384)  # every notebook page has the same stylesheet: each rule read once
def _needs(selectors: str) -> tuple[frozenset[str], ...]:
    """For each selector of the list that can match at all, the JupyterLab classes it needs."""
    text = re.sub(r"/\*.*?\*/", "", selectors, flags=re.DOTALL)
    found = []
    for selector in _split_selectors(text):
        plain = _without_functional(selector)
        if _ROOT_INSIDE.search(plain):  # ".jupyter-wrapper :root", "... body": the document's root is inside no element
            continue
        found.append(frozenset(name for name in _SELECTOR_CLASS.findall(plain) if _JUPYTER_CLASS.match(name)))
    return tuple(found)


def _split_selectors(text: str) -> list[str]:
    """A selector list at its top-level commas."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def _without_functional(selector: str) -> str:
    """The selector without the arguments of :not(), :is(), :where(), :has(): what they name need not be there."""
    while True:
        m = _FUNCTIONAL.search(selector)
        if m is None:
            return re.sub(r"\[[^\]]*\]", "", selector)  # attribute values are no classes
        depth, j = 1, m.end()
        while j < len(selector) and depth:
            depth += {"(": 1, ")": -1}.get(selector[j], 0)
            j += 1
        selector = selector[:m.start()] + selector[j:]
