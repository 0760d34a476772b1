"""The page directives by name: each block or inline directive is two functions in a registry.

    def environment_notebook(d: Directive, ctx: Context) -> str: ...   # in a chapter's notebook

    @block("environment", notebook=environment_notebook)
    def environment(d: Directive, ctx: Context) -> str: ...            # on the page

Every directive renders twice: on the page (Markdown/HTML for MkDocs) and in the chapter's
notebook (Markdown that Jupyter, Colab and GitHub show, links absolute; a code cell through
``ctx.code_cell``). Both are registered together, and registering one without the other is
an error, so a new directive can't leave ``[[kb:...]]`` in a notebook.

A block directive stands alone on its line (``[[kb:NAME ARGS]]``); registered with
``body=True`` it also takes the lines indented by four spaces right below it (blank lines
between them included) as its ``body``, dedented. An inline directive sits inside a
sentence and always has arguments (``[[kb:NAME ARGS]]``). Each function returns the
Markdown/HTML that replaces the directive and reports problems with ``ctx.error``, which
fails the build naming the page and the directive.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from .context import Context


@dataclass(frozen=True)
class Directive:
    """One directive as written on a page."""

    name: str  # "run"
    arg: str  # what follows the name, stripped ("ch01/eager_profile")
    text: str  # the directive as written, for messages ("[[kb:run ch01/eager_profile]]")
    body: str = ""  # blocks registered with body=True: the indented lines below, dedented
    line: int = 0  # the page's line it starts on (1-based; 0: unknown)
    body_line: int = 0  # the page's line its body starts on


Render = Callable[[Directive, "Context"], str]


@dataclass(frozen=True)
class Spec:
    name: str
    render: Render  # on the page
    notebook: Render  # in the chapter's notebook
    body: bool = False  # a block that takes the indented lines below it
    twin: bool = True  # the twin check compares it between the languages (a term link is each language's own)


# An indented body: lines starting with four spaces, with blank lines allowed between them.
_BODY = r"(?P<body>(?:\n(?:[ \t]*\n)*[ ]{4}[^\n]*)*)"
# A closed directive (term links leave these alone); markdown_code.LOOKS_LIKE finds any left unrendered.
LEFTOVER = re.compile(r"\[\[kb:[^\]\n]*\]\]")
# An inline directive's arguments: within one paragraph (no blank line), never another directive's
# start. One left unclosed then stays as written (an error), instead of swallowing what follows.
_INLINE_ARG = r"(?:[^\]\[\n]|\[(?!\[)|\n(?![ \t]*\n))*?"


class Registry:
    """Block and inline directives by name, and the patterns that find them on a page."""

    def __init__(self) -> None:
        self.blocks: dict[str, Spec] = {}
        self.inlines: dict[str, Spec] = {}

    def block(self, name: str, *, notebook: Render | None = None, body: bool = False) -> Callable[[Render], Render]:
        """Register ``render(directive, ctx) -> str`` as the block directive ``[[kb:NAME ...]]``,
        and ``notebook(directive, ctx) -> str`` as what it is in a chapter's notebook."""
        return lambda render: self._add(self.blocks, Spec(name, render, _needed(name, notebook), body))

    def inline(self, name: str, *, notebook: Render | None = None, twin: bool = True) -> Callable[[Render], Render]:
        """Register ``render(directive, ctx) -> str`` as the inline directive ``[[kb:NAME ARGS]]``,
        and ``notebook(directive, ctx) -> str`` as what it is in a chapter's notebook."""
        return lambda render: self._add(self.inlines, Spec(name, render, _needed(name, notebook), twin=twin))

    def _add(self, table: dict[str, Spec], spec: Spec) -> Render:
        if spec.name in self.blocks or spec.name in self.inlines:
            raise ValueError(f"directive {spec.name!r} is registered twice")
        if not re.fullmatch(r"[a-z][a-z0-9_-]*", spec.name):
            raise ValueError(f"directive name {spec.name!r}: use lower-case letters, digits, - and _")
        table[spec.name] = spec
        return spec.render

    def block_pattern(self) -> re.Pattern[str]:
        """A registered block alone on its line; groups ``name``, ``arg`` and (maybe empty) ``body``."""
        plain = _names(n for n, s in self.blocks.items() if not s.body)
        bodied = _names(n for n, s in self.blocks.items() if s.body)
        line = r"(?:[ \t]+(?P<arg{i}>[^\]\n]*?))?[ \t]*\]\][ \t]*$"
        alternatives = [rf"\[\[kb:(?P<name0>{plain})" + line.format(i=0)]
        if bodied:
            alternatives.append(rf"\[\[kb:(?P<name1>{bodied})" + line.format(i=1) + _BODY.replace("body", "body1"))
        return re.compile("^(?:" + "|".join(alternatives) + ")", re.MULTILINE)

    def inline_pattern(self) -> re.Pattern[str]:
        """A registered inline directive with its arguments; groups ``name`` and ``arg``."""
        return re.compile(rf"\[\[kb:(?P<name>{_names(self.inlines)})\s+(?P<arg>{_INLINE_ARG})\s*\]\]")

    def pattern(self) -> re.Pattern[str]:
        """Blocks and inline directives in one pass, left to right: group ``block`` or ``inline`` is set."""
        block = self.block_pattern().pattern.removeprefix("^")
        inline = self.inline_pattern().pattern
        return re.compile(rf"(?P<block>^{block})|(?P<inline>{inline})", re.MULTILINE)

    def read_block(self, match: re.Match[str], line: int = 0) -> Directive:
        """The Directive a ``block_pattern`` match found; ``line``: the page's line the match starts on."""
        i = "0" if match.group("name0") else "1"
        body = match.groupdict().get("body1") or ""
        text = match.group(0)[: len(match.group(0)) - len(body)] if body else match.group(0)
        body_line = line + len(body) - len(body.lstrip("\n")) if body and line else 0  # the body starts with a newline
        return Directive(match.group("name" + i), (match.group("arg" + i) or "").strip(), text.strip(),
                         textwrap.dedent(body.strip("\n")) if body else "", line, body_line)

    def read_inline(self, match: re.Match[str], line: int = 0) -> Directive:
        return Directive(match.group("name"), match.group("arg"), match.group(0), line=line)


def _needed(name: str, notebook: Render | None) -> Render:
    if notebook is None:
        raise ValueError(f"directive {name!r} has no notebook rendering: register it with notebook=... "
                         "(what it becomes in a chapter's notebook, next to what it is on the page)")
    return notebook


def _names(names) -> str:
    """An alternation of names, longest first (``kernels`` before ``kernel``); never matches when empty."""
    names = sorted(map(re.escape, names), key=len, reverse=True)
    return "|".join(names) if names else r"(?!)"


REGISTRY = Registry()
block = REGISTRY.block
inline = REGISTRY.inline
