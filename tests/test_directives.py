"""The directive registry: two functions per directive (page, notebook), found by name; unknown ones fail naming page and text."""

from __future__ import annotations

import pytest

from kernelbook.site import claims
from kernelbook.site.directives import CELL, REGISTRY, CodeCell, Context, Directive, Registry, render_notebook, render_page


def ctx(book=None) -> Context:
    return Context(lang="en", page="en/toy.md", book=book or {})


@pytest.fixture
def toy() -> Registry:
    """A registry of its own, as another book (or a test) builds one."""
    reg = Registry()

    @reg.block("shout", notebook=lambda d, c: f"notebook: {d.arg.upper()}")
    def shout(d: Directive, c: Context) -> str:
        return d.arg.upper()

    def ask_notebook(d: Directive, c: Context) -> str:
        return c.code_cell(CodeCell("ch01/x", f"# {d.arg}\n", "")) + f"asked {d.body!r}"

    @reg.block("ask", notebook=ask_notebook, body=True)
    def ask(d: Directive, c: Context) -> str:
        if not d.body:
            return c.error(d.text, "a question needs its text indented below it")
        return f"Q({d.arg}): {d.body!r}"

    @reg.inline("twice", notebook=lambda d, c: f"[{d.arg}]({d.arg}.md)")
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
        toy.inline("shout", notebook=lambda d, c: "")(lambda d, c: "")
    with pytest.raises(ValueError, match="lower-case"):
        toy.block("Shout!", notebook=lambda d, c: "")(lambda d, c: "")


def test_a_directive_without_its_notebook_rendering_is_refused(toy):
    """The page rendering and the notebook rendering are registered together: one alone is an error."""
    for register in (toy.block, toy.inline):
        with pytest.raises(ValueError, match="'whisper' has no notebook rendering: register it with notebook="):
            register("whisper")(lambda d, c: "")
    assert "whisper" not in toy.blocks and "whisper" not in toy.inlines


def test_a_notebook_renders_each_directive_by_its_notebook_function(toy):
    c = Context(lang="en", page="en/toy.md", book={}, url="https://example.org/en/toy/")
    page = "[[kb:shout hi]]\n\nsay [[kb:twice ab]] now, see [above](#top).\n\n[[kb:ask q]]\n    Why?\n\n```md\n[[kb:shout x]]\n```\n"
    out = render_notebook(page, c, toy)
    assert "notebook: HI" in out and "say [ab](ab.md) now" in out  # what a directive returns is not read again
    assert "see [above](https://example.org/en/toy/#top)" in out  # the prose's links made absolute
    assert CELL.format(0) in out and c.cells == [CodeCell("ch01/x", "# q\n", "")] and "asked 'Why?'" in out
    assert "```md\n[[kb:shout x]]\n```" in out and c.errors == []  # code shows directives as written
    render_notebook("[[kb:nope]]\n", c, toy)
    assert c.errors == ["en/toy.md: [[kb:nope]]: not a directive kernelbook knows (block directives stand alone on their line)"]


def test_the_books_directives_are_the_registered_functions():
    assert set(REGISTRY.blocks) == {"run", "figure", "notebook", "environment", "sections", "data", "predict", "objectives",
                                    "device-checks", "glossary", "edition-changes"}
    assert REGISTRY.blocks["predict"].body and not REGISTRY.blocks["data"].body
    assert set(REGISTRY.inlines) == set(claims.KINDS) | {"term"}
    assert set(claims.KINDS) == {"launches", "kernel", "kernels", "time", "device", "value", "ratio"}
    for spec in [*REGISTRY.blocks.values(), *REGISTRY.inlines.values()]:
        assert callable(spec.render) and callable(spec.notebook), spec.name
    assert [name for name, spec in REGISTRY.inlines.items() if not spec.twin] == ["term"]  # each language links terms its own way


def test_a_new_claim_kind_is_one_function(monkeypatch):
    """``@claims.kind`` registers how a value is read; checking and formatting come with it."""
    monkeypatch.setattr(claims, "KINDS", dict(claims.KINDS))
    claims.kind("wall")(lambda claim, capture: capture.wall_time_s)
    claim = claims.parse("wall", "ch01/x > 1", "[[kb:wall ch01/x > 1]]")
    assert (claim.snippet, claim.op, claim.expected) == ("ch01/x", ">", "1")
    assert claims.find("took [[kb:wall ch01/x]]")[0].kind == "wall"
