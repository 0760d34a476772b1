"""The bilingual glossary: its data file, the rules that link terms on a page, its pages, and the build that checks it."""

from __future__ import annotations

import copy
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, book_settings, copy_project, mkdocs_build
from kernelbook.site.glossary import terms as G
from kernelbook.site.glossary import links as T
from kernelbook.site.prose.language import unmark
from kernelbook.site.prose.text import front_matter

LANGS = ("ja", "en")
BOOK = G.load(ROOT / "docs" / "glossary.yml", LANGS, source="docs/glossary.yml")

# The terms the chapters' notes name (ch01 … ch04) and the issue's pairs: every one must be in the file.
REQUIRED = {
    "kernel": ("カーネル", "kernel"), "launch": ("起動", "launch"), "thread": ("スレッド", "thread"),
    "warp": ("ワープ", "warp"), "block": ("スレッドブロック", "thread block"), "gpu-memory": ("GPU メモリ", "GPU memory"),
    "fusion": ("融合", "fusion"), "eager-mode": ("イーガーモード", "eager mode"), "guard": ("ガード", "guard"),
    "l2-cache": ("L2 キャッシュ", "L2 cache"), "profiler": ("プロファイラ", "profiler"), "bandwidth": ("帯域幅", "bandwidth"),
}
FROM_THE_NOTES = {
    "ch01": ["elementwise", "view", "asynchronous", "synchronise", "warm-up", "reduction", "dispatcher", "caching-allocator",
             "device-to-host-copy"],
    "ch02": ["achieved-bandwidth", "flop", "arithmetic-intensity", "roofline", "ridge-point", "memory-bound", "compute-bound",
             "overhead-bound"],
    "ch03": ["graph-break", "recompile", "recompile-limit", "cuda-graph", "dynamic-shapes", "dynamo", "inductor",
             "compiled-region", "epilogue", "launch-bound"],
    "ch04": ["element-block", "program", "mask", "grid", "offsets", "lane", "pointer", "load-store", "constexpr", "triton-interpreter"],
    "ch05": ["cuda-cpp", "grid-stride-loop", "sass", "occupancy", "wide-access", "coalesced-access", "loop-unrolling"],
}


def entry(term_id: str, ja: str, en: str, **extra) -> dict:
    return {"id": term_id, "chapter": "ch01", **extra,
            "ja": {"term": ja, "definition": f"{ja} の定義。"}, "en": {"term": en, "definition": f"What {en} means."}}


def small(*entries: dict) -> G.Glossary:
    return G.parse({"terms": list(entries)}, "test.yml", LANGS)


def problems(raw: dict) -> list[str]:
    with pytest.raises(G.GlossaryError) as caught:
        G.parse(raw, "test.yml", LANGS)
    return caught.value.problems


# ---------------------------------------------------------------- the book's file


def test_every_term_of_the_notes_and_the_issue_is_there_in_both_languages():
    for term_id, (ja, en) in REQUIRED.items():
        term = BOOK.get(term_id)
        assert term is not None, f"{term_id} missing from docs/glossary.yml"
        assert (term.words["ja"].term, term.words["en"].term) == (ja, en)
    for chapter, ids in FROM_THE_NOTES.items():
        for term_id in ids:
            assert BOOK.get(term_id) is not None, f"{chapter}'s {term_id} missing from docs/glossary.yml"
    assert {t.chapter for t in BOOK.terms} == {"ch01", "ch02", "ch03", "ch04", "ch05"}
    assert len(BOOK.ids) == len(set(BOOK.ids)) >= 50


@pytest.mark.parametrize("lang", LANGS)
def test_each_definition_is_one_sentence_and_plain_in_a_tooltip(lang):
    for term in BOOK.terms:
        words = term.words[lang]
        stop = "。" if lang == "ja" else "."
        assert words.definition.endswith(stop) and words.definition.count(stop if lang == "ja" else ". ") <= (1 if lang == "ja" else 0), term.id
        assert "`" not in words.plain and words.term in words.forms


def test_the_file_stays_out_of_the_built_site_and_the_option_names_it(built_site):
    assert book_settings(ROOT).glossary == ROOT / "docs" / "glossary.yml"
    assert not list(built_site.rglob("glossary.yml")) and not list(built_site.rglob("*.yml"))


# ---------------------------------------------------------------- what the file must say


def test_an_entry_lacking_a_language_or_a_definition_is_named():
    raw = {"terms": [entry("kernel", "カーネル", "kernel"), entry("launch", "起動", "launch")]}
    del raw["terms"][0]["en"]
    raw["terms"][1]["ja"]["definition"] = "  "
    got = problems(raw)
    assert "test.yml: term 'kernel': en: missing: every term needs a `term` and a `definition` in each language" in got
    assert "test.yml: term 'launch': ja: `definition` missing or empty" in got


def test_two_languages_that_define_different_things_are_named():
    raw = {"terms": [entry("block", "ブロック", "block")]}
    raw["terms"][0]["ja"]["definition"] = "128 スレッドの組で、`BLOCK_SIZE` 個の要素を受け持つ。"
    raw["terms"][0]["en"]["definition"] = "A group of 256 threads."
    got = problems(raw)
    assert any("term 'block'" in p and "differ in inline code: ja ['BLOCK_SIZE'], en none" in p for p in got), got
    assert any("term 'block'" in p and "differ in numbers: ja ['128'], en ['256']" in p for p in got), got


@pytest.mark.parametrize(("change", "expected"), [
    (lambda t: t[0]["en"].update(definition="One sentence. And a second one."), "en: the definition must be one sentence"),
    (lambda t: t[0]["ja"].update(definition="一文目。二文目。"), "ja: the definition must be one sentence"),
    (lambda t: t[0].update(id="Kernel"), "`id` must be lower-case letters"),
    (lambda t: t[0].update(colour="red"), "unknown key(s) colour"),
    (lambda t: t[0].update(related=["nothing"]), "`related` names 'nothing', which is not another term"),
    (lambda t: t.append(copy.deepcopy(t[0])), "term 'kernel' is defined 2 times"),
    (lambda t: t[0]["en"].update(avoid=["operating system"]), "`avoid` lists 'operating system', which holds none of the term's forms"),
    (lambda t: t.append(entry("ch01", "章", "chapter")), "the id is also a chapter's name"),
    (lambda t: t.append(entry("kern", "カーネル", "kern")), "ja: 'カーネル' is a form of both 'kernel' and 'kern'"),
])
def test_each_mistake_in_the_file_is_named(change, expected):
    terms = [entry("kernel", "カーネル", "kernel")]
    change(terms)
    got = problems({"terms": terms})
    assert any(expected in p for p in got), got
    assert all(p.startswith("test.yml") for p in got)


def test_a_shared_form_is_fine_where_the_terms_link_themselves_on_different_pages():
    g = small(entry("block", "ブロック", "block", auto=["ch01"]), entry("tile", "ブロック", "tile", auto=["ch04"]))
    assert [t.id for t in g.terms] == ["block", "tile"]


def test_a_file_that_is_not_yaml_or_not_a_list_of_terms(tmp_path):
    path = tmp_path / "glossary.yml"
    path.write_text("terms: [\n", encoding="utf-8")
    with pytest.raises(G.GlossaryError, match=r"glossary\.yml:\d+: not valid YAML"):  # its line
        G.load(path, LANGS)
    path.write_text("kernel: a function\n", encoding="utf-8")
    with pytest.raises(G.GlossaryError, match="expected one key, `terms:`"):
        G.load(path, LANGS)
    with pytest.raises(G.GlossaryError, match="cannot read the glossary"):
        G.load(tmp_path / "missing.yml", LANGS)


# ---------------------------------------------------------------- the linking rules

GLOSSARY = small(
    entry("kernel", "カーネル", "kernel", related=["launch"]) | {"en": {"term": "kernel", "forms": ["kernels"], "definition": "A small `fn`."},
                                                                  "ja": {"term": "カーネル", "definition": "小さな `fn`。"}},
    entry("launch", "起動", "launch") | {"ja": {"term": "起動", "avoid": ["起動直後"], "definition": "起動の定義。"}},
    entry("launch-bound", "起動律速", "launch-bound"),
    entry("synchronise", "同期", "synchronise"),
    entry("asynchronous", "非同期", "asynchronous"),
    entry("view", "ビュー", "view"),
    entry("program", "プログラム", "program", auto=["ch04"]),
    entry("torch-compile", "torch.compile", "torch.compile", auto=False),
)


def linked(markdown: str, lang: str = "en", chapter: str = "ch01") -> str:
    return T.link_terms(markdown, GLOSSARY, lang, chapter, lambda term, words: f"<{term.id}:{words}>")


def test_the_first_use_in_each_section_links_and_later_ones_stay_plain():
    md = "A kernel, another kernel.\n\n## Next { #next }\n\nKernels again, and a kernel.\n"
    assert linked(md) == "A <kernel:kernel>, another kernel.\n\n## Next { #next }\n\n<kernel:Kernels> again, and a kernel.\n"


def test_never_in_code_headings_links_html_titles_attributes_or_directives():
    md = ("## The kernel { #kernel-heading }\n\n"
          "`kernel` and ``a kernel`` and [the kernel](../ch01/#x) and <a href=\"#\">kernel</a> and <code>kernel</code>.\n\n"
          "```python\nkernel = 1\n```\n\n"
          "!!! note \"A kernel note\"\n    Its body names a kernel.\n\n"
          "[[kb:run ch01/kernel]]\n\n[[kb:predict ch01/x launches == 1]]\n    How many kernels does a launch make?\n\n"
          "Text {: .kernel } <https://example.org/kernel> https://example.org/kernels [[kb:value ch01/kernel x]]\n")
    out = linked(md)
    assert out.count("<kernel:") == 1 and "Its body names a <kernel:kernel>." in out  # an admonition's body is prose
    assert "<launch:" not in out  # only inside the question (a directive's body)


@pytest.mark.parametrize(("text", "expected"), [
    ("two kernels ran", "two <kernel:kernels> ran"),
    ("Kernel first", "<kernel:Kernel> first"),
    ("the kernelbook site", "the kernelbook site"),  # a whole word, not part of one
    ("a kernel-level view", "a kernel-level <view:view>"),  # a hyphenated word is one word
    ("torch.kernel is code", "torch.kernel is code"),
    ("it ends with a kernel.", "it ends with a <kernel:kernel>."),
    ("launch-bound code", "<launch-bound:launch-bound> code"),  # the longer term wins
    ("a program here", "a program here"),  # program links itself only in chapter 4
    ("we torch.compile it", "we torch.compile it"),  # auto: false
])
def test_english_forms_match_whole_words(text, expected):
    assert linked(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("カーネル名を見る", "<kernel:カーネル>名を見る"),  # a term inside a longer word of its own: fine
    ("これはレビューです", "これはレビューです"),  # ビュー inside another katakana word: not the term
    ("ビューは起動しない", "<view:ビュー>は<launch:起動>しない"),
    ("非同期に処理する", "<asynchronous:非同期>に処理する"),  # 同期 inside 非同期 is 非同期
    ("起動律速になる", "<launch-bound:起動律速>になる"),
    ("プロセスの起動直後に", "プロセスの起動直後に"),  # avoid: the start of a process, not a kernel launch
    ("起動直後ではなく起動のこと", "起動直後ではなく<launch:起動>のこと"),
])
def test_japanese_forms_match_inside_words_but_not_inside_other_terms(text, expected):
    assert linked(text, "ja") == expected


def test_a_term_scoped_to_a_chapter_links_itself_there_only():
    assert linked("a program", chapter="ch04") == "a <program:program>"
    assert linked("a program", chapter="ch01") == "a program"


def test_an_explicit_term_takes_its_sections_link():
    md = "A kernel here, [[kb:term kernel kernels]] there.\n\n## Next { #n }\n\nA kernel.\n"
    out = linked(md)
    assert out == "A kernel here, [[kb:term kernel kernels]] there.\n\n## Next { #n }\n\nA <kernel:kernel>.\n"


def test_link_writers_carry_the_definition_as_title():
    term = GLOSSARY.get("kernel")
    page = T.page_link("../glossary/", "en")(term, "kernels")
    assert page == '<a class="kb-term" href="../glossary/#kernel" title="A small fn.">kernels</a>'
    note = T.notebook_link("https://example.org/en/glossary/", "ja")(term, "カーネル")
    assert note == '[カーネル](https://example.org/en/glossary/#kernel "小さな fn。")'


def test_a_built_page_carries_each_definition_on_its_first_link_only():
    first = '<a class="kb-term" href="../glossary/#kernel" title="A small fn.">kernels</a>'
    page = (f'<p>{first} and <a class="kb-term" href="../glossary/#warp" title="32 threads.">warps</a></p>\n'
            '<h2 id="n">Next</h2><p><a class="kb-term" href="../glossary/#kernel" title="A small fn.">kernel</a>, '
            '<a class="kb-term" href="../glossary/#kernel" title="Another.">kernel</a>, '
            '<a class="kb-term" href="../glossary/#kernel" title="A small fn.">kernel</a>, '
            '<a class="kb-term" href="../glossary/#warp" title="32 threads.">warp</a></p>')
    assert G.titles_once(page) == (
        f'<p>{first} and <a class="kb-term" href="../glossary/#warp" title="32 threads.">warps</a></p>\n'
        '<h2 id="n">Next</h2><p><a class="kb-term" href="../glossary/#kernel">kernel</a>, '
        '<a class="kb-term" href="../glossary/#kernel" title="Another.">kernel</a>, '  # another title: kept
        '<a class="kb-term" href="../glossary/#kernel" title="A small fn.">kernel</a>, '  # not the last one given: kept
        '<a class="kb-term" href="../glossary/#warp">warp</a></p>')
    assert G.titles_once("<p>no terms</p>") == "<p>no terms</p>"


def test_links_to_the_glossary_by_hand_must_name_a_term():
    md = ("[kernels](../glossary.md#kernel) [x](../glossary/#kernal) [y](../glossary.md#nope) "
          "<a href=\"../glossary/#also-not\">z</a> [ok](../glossary/) [other](../ch02/#kernal) `[c](../glossary/#code)`\n")
    found = T.unknown_terms(md, GLOSSARY, "ch01/index.md", "glossary.md")
    assert [anchor for _, anchor in found] == ["kernal", "nope", "also-not"]
    assert found[0][0] == "[x](../glossary/#kernal)"
    assert T.unknown_terms("[a](glossary.md#nope)", GLOSSARY, "index.md", "glossary.md")[0][1] == "nope"


# ---------------------------------------------------------------- the built site


class _Links(HTMLParser):
    """Each a.kb-term: its href, title, text and the tags around it; and the ids of the page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []
        self.terms: list[dict] = []
        self.ids: set[str] = set()
        self.current: dict | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and "kb-term" in (attrs.get("class") or "").split():
            self.current = {"href": attrs["href"], "title": attrs.get("title"), "text": "",
                            "inside": [t for t, _ in self.stack] + [c for _, cls in self.stack for c in cls.split()]}
        if tag not in ("br", "img", "hr", "input", "meta", "link", "wbr", "source"):
            self.stack.append((tag, attrs.get("class") or ""))

    def handle_endtag(self, tag):
        if tag == "a" and self.current is not None:
            self.terms.append(self.current)
            self.current = None
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self.current is not None:
            self.current["text"] += data


def _read(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.mark.parametrize("lang", LANGS)
def test_glossary_pages_hold_every_term_under_the_same_anchor_in_both_languages(built_site, lang):
    page = built_site / ("" if lang == "ja" else "en") / "glossary" / "index.html"
    html = page.read_text(encoding="utf-8")
    for term in BOOK.terms:
        heading = re.search(rf'<h3 id="{term.id}">(.*?)<a class="headerlink"', html)
        assert heading, f"no entry #{term.id} on {page}"
        assert unmark(heading.group(1)).strip() == term.words[lang].term.replace("&", "&amp;")  # marked lang="en" or not
        other = term.words["en" if lang == "ja" else "ja"].term
        assert other in html
    for chapter in ("ch01", "ch02", "ch03", "ch04", "ch05"):
        assert f'<h2 id="{chapter}">' in html
    nav = (built_site / ("" if lang == "ja" else "en") / "index.html").read_text(encoding="utf-8")
    assert 'href="glossary/"' in nav  # in the navigation


@pytest.mark.parametrize("lang", LANGS)
def test_chapter_terms_link_once_per_section_with_the_definition_never_in_code_headings_or_directive_output(built_site, lang):
    folder = built_site / ("" if lang == "ja" else "en")
    found = _read(folder / "ch01" / "index.html")
    assert len(found.terms) > 60
    glossary_ids = _read(folder / "glossary" / "index.html").ids
    forbidden = {"code", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "figure", "svg", "summary", "kb-kernels", "kb-example",
                 "admonition-title", "kb-provenance", "kb-predict", "kb-objectives", "a"}
    titled = set()
    for term in found.terms:
        target = term["href"].removeprefix("../glossary/#")
        assert term["href"] == f"../glossary/#{target}" and target in glossary_ids, term
        definition = BOOK.get(target).words[lang].plain
        # the definition on the page's first link to the entry only (kernelbook.js copies it to the others)
        assert term["title"] == (None if target in titled else definition), term
        titled.add(target)
        assert not forbidden & set(term["inside"]), term
        text = term["text"].lower()
        assert any(" ".join(text.split()) == " ".join(f.lower().split()) for f in BOOK.get(target).words[lang].forms), term
    # once per section: the page's headings split it; within each, a term at most once
    html = (folder / "ch01" / "index.html").read_text(encoding="utf-8")
    body = html[html.index('<article'):html.index('</article>')]
    for section in re.split(r"<h[1-6] ", body):
        ids = re.findall(r'class="kb-term" href="\.\./glossary/#([\w-]+)"', section)
        assert len(ids) == len(set(ids)), f"a term linked twice in one section: {sorted(i for i in ids if ids.count(i) > 1)}"
    # and the chapter's core terms are among them
    assert {"kernel", "launch", "thread", "warp", "block", "gpu-memory", "fusion", "eager-mode", "guard", "l2-cache"} <= {
        t["href"].rsplit("#", 1)[1] for t in found.terms}


# ---------------------------------------------------------------- the build fails, naming page and text


def _fails(copy_root: Path, tmp_path: Path) -> str:
    done = mkdocs_build(copy_root, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert done.returncode != 0, "the build should have failed"
    return done.stdout + done.stderr


def test_a_page_naming_a_term_the_glossary_lacks_fails_the_build(tmp_path):
    book = copy_project(tmp_path / "book")
    page = book / "docs" / "en" / "ch01" / "index.md"
    text = page.read_text(encoding="utf-8")
    text = text.replace("## Summary { #summary }\n", "## Summary { #summary }\n\nSee [[kb:term kernal]] and [the warp entry](../glossary.md#warps).\n")
    page.write_text(text, encoding="utf-8")
    out = _fails(book, tmp_path)
    assert "en/ch01/index.md: [[kb:term kernal]]: the glossary docs/glossary.yml has no term 'kernal' (did you mean kernel?)" in out
    assert "en/ch01/index.md: [the warp entry](../glossary.md#warps): links to the glossary's 'warps', a term docs/glossary.yml does not have" in out


def test_an_entry_missing_a_language_or_disagreeing_fails_the_build(tmp_path):
    book = copy_project(tmp_path / "book")
    path = book / "docs" / "glossary.yml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    terms = {t["id"]: t for t in raw["terms"]}
    del terms["warp"]["en"]["definition"]
    terms["block"]["en"]["definition"] = "A group of 256 GPU threads (`blockDim.x`) that a launch starts together."
    path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    out = _fails(book, tmp_path)
    # each problem names the line where its entry starts
    assert re.search(r"docs/glossary\.yml:\d+: term 'warp': en: `definition` missing or empty", out), out[-3000:]
    assert re.search(r"docs/glossary\.yml:\d+: term 'block': the ja and en definitions differ in inline code", out)
    assert "differ in numbers: ja ['128'], en ['256']" in out


def test_the_glossary_page_is_required_in_every_language(tmp_path):
    book = copy_project(tmp_path / "book")
    for lang in LANGS:
        (book / "docs" / lang / "glossary.md").unlink()
    text = (book / "mkdocs.yml").read_text(encoding="utf-8").replace("  - glossary.md\n", "")
    (book / "mkdocs.yml").write_text(text, encoding="utf-8")
    out = _fails(book, tmp_path)
    assert "docs/ja/glossary.md: missing: the glossary's page in this language" in out


def test_every_page_of_the_book_reads_without_a_glossary_problem():
    """The book's own pages: no hand-written glossary link names a term the file lacks, and every explicit term exists."""
    for lang in LANGS:
        for page in sorted((ROOT / "docs" / lang).rglob("*.md")):
            rel = page.relative_to(ROOT / "docs" / lang).as_posix()
            body = front_matter(page.read_text(encoding="utf-8"))[1]
            assert T.unknown_terms(body, BOOK, rel, "glossary.md") == [], rel
            assert all(BOOK.get(term_id) for term_id, _ in T.explicit(body)), rel


# ---------------------------------------------------------------- a malformed glossary, and HTML in a definition (issue 26)


def test_a_problem_names_the_line_of_its_entry(tmp_path):
    path = tmp_path / "glossary.yml"
    path.write_text(yaml.safe_dump({"terms": [entry("kernel", "カーネル", "kernel"), entry("launch", "起動", "launch")]},
                                   allow_unicode=True, sort_keys=False), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    line = text.splitlines().index("- id: launch") + 1
    raw = yaml.safe_load(text)
    del raw["terms"][1]["en"]
    path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(G.GlossaryError) as caught:
        G.load(path, LANGS)
    assert caught.value.problems == [f"glossary.yml:{line}: term 'launch': en: missing: every term needs a `term` and a "
                                     "`definition` in each language"]
    path.write_text("terms:\n  - id: kernel\n    chapter: [ch01\n", encoding="utf-8")
    with pytest.raises(G.GlossaryError, match=r"^glossary\.yml:[34]: not valid YAML"):
        G.load(path, LANGS)


@pytest.mark.parametrize("command", [["notebooks"], ["notebooks", "--check"], ["build", "--no-capture"]], ids=" ".join)
@pytest.mark.parametrize("broken", ["yaml", "language"])
def test_a_malformed_glossary_is_one_line_with_file_and_line(tmp_path, command, broken):
    from conftest import MKDOCS_ENV, run_cli

    book = copy_project(tmp_path / "book")
    path = book / "docs" / "glossary.yml"
    text = path.read_text(encoding="utf-8")
    if broken == "yaml":
        path.write_text(text.replace("\n  - id: ", "\n  - id: [", 1), encoding="utf-8")
        words = [re.compile(r"docs/glossary\.yml:\d+: not valid YAML")]
    else:
        raw = yaml.safe_load(text)
        del raw["terms"][0]["en"]
        path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
        words = [re.compile(rf"docs/glossary\.yml:\d+: term '{raw['terms'][0]['id']}': en: missing")]
    done = run_cli(*command, root=book, timeout=300, **MKDOCS_ENV)
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelbook: "), done.stderr[-3000:]
    assert all(w.search(lines[0]) for w in words), lines[0]


def test_html_in_a_definition_is_text_on_the_glossary_page_and_in_the_notebook():
    from kernelbook.site.directives import Context, render_notebook, render_page

    hostile = entry("kernel", "カーネル", "kernel")
    hostile["en"]["definition"] = "A function <img src=x onerror=alert(1)> the GPU runs, as `a<b` says."
    hostile["ja"]["definition"] = "GPU が実行する関数 (`a<b`)。"
    glossary = small(hostile)
    ctx = Context(lang="en", page="en/glossary.md", book={}, glossary=glossary, glossary_url="../glossary/",
                  pages=lambda lang: [])
    page = render_page("[[kb:glossary]]\n", ctx)
    notebook = render_notebook("[[kb:glossary]]\n", ctx)
    for out in (page, notebook if isinstance(notebook, str) else str(notebook)):
        assert "<img" not in out and "&#60;img src&#61;x onerror&#61;alert(1)&#62;" in out, out
        assert "`a<b`" in out  # inline code stays code
    assert "<img" not in G.page_link("../glossary/", "en")(glossary.terms[0], "kernel")  # the tooltip, as before
