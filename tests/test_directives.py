"""The directive registry: two functions per directive (page, notebook), found by name; unknown ones fail naming page and text."""

from __future__ import annotations

import pytest

from kernelbook.site.prose import claims
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
        "en/toy.md:1: [[kb:nope x]]: not a directive kernelbook knows (block directives stand alone on their line)",
        "en/toy.md:3: [[kb:shout x]]: not a directive kernelbook knows (block directives stand alone on their line)",
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
    assert c.errors == ["en/toy.md:1: [[kb:nope]]: not a directive kernelbook knows (block directives stand alone on their line)"]


def test_the_books_directives_are_the_registered_functions():
    assert set(REGISTRY.blocks) == {"run", "figure", "notebook", "environment", "sections", "data", "predict", "objectives",
                                    "device-checks", "glossary", "edition-changes", "edition-pdfs", "recorded", "capture-kit"}
    assert REGISTRY.blocks["predict"].body and not REGISTRY.blocks["data"].body
    assert set(REGISTRY.inlines) == set(claims.KINDS) | {"term", "spec", "recorded-launches", "recorded-kernel"}
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


# ---------------------------------------------------------------- what a reader must never see


@pytest.mark.parametrize("written", ["[[KB:twice ab]]", "[[Kb:shout x]]", "[[ kb:twice ab]]", "[[kb:twice ab]", "[[kb:twice ab",
                                     "[[kb:nope]]", "[[kb:]]"])
def test_anything_that_looks_like_a_directive_is_an_error_naming_page_and_line(toy, written):
    """Any case, half-closed, unknown: none of it may reach a page or a notebook as written."""
    for render in (render_page, render_notebook):
        c = ctx()
        render(f"# Title\n\nFirst paragraph.\n\nSay {written} here.\n", c, toy)
        assert len(c.errors) == 1 and c.errors[0].startswith("en/toy.md:5: [[") and "kb:" in c.errors[0].lower(), c.errors


def test_an_unclosed_inline_directive_keeps_the_paragraphs_after_it(toy):
    """An inline directive's arguments stop at a blank line: one left open is an error, and nothing after it is lost."""
    page = "Say [[kb:twice ab now.\n\nSecond paragraph, [[kb:twice cd]].\n\nThird paragraph.\n"
    for render in (render_page, render_notebook):
        c = ctx()
        out = render(page, c, toy)
        assert "Second paragraph, " in out and "Third paragraph." in out and "cdcd" in out or "[cd](cd.md)" in out
        assert c.errors == ["en/toy.md:1: [[kb:twice ab now.: a directive left unclosed: end it with ]] on the same line "
                            "(or show it as `code`)"]
    c = ctx()
    assert render_page("a [[kb:twice long\nargs]] b\n", c, toy) == "a long\nargslong\nargs b\n" and c.errors == []


def test_the_line_counts_the_lines_before_the_rendered_markdown(toy):
    c = Context(lang="en", page="en/toy.md", book={}, first_line=4)  # four lines of front matter
    render_page("one\n\n[[kb:nope]]\n", c, toy)
    assert c.errors[0].startswith("en/toy.md:7: [[kb:nope]]")


@pytest.mark.parametrize("page", [
    "Inline `[[kb:twice ab]]` code.\n",
    "Inline ``[[kb:twice `ab`]]`` code, [[kb:twice ab]] too.\n",
    "A paragraph.\n\n    [[kb:shout x]]\n    [[kb:nope\n\nAfter.\n",
    "- a list item\n\n    !!! note\n\n        Text.\n\n            [[kb:nope]] indented in a box in a list\n",
    "```md\n[[kb:shout x]]\n```\n",
    "~~~\n[[KB:nope\n~~~\n",
])
def test_code_shows_directives_as_written_fenced_inline_or_indented(toy, page):
    """Not expanded and not an error: the reader sees the directive as written, inside code."""
    for render in (render_page, render_notebook):
        c = ctx()
        out = render(page, c, toy)
        assert c.errors == [] and "SHOUT" not in out and "X\n" not in out, (out, c.errors)
        for code in ("`[[kb:twice ab]]`", "``[[kb:twice `ab`]]``", "    [[kb:shout x]]", "[[kb:nope]] indented", "[[KB:nope"):
            if code in page:
                assert code in out


def test_a_block_body_is_not_indented_code_and_its_directives_render(toy):
    page = "[[kb:ask q]]\n    Question?\n\n    Second line [[kb:twice ab]].\n"
    c = ctx()
    assert "Second line [[kb:twice ab]]." in render_page(page, c, toy)  # the toy shows its body as written
    assert c.errors == []


# ---------------------------------------------------------------- what was built: pages, notebooks, the search index


def test_a_built_page_shows_no_directive_outside_code():
    from kernelbook.site.prose import unrendered

    assert unrendered.in_html('<p>one <code>[[kb:run x]]</code></p><pre><span>[[KB:run y</span></pre>') == []
    assert unrendered.in_html('<span class="kb-error">&#91;&#91;kb:nope]]</span>') == []  # its own error says it
    assert unrendered.in_html("<p>says [[kb:kernel ch01/x ~ a]] here</p>") == ["[[kb:kernel ch01/x ~ a]]"]
    assert unrendered.in_html("<li>[[Kb:half open</li>") == ["[[Kb:half open"]
    assert unrendered.in_html("<li>&#91;&#91;kb:x]] from a capture, made inert</li>") == []
    assert unrendered.in_html('<a title="x">[[ kb:run]]</a>') == ["[[ kb:run]]"]


def test_a_notebook_shows_no_directive_outside_code():
    from kernelbook.site.prose import unrendered

    nb = {"cells": [
        {"cell_type": "code", "id": "run-x", "source": ["print('[[kb:run x]]')\n"]},
        {"cell_type": "markdown", "id": "a", "source": ["Quoted `[[kb:run x]]`.\n", "\n", "```md\n[[kb:run y]]\n```\n"]},
        {"cell_type": "markdown", "id": "b", "source": ["Left [[kb:kernel ch01/x ~ a]] as written, ", "[[KB:open"]},
    ]}
    assert unrendered.in_notebook(nb) == ["cell b: [[kb:kernel ch01/x ~ a]]", "cell b: [[KB:open"]


def test_what_a_capture_holds_is_its_text_not_a_leftover_directive():
    """A run may print ``[[kb:...]]`` and a device name may hold it: set aside by its text, however a renderer writes it."""
    from kernelbook.site.prose import unrendered
    from test_claims import capture

    cpu = capture("cpu", [[("k[[kb:x]]<b>", 1)]], data={"said": "[[KB:run <y>]] and more"})
    quoted = unrendered.quoted([cpu])
    assert {"[[kb:x]]", "[[KB:run <y>]]", "[[KB:run &lt;y&gt;]]"} <= quoted
    page = "<p>k[[kb:x]]&lt;b&gt; said [[KB:run &lt;y&gt;]] and more, but [[kb:nope]] and [[kb:x</p>"
    assert unrendered.in_html(page, quoted) == ["[[kb:nope]]", "[[kb:x"]


def test_within_says_what_a_pass_over_every_span_says():
    """``within`` (a search by start) answers as ``any(a <= offset < b)`` over the spans, in any order,
    overlapping, nested, empty or touching: a page's code spans and its directives are asked of it."""
    import random

    from kernelbook.site.prose.markdown_code import within

    rng = random.Random(5)
    for _ in range(300):
        spans = [(a, a + rng.randint(0, 12)) for a in (rng.randint(0, 60) for _ in range(rng.randint(0, 8)))]
        inside = within(spans)
        for offset in range(-2, 80):
            assert inside(offset) == any(a <= offset < b for a, b in spans), (spans, offset)
