"""The glossary's directives: ``[[kb:term ID [WORDS]]]`` in a sentence, ``[[kb:glossary]]`` for its page.

``[[kb:term kernel]]`` links the term's headword in the page's language to its entry,
with its definition as the link's title; ``[[kb:term kernel kernels]]`` shows other words.
An id the glossary lacks fails the build, naming the page and the directive. Terms also
link by themselves (``term_links.py``); the explicit form is for where the author wants
a link that the rules would not make. The twin check leaves ``term`` out: where each
language names a term is that language's own.

``[[kb:glossary]]`` is the glossary page: every term grouped by the chapter that
introduces it, each under a heading whose anchor is its id (the same in every language),
with the other languages' headwords, its definition and related terms.
"""

from __future__ import annotations

import difflib
import html
import re
from itertools import groupby

from ..glossary.terms import Glossary, Term, notebook_link, page_link
from ..prose.labels import label
from ..prose.text import title
from .context import Context
from .registry import Directive, block, inline


def _term(d: Directive, ctx: Context) -> tuple[Term, str] | str:
    """The term a ``[[kb:term]]`` names and the words to show, or the error marker."""
    if ctx.glossary is None:
        return ctx.error(d.text, label("glossary_none", "en"))
    term_id, _, words = d.arg.partition(" ")
    term = ctx.glossary.get(term_id)
    if term is None:
        near = difflib.get_close_matches(term_id, ctx.glossary.ids, n=3)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        return ctx.error(d.text, f"the glossary {ctx.glossary.source} has no term {term_id!r}{hint}: add it there, "
                                 "in every language, or name one it has")
    return term, words.strip() or term.words[ctx.lang].term


def term_notebook(d: Directive, ctx: Context) -> str:
    found = _term(d, ctx)
    return found if isinstance(found, str) else notebook_link(ctx.glossary_url, ctx.lang)(*found)


@inline("term", notebook=term_notebook, twin=False)
def term(d: Directive, ctx: Context) -> str:
    found = _term(d, ctx)
    return found if isinstance(found, str) else page_link(ctx.glossary_url, ctx.lang)(*found)


# ---------------------------------------------------------------- the glossary page


def chapters(ctx: Context) -> dict[str, tuple[str, str]]:
    """Chapter folder -> (its title, its URL from this page), for the chapters of this language that exist."""
    found = {}
    for page in ctx.pages(ctx.lang):
        folder, _, name = page.rel.rpartition("/")
        if folder and name == "index.md":
            found[folder] = (title(page.text) or folder, page.url)
    return found


def _chapter_name(chapter: str, known: dict[str, tuple[str, str]], lang: str) -> str:
    if chapter in known:
        return known[chapter][0]
    number = re.search(r"\d+", chapter)
    return label("glossary_chapter", lang, n=int(number.group(0))) if number else chapter


def _heading(text: str) -> str:
    return re.sub(r"([\\`*_\[\]#{}<>])", r"\\\1", text)


def _groups(glossary: Glossary):
    ordered = sorted(glossary.terms, key=lambda t: t.chapter)  # stable: each chapter's terms in the file's order
    return groupby(ordered, key=lambda t: t.chapter)


def glossary_notebook(d: Directive, ctx: Context) -> str:
    if ctx.glossary is None:
        return ctx.error(d.text, label("glossary_none", "en"))
    known = chapters(ctx)
    out = []
    for chapter, terms in _groups(ctx.glossary):
        out += [f"**{_chapter_name(chapter, known, ctx.lang)}**", ""]
        for t in terms:
            words = t.words[ctx.lang]
            others = " / ".join(w.term for lang, w in t.words.items() if lang != ctx.lang)
            out.append(f"- [{words.term}]({ctx.glossary_url}#{t.id}) ({others}): {words.markdown}")
        out.append("")
    return "\n".join(out)


@block("glossary", notebook=glossary_notebook)
def glossary(d: Directive, ctx: Context) -> str:
    if ctx.glossary is None:
        return ctx.error(d.text, label("glossary_none", "en"))
    known = chapters(ctx)
    lang = ctx.lang
    out = []
    for chapter, terms in _groups(ctx.glossary):
        out += [f"## {_heading(_chapter_name(chapter, known, lang))} {{ #{chapter} }}", ""]
        if chapter in known:
            out += [f'<p class="kb-glossary-chapter"><a href="{html.escape(known[chapter][1])}">{label("glossary_read", lang)}</a></p>', ""]
        for t in terms:
            words = t.words[lang]
            others = "".join(f'<span lang="{other}">{html.escape(w.term)}</span>' for other, w in t.words.items() if other != lang)
            out += [f"### {_heading(words.term)} {{ #{t.id} }}", "", f'<p class="kb-term-other">{others}</p>', "", words.markdown, ""]
            if t.related:
                links = "、".join if lang == "ja" else ", ".join
                related = links(f'<a href="#{r}">{html.escape(ctx.glossary.get(r).words[lang].term)}</a>' for r in t.related)
                out += [f'<p class="kb-term-related">{label("glossary_related", lang)}: {related}</p>', ""]
    return "\n".join(out)
