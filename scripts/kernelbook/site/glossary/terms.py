"""The book's glossary: every term in both languages, read from one YAML file and checked. Pure but ``load``.

    terms:
      - id: kernel                 # the anchor on both languages' glossary pages: stable, [a-z0-9-]
        chapter: ch01              # the chapter that introduces it (the glossary page groups by it)
        related: [launch, thread]  # optional: other ids, "see also"
        auto: [ch04]               # optional: link it by itself only on these chapters' pages (false: never)
        ja:
          term: カーネル
          forms: [カーネル]         # optional: what else links to it, as written (the term always does)
          avoid: [カーネル空間]      # optional: longer words that hold a form but mean something else
          definition: GPU が受け取ったデータに対して並列に実行する小さな関数。
        en:
          term: kernel
          forms: [kernels]
          definition: A small function that the GPU runs in parallel over the data it is handed.

Each entry needs every language of the book, each with a term and a one-sentence
definition. The two languages must define the same thing: their definitions carry the
same inline code (`` `tl.load` ``) and the same numbers of two or more digits (``128``,
``32``), so a number or an API named in one language and not the other fails the build.
Every problem of the file is reported at once, naming the file, the entry and the language.
How terms are found on pages and linked is ``term_links.py``.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..prose.escape import inert

ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
CHAPTER = re.compile(r"[a-z0-9_]+")
ENTRY_KEYS = {"id", "chapter", "related", "auto"}
WORDS_KEYS = {"term", "forms", "avoid", "definition"}
_CODE = re.compile(r"`([^`]+)`")
_NUMBER = re.compile(r"(?<![\w.])\d{2,}(?:[.,]\d+)*")
# One sentence: a single full stop, at the end (no "e.g." in a definition).
_STOPS = {"ja": re.compile(r"。"), "en": re.compile(r"[.!?](?=\s|$)")}


class GlossaryError(ValueError):
    """What is wrong with a glossary file: every problem, each naming file, entry and language."""

    def __init__(self, problems: list[str]):
        super().__init__(problems[0] if len(problems) == 1 else f"{len(problems)} problems, the first: {problems[0]}")
        self.problems = problems


@dataclass(frozen=True)
class Words:
    """One language's side of a term."""

    term: str  # the headword: "カーネル", "kernel"
    forms: tuple[str, ...]  # every surface form that links to the term, the headword first
    avoid: tuple[str, ...]  # longer words that hold a form but are not the term ("起動直後")
    definition: str  # one sentence, Markdown (inline code allowed)

    @property
    def plain(self) -> str:
        """The definition as plain text, for a tooltip."""
        return self.definition.replace("`", "")

    @property
    def markdown(self) -> str:
        """The definition as Markdown for the glossary page and the notebooks: its inline code as code, and
        everything else shown as written (``escape.inert``): HTML in a definition is text, as in the tooltip."""
        parts = _CODE.split(self.definition)  # text, code, text, code, ..., text
        return "".join(f"`{part}`" if i % 2 else inert(part) for i, part in enumerate(parts))


@dataclass(frozen=True)
class Term:
    id: str
    chapter: str
    related: tuple[str, ...]
    auto: tuple[str, ...] | None  # chapters whose pages link it by itself; None: every page
    words: Mapping[str, Words]

    def links_itself_on(self, chapter: str) -> bool:
        """Whether a page of ``chapter`` ("ch01"; "" for a page outside the chapters) links this term by itself."""
        return self.auto is None or chapter in self.auto


@dataclass(frozen=True)
class Glossary:
    source: str  # the file, as messages name it: "docs/glossary.yml"
    terms: tuple[Term, ...]

    def get(self, term_id: str) -> Term | None:
        return next((t for t in self.terms if t.id == term_id), None)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.terms)


def load(path: Path, languages: Iterable[str], source: str | None = None,
         data: Callable[[str], object] | None = None) -> Glossary:
    """The glossary at ``path``; GlossaryError listing everything wrong with it.

    ``data``: what makes the file's text into its YAML data (default :func:`yaml_data`; a build
    passes one that keeps the data of a text it has read before)."""
    import yaml

    name = source or path.name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GlossaryError([f"{name}: cannot read the glossary ({exc.strerror or exc}); the plugin's `glossary` option names it"]) from None
    key = (text, name, tuple(languages))
    if key in _LOADED:  # the same file in the next language build or `mkdocs serve` reload: the same Glossary
        return _LOADED[key]  # (so the term linker, built once per glossary, is built once)
    try:
        raw = (data or yaml_data)(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        at = f"{name}:{mark.line + 1}" if mark is not None else name
        what = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise GlossaryError([f"{at}: not valid YAML: {what}"]) from None
    except RecursionError:
        raise GlossaryError([f"{name}: not usable YAML: nested too deeply"]) from None
    try:
        glossary = parse(raw, name, tuple(languages))
    except GlossaryError:  # read again to name each problem's line (the node tree is slow: only when there is one)
        parse(raw, name, tuple(languages), entry_lines(yaml.compose(text)))
        raise
    _LOADED.clear()
    _LOADED[key] = glossary
    return glossary


_LOADED: dict[tuple[str, str, tuple[str, ...]], Glossary] = {}  # the last glossary read, by its text (a Glossary is frozen)


def yaml_data(text: str) -> object:
    """The data of a YAML text, safely (yaml.YAMLError when it is not YAML)."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml's, where built: 10x faster


def entry_lines(node) -> list[int]:
    """The line (1-based) where each entry of ``terms:`` starts, from the YAML's node tree; [] when it has no such list."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if getattr(key, "value", None) == "terms" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def parse(raw: object, source: str, languages: tuple[str, ...], lines: list[int] | None = None) -> Glossary:
    """A glossary from the file's YAML data; GlossaryError listing every problem.

    ``lines``: where each entry starts in the file, so that a problem names its line (``docs/glossary.yml:12``).
    """
    if not isinstance(raw, dict) or not isinstance(raw.get("terms"), list) or set(raw) != {"terms"}:
        raise GlossaryError([f"{source}:1: expected one key, `terms:`, holding a list of entries (see guide/authors.md, \"The glossary\")"])
    problems: list[str] = []
    terms: list[Term] = []
    places: dict[str, str] = {}  # term id -> "file:line" of its entry
    lines = lines or []
    for n, item in enumerate(raw["terms"], 1):
        at = f"{source}:{lines[n - 1]}" if n <= len(lines) else source
        where = f"{at}: entry {n}"
        if not isinstance(item, dict):
            problems.append(f"{where}: expected a mapping with id, chapter and {', '.join(languages)}")
            continue
        if isinstance(item.get("id"), str):
            where = f"{at}: term {item['id']!r}"
        term = _entry(item, where, languages, problems)
        if term is not None:
            terms.append(term)
            places.setdefault(term.id, at)
    problems += _across(terms, source, languages, places)
    if problems:
        raise GlossaryError(problems)
    return Glossary(source, tuple(terms))


def _entry(item: dict, where: str, languages: tuple[str, ...], problems: list[str]) -> Term | None:
    before = len(problems)
    unknown = sorted(set(item) - ENTRY_KEYS - set(languages), key=str)
    if unknown:
        problems.append(f"{where}: unknown key(s) {', '.join(map(str, unknown))} (an entry has {', '.join(sorted(ENTRY_KEYS))} "
                        f"and one block per language: {', '.join(languages)})")
    term_id = item.get("id")
    if not isinstance(term_id, str) or not ID.fullmatch(term_id):
        problems.append(f"{where}: `id` must be lower-case letters, digits and single hyphens (it is the anchor in every language)")
    chapter = item.get("chapter")
    if not isinstance(chapter, str) or not CHAPTER.fullmatch(chapter):
        problems.append(f"{where}: `chapter` must name the chapter folder that introduces the term (ch01)")
    related = _strings(item.get("related", []), f"{where}: `related`", problems)
    auto = item.get("auto", True)
    if auto is True:
        scope = None
    elif auto is False:
        scope = ()
    else:
        scope = _strings(auto, f"{where}: `auto` (true, false, or a list of chapter folders)", problems)
    words = {}
    for lang in languages:
        found = _words(item.get(lang), f"{where}: {lang}", lang, problems)
        if found is not None:
            words[lang] = found
    if len(problems) > before:
        return None
    return Term(term_id, chapter, related, scope, words)


def _words(raw: object, where: str, lang: str, problems: list[str]) -> Words | None:
    if raw is None:
        problems.append(f"{where}: missing: every term needs a `term` and a `definition` in each language")
        return None
    if not isinstance(raw, dict):
        problems.append(f"{where}: expected a mapping with `term` and `definition`")
        return None
    before = len(problems)
    unknown = sorted(set(raw) - WORDS_KEYS, key=str)
    if unknown:
        problems.append(f"{where}: unknown key(s) {', '.join(map(str, unknown))} (a language has {', '.join(sorted(WORDS_KEYS))})")
    term = raw.get("term")
    if not isinstance(term, str) or not term.strip() or term != term.strip() or "\n" in term:
        problems.append(f"{where}: `term` missing or empty (one line, no spaces around it)")
    definition = raw.get("definition")
    if not isinstance(definition, str) or not definition.strip():
        problems.append(f"{where}: `definition` missing or empty")
    else:
        definition = " ".join(definition.split())
        stops = _STOPS.get(lang, _STOPS["en"]).findall(definition)
        ends = definition.endswith("。" if lang == "ja" else (".", "!", "?"))
        if len(stops) != 1 or not ends:
            problems.append(f"{where}: the definition must be one sentence, ending with {'。' if lang == 'ja' else 'a full stop'}: {definition!r}")
    forms = _strings(raw.get("forms", []), f"{where}: `forms`", problems)
    avoid = _strings(raw.get("avoid", []), f"{where}: `avoid`", problems)
    if len(problems) > before:
        return None
    forms = tuple(dict.fromkeys([term, *forms]))
    for word in avoid:
        if not any(f.lower() in word.lower() for f in forms):
            problems.append(f"{where}: `avoid` lists {word!r}, which holds none of the term's forms")
    return Words(term, forms, avoid, definition)


def _strings(raw: object, where: str, problems: list[str]) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(x, str) and x.strip() for x in raw):
        problems.append(f"{where}: expected a list of non-empty strings")
        return ()
    return tuple(raw)


def _across(terms: list[Term], source: str, languages: tuple[str, ...], places: Mapping[str, str]) -> list[str]:
    """Problems between entries: repeated ids, unknown related ids, one form for two terms, languages that disagree."""
    problems = []
    ids = Counter(t.id for t in terms)
    for term_id in sorted(i for i, n in ids.items() if n > 1):
        problems.append(f"{source}: term {term_id!r} is defined {ids[term_id]} times")
    known = set(ids)
    chapters = {t.chapter for t in terms}
    for term in terms:
        where = f"{places.get(term.id, source)}: term {term.id!r}"
        if term.id in chapters:
            problems.append(f"{where}: the id is also a chapter's name, which groups the glossary page: rename it")
        for other in term.related:
            if other not in known or other == term.id:
                problems.append(f"{where}: `related` names {other!r}, which is not another term of the glossary")
        problems += [f"{where}: {p}" for p in disagreement(term, languages)]
    for lang in languages:
        owner: dict[str, Term] = {}
        for term in terms:
            for form in term.words[lang].forms:
                key = " ".join(form.lower().split())
                first = owner.setdefault(key, term)
                if first is not term and _overlap(first, term):
                    problems.append(f"{source}: {lang}: {form!r} is a form of both {first.id!r} and {term.id!r}, which link "
                                    "themselves on the same pages: a page could not tell which one it means (narrow `auto`)")
    return problems


def disagreement(term: Term, languages: tuple[str, ...]) -> list[str]:
    """How the languages' definitions of ``term`` differ in what they say (inline code, numbers); [] when they agree."""
    first, *others = languages
    out = []
    base = term.words[first].definition
    for lang in others:
        other = term.words[lang].definition
        for what, pattern in (("inline code", _CODE), ("numbers", _NUMBER)):
            a, b = sorted(pattern.findall(base)), sorted(pattern.findall(other))
            if a != b:
                out.append(f"the {first} and {lang} definitions differ in {what}: {first} {a or 'none'}, {lang} {b or 'none'}: "
                           "both languages must define the same thing")
    return out


def _overlap(a: Term, b: Term) -> bool:
    """Whether some page links both terms by itself."""
    if a.auto == () or b.auto == ():
        return False
    if a.auto is None or b.auto is None:
        return True
    return bool(set(a.auto) & set(b.auto))


# ---------------------------------------------------------------- how a term link is written

Link = Callable[[Term, str], str]  # (term, the words as written on the page) -> the linked words


def _attribute(text: str) -> str:
    """Text for an HTML attribute that Markdown never reads as markup."""
    return re.sub(r"[*_`\\[\]{}]", lambda m: f"&#{ord(m.group(0))};", html.escape(text, quote=True))


def page_link(glossary_url: str, lang: str) -> Link:
    """A term link on the site: raw HTML, its definition in ``title`` (material's tooltip)."""
    def link(term: Term, words: str) -> str:
        return (f'<a class="kb-term" href="{html.escape(glossary_url, quote=True)}#{term.id}" '
                f'title="{_attribute(term.words[lang].plain)}">{html.escape(words, quote=False)}</a>')
    return link


_PAGE_LINK = re.compile(r'(<a class="kb-term" href="([^"]*)") title="([^"]*)">')


def titles_once(page_html: str) -> str:
    """The built page with each term's definition only on its first link: a later link to the
    same entry loses its title when it repeats the title of the last titled link there.

    A chapter links a term once per section, so a page repeats a definition many times (a
    few kilobytes of every page load). kernelbook.js gives the later links their title back
    as the page loads, before material turns titles into tooltips; without JavaScript, the
    first link shows it and every link still leads to the entry.
    """
    last: dict[str, str] = {}  # href -> the title a link without one gets back (the script's rule)

    def once(match: re.Match[str]) -> str:
        href, title = match.group(2), match.group(3)
        if last.get(href) == title:
            return match.group(1) + ">"
        last[href] = title
        return match.group(0)
    return _PAGE_LINK.sub(once, page_html)


def notebook_link(glossary_url: str, lang: str) -> Link:
    """A term link in a notebook: Markdown, absolute, its definition as the link's title (a tooltip in Jupyter)."""
    def link(term: Term, words: str) -> str:
        title = term.words[lang].plain.replace("\\", "\\\\").replace('"', '\\"')
        return f'[{words}]({glossary_url}#{term.id} "{title}")'
    return link
