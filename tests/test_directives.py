"""The directive registry: one function per directive, found by name; unknown ones fail naming page and text."""

from __future__ import annotations

import pytest

from kernelbook.site import claims
from kernelbook.site.directives import REGISTRY, Context, Directive, Registry, render_page


def ctx(book=None) -> Context:
    return Context(lang="en", page="en/toy.md", book=book or {})


@pytest.fixture
def toy() -> Registry:
    """A registry of its own, as another book (or a test) builds one."""
    reg = Registry()

    @reg.block("shout")
    def shout(d: Directive, c: Context) -> str:
        return d.arg.upper()

    @reg.block("ask", body=True)
    def ask(d: Directive, c: Context) -> str:
        if not d.body:
            return c.error(d.text, "a question needs its text indented below it")
        return f"Q({d.arg}): {d.body!r}"

    @reg.inline("twice")
    def twice(d: Directive, c: Context) -> str:
        return d.arg * 2

    return reg


def test_each_directive_is_its_function(toy):
    c = ctx()
    out = render_page("a\n[[kb:shout hello]]\nsay [[kb:twice ab]] now\n", c, toy)
    assert out == "a\nHELLO\nsay abab now\n" and c.errors == []


def test_a_block_with_a_body_takes_the_indented_lines_below_it(toy):
    c = ctx()
    page = "[[kb:ask ch01/x launches == 2]]\n    How many kernels?\n\n    Count them.\n\nNext paragraph.\n"
    out = render_page(page, c, toy)
    assert out == "Q(ch01/x launches == 2): 'How many kernels?\\n\\nCount them.'\n\nNext paragraph.\n"
    c = ctx()
    render_page("[[kb:ask ch01/x]]\nnot indented\n", c, toy)
    assert c.errors == ["en/toy.md: [[kb:ask ch01/x]]: a question needs its text indented below it"]


def test_unknown_and_misplaced_directives_name_page_and_text(toy):
    c = ctx()
    render_page("[[kb:nope x]]\n\ninline [[kb:shout x]] is a block\n", c, toy)
    assert c.errors == [
        "en/toy.md: [[kb:nope x]]: not a directive kernelbook knows (block directives stand alone on their line)",
        "en/toy.md: [[kb:shout x]]: not a directive kernelbook knows (block directives stand alone on their line)",
    ]


def test_code_blocks_show_directives_as_written(toy):
    c = ctx()
    page = "```md\n[[kb:shout x]]\n[[kb:nope]]\n```\n"
    assert render_page(page, c, toy) == page and c.errors == []


def test_a_name_is_registered_once(toy):
    with pytest.raises(ValueError, match="registered twice"):
        toy.inline("shout")(lambda d, c: "")
    with pytest.raises(ValueError, match="lower-case"):
        toy.block("Shout!")(lambda d, c: "")


def test_the_books_directives_are_the_registered_functions():
    assert set(REGISTRY.blocks) == {"run", "figure", "notebook", "environment", "sections", "data", "predict", "objectives", "device-checks"}
    assert REGISTRY.blocks["predict"].body and not REGISTRY.blocks["data"].body
    assert set(REGISTRY.inlines) == set(claims.KINDS) == {"launches", "kernel", "kernels", "time", "device", "value", "ratio"}


def test_a_new_claim_kind_is_one_function(monkeypatch):
    """``@claims.kind`` registers how a value is read; checking and formatting come with it."""
    monkeypatch.setattr(claims, "KINDS", dict(claims.KINDS))
    claims.kind("wall")(lambda claim, capture: capture.wall_time_s)
    claim = claims.parse("wall", "ch01/x > 1", "[[kb:wall ch01/x > 1]]")
    assert (claim.snippet, claim.op, claim.expected) == ("ch01/x", ">", "1")
    assert claims.find("took [[kb:wall ch01/x]]")[0].kind == "wall"
