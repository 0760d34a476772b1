"""A book that reads whole before its first GPU capture (issue 38): predictions in words, the
Japanese typography of inserted values, the CUDA tab's door to the capture kit, traces recorded
elsewhere (the A100 traces of HolisticTraceAnalysis), and a crafted GPU capture replacing the
predictions, on the page and on the instructors' page.

The crafted capture lives only in a temporary copy of the book (``test_site_checks.craft_cuda``:
a committed CPU capture relabelled), never in the checkout.
"""

from __future__ import annotations

import html
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT, copy_project, mkdocs_build, run_cli
from kernelbook.common import recorded
from kernelbook.site.prose import claims, japanese, labels, predictions, units
from kernelbook.site.prose.language import unmark
from kernelbook.site.book import load_book
from kernelbook.site.directives import Context, render_page
from test_site_checks import craft_cuda

LANGS = ("ja", "en")
CHAPTERS = sorted(p.parent.name for p in ROOT.glob("docs/ja/ch*/index.md"))
RECORDED = ROOT / "snippets/recorded"
PREFIX = {"ja": "", "en": "en/"}


def claim(text: str) -> claims.Claim:
    (found,) = claims.find(text)
    return found


# ---------------------------------------------------------------- predictions in words


@pytest.mark.parametrize("text, en, ja", [
    ("[[kb:ratio ch01/x a_s / b_s @cuda >= 1.4]]", "≥ 1.4×", "1.4 倍以上"),
    ("[[kb:ratio ch01/x a_s / b_s @cuda > 1.5]]", "> 1.5×", "1.5 倍超"),
    ("[[kb:ratio ch01/x a_s / b_s @cuda < 0.2]]", "< 0.2×", "0.2 倍未満"),
    ("[[kb:ratio ch01/x a_s / b_s @cuda <= 1.1]]", "≤ 1.1×", "1.1 倍以下"),
    ("[[kb:ratio ch01/x a_s / b_s @cuda >= 2]]", "≥ 2×", "2 倍以上"),
    ("[[kb:value ch01/x rows.0.kernel_share @cuda < 0.33]]", "< 33%", "33% 未満"),  # written by its key, as a measured value is
    ("[[kb:value ch01/x launches.cuda_graph.graph_launches @cuda == 1]]", "1", "1"),
    ("[[kb:launches ch01/x#1 @cuda >= 2]]", "≥ 2", "2 以上"),
    ('[[kb:value ch01/x kernel @cuda ~ "xmask = "]]', "<code>xmask &#61; …</code>", "<code>xmask &#61; …</code>"),
    ("[[kb:kernel ch01/x#2 ~ triton_per_ @cuda]]", "<code>…triton_per_…</code>", "<code>…triton_per_…</code>"),
])
def test_a_comparison_reads_as_its_prediction_in_each_language(text, en, ja):
    assert [html.unescape(predictions.words(claim(text), lang)) for lang in ("en", "ja")] == [html.unescape(en), html.unescape(ja)]
    shown = predictions.predicted_html(claim(text), "ja", "../instructors/#gpu-captures")
    assert shown.startswith('<span class="kb-value kb-predicted" title="') and html.unescape(shown).endswith(
        f'>{html.unescape(ja)} <a class="kb-predicted-note" href="../instructors/#gpu-captures">(予想、GPU では未計測)</a></span>')
    assert "snippets/ch01/x.py" in predictions.why(claim(text), "en")  # how a reader with a GPU checks it


@pytest.mark.parametrize("text", ["[[kb:value ch01/x best_block @cuda]]", "[[kb:ratio ch01/x a_s / b_s @cuda]]",
                                  "[[kb:launches ch01/x#0..2 @cuda == 1,2,3]]"])
def test_a_claim_without_a_comparison_predicts_nothing_and_is_listed_as_a_hole(text):
    assert predictions.words(claim(text), "en") is None and predictions.predicted_html(claim(text), "ja") is None
    page = f"# T\n\n```md\n{text}\n```\n\nFirst line.\n- the fastest: {text}; measured: [[kb:value ch01/x a_s]]\n"
    (hole,) = predictions.holes(page, first_line=3)
    assert (hole.line, hole.claim.text, hole.sentence) == (11, text, f"- the fastest: {text}; measured: [[kb:value ch01/x a_s]]")


# ---------------------------------------------------------------- Japanese typography of inserted values


def test_japanese_drops_the_space_only_where_two_japanese_characters_meet():
    marker = re.compile("\x02(\\d+)\x03")
    values = ['<span class="kb-value">約 0.08 倍</span>', '<span class="kb-value">128</span>',
              '<span class="kb-value">GPU のキャプチャが必要</span>', "<code>aten::add</code>"]
    page = "速さは \x020\x03 にとどまり、\x021\x03 個、これは \x022\x03 です。担当は \x023\x03 です。"
    assert japanese.join(page, values, marker) == (
        "速さは\x020\x03にとどまり、\x021\x03 個、これは \x022\x03です。担当は \x023\x03 です。")
    assert japanese.join("値は \x020\x03 です", ["", ""], marker) == "値は \x020\x03 です"  # a block: left alone


@pytest.mark.parametrize("ratio, exact, ja", [(0.0712, False, "約 0.07 倍"), (2048.0, False, "2,048 倍"), (1.0, False, "1.0 倍"),
                                              (1.04, True, "1.0 倍"), (1.04, False, "約 1.0 倍")])
def test_no_yaku_before_an_exact_ratio(ratio, exact, ja):
    assert units.format_ratio(ratio, "ja", exact=exact) == ja
    assert "約" not in units.format_ratio(ratio, "en", exact=exact)


def test_an_exact_claim_on_a_ratio_shows_no_yaku(tmp_path):
    book = load_book(ROOT)
    c = Context(lang="ja", page="ja/ch09/index.md", book=book)
    first = book["ch01/first_call"].shown.data
    ratio = first["first_call_s"] / first["later_call_s"]
    out = render_page(f"比は [[kb:ratio ch01/first_call first_call_s / later_call_s == {ratio!r}]] です。", c)
    assert c.errors == [] and "約" not in out and re.search(r'title="cpu">[\d,.]+ 倍</span>です。', out), out


# ---------------------------------------------------------------- traces recorded elsewhere


@pytest.fixture
def traces(tmp_path) -> Path:
    """A copy of snippets/recorded (the committed A100 traces, records and source)."""
    shutil.copytree(RECORDED, tmp_path / "recorded")
    return tmp_path / "recorded"


def recorded_page(folder: Path, markdown: str, lang: str = "en") -> tuple[str, Context]:
    ctx = Context(lang=lang, page=f"{lang}/ch01/index.md", book={}, recorded_dir=str(folder))
    return render_page(markdown, ctx), ctx


CH01_CLAIMS = ("[[kb:recorded-launches hta-a100/triton_example == 1]] [[kb:recorded-kernel hta-a100/triton_example ~ triton_poi_fused]] "
               "[[kb:recorded-launches hta-a100/benchmark_simple_add_trace ~ CUDAFunctor_add == 2]]")


def test_the_committed_records_are_the_traces_read_as_kernelbook_kernels_reads_them(traces):
    for name, launches in (("triton_example", 1), ("benchmark_simple_add_trace", 4)):
        done = run_cli("kernels", "--json", str(traces / "hta-a100" / f"{name}.json.gz"))
        assert done.returncode == 0, done.stderr
        record = recorded.load(RECORDED / "hta-a100" / f"{name}.kernels.json")
        assert record.launches == launches and f'"launches": {launches}' in done.stdout
        assert [k.name for k in record.kernels] == re.findall(r'"name": "([^"]+)"', done.stdout)
    assert (traces / "hta-a100" / "triton_example.json.gz").read_bytes() == (ROOT / "tests/fixtures/real-traces/triton_example.json.gz").read_bytes()


@pytest.mark.parametrize("lang", LANGS)
def test_the_recorded_box_says_whose_trace_it_is_and_its_claims_hold(traces, lang):
    out, ctx = recorded_page(traces, f"{CH01_CLAIMS}\n\n[[kb:recorded hta-a100/triton_example]]\n", lang)
    assert ctx.errors == []
    assert '<code class="kb-kernel" title="triton_poi_fused_add_cos_sin_0">triton_poi_fused_add_cos_sin_0</code>' in out
    assert "!!! abstract kb-recorded" in out and "NVIDIA A100 (A100-PG509-200)" in out
    for words in ("HolisticTraceAnalysis", "https://github.com/facebookresearch/HolisticTraceAnalysis", "MIT",
                  "Copyright (c) Meta Platforms, Inc. and affiliates.", "kernelbook kernels"):
        assert words in out, words
    assert ("この本のスニペットではありません" if lang == "ja" else "not this book's snippets") in out
    assert "<td><code>triton_poi_fused_add_cos_sin_0</code></td><td>1</td><td>1.8 µs</td>" in out


def test_a_claim_on_a_recorded_trace_fails_when_the_trace_is_swapped(traces):
    folder = traces / "hta-a100"
    shutil.copy2(folder / "benchmark_simple_add_trace.json.gz", folder / "triton_example.json.gz")  # another trace in its place
    _, ctx = recorded_page(traces, CH01_CLAIMS)
    assert len(ctx.errors) == 2 and all("is not the trace this record was read from (its sha256 differs)" in e for e in ctx.errors)
    done = run_cli("kernels", str(folder / "triton_example.json.gz"), "--record", str(folder / "triton_example.kernels.json"))
    assert done.returncode == 0, done.stderr  # read again: now the record is of the swapped trace
    _, ctx = recorded_page(traces, CH01_CLAIMS)
    assert ctx.errors == [
        "en/ch01/index.md:1: [[kb:recorded-launches hta-a100/triton_example == 1]]: the trace triton_example.json.gz "
        "(NVIDIA A100 (A100-PG509-200)) launched 4 kernel(s)",
        "en/ch01/index.md:1: [[kb:recorded-kernel hta-a100/triton_example ~ triton_poi_fused]]: no kernel containing "
        "'triton_poi_fused' in the trace triton_example.json.gz (launched: distribution_elementwise_grid_stride_kernel<uniform_kernel>, "
        "vectorized_elementwise_kernel<CUDAFunctor_add>)",
    ]


def test_a_recorded_trace_without_its_source_or_licence_is_refused(traces):
    (traces / "hta-a100" / "LICENSE.HolisticTraceAnalysis").unlink()
    _, ctx = recorded_page(traces, "[[kb:recorded hta-a100/triton_example]]\n")
    assert len(ctx.errors) == 1 and "licence_file 'LICENSE.HolisticTraceAnalysis' is not beside the traces" in ctx.errors[0]


# ---------------------------------------------------------------- the built book, as it is committed


class Inserted(HTMLParser):
    """Each inserted value (``kb-value`` / ``kb-kernel``) of a page: its text and the characters on either side."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.open: list[tuple[str, int, int]] = []  # (tag, depth, where its text starts)
        self.depth = 0
        self.found: list[tuple[str, str, str]] = []  # (before, value, after) once the page is read
        self.spans: list[tuple[int, int]] = []

    def handle_starttag(self, tag, attrs):
        self.depth += 1
        classes = (dict(attrs).get("class") or "").split()
        if {"kb-value", "kb-kernel"} & set(classes) and not any(t for t in self.open):
            self.open.append((tag, self.depth, len("".join(self.text))))

    def handle_endtag(self, tag):
        if self.open and self.open[-1][1] == self.depth:
            _, _, start = self.open.pop()
            self.spans.append((start, len("".join(self.text))))
        self.depth -= 1

    def handle_data(self, data):
        self.text.append(data)

    def values(self) -> list[tuple[str, str, str]]:
        whole = "".join(self.text)
        return [(whole[max(0, a - 2):a], whole[a:b], whole[b:b + 2]) for a, b in self.spans]


def page_html(site: Path, lang: str, chapter: str) -> str:
    """A chapter page's HTML, its English phrases' lang="en" marks taken out (test_accessibility_own checks them)."""
    return unmark((site / PREFIX[lang] / chapter / "index.html").read_text(encoding="utf-8"))


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_ascii_space_between_an_inserted_value_and_japanese(built_site, chapter):
    parser = Inserted()
    parser.feed(page_html(built_site, "ja", chapter))
    values = parser.values()
    assert len(values) > 10
    bad = [(b, v, a) for b, v, a in values if v.strip() and (
        (japanese.japanese(v.strip()[-1]) and a[:1] == " " and japanese.japanese(a[1:2]))
        or (japanese.japanese(v.strip()[0]) and b[-1:] == " " and japanese.japanese(b[-2:-1])))]
    assert bad == []


class Reading(HTMLParser):
    """What a reader reads on a page: the text of its running text (paragraphs, list items),
    figure and table captions, and table cells, each a string; scripts and styles left out."""

    WHERE = {"p", "li", "figcaption", "caption", "td", "th"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, list[str]]] = []  # (tag, its text so far), innermost last
        self.skip = 0
        self.read: list[tuple[str, str]] = []  # (tag, its whole text), once closed

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in self.WHERE:
            self.open.append((tag, []))

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        elif tag in self.WHERE and self.open and self.open[-1][0] == tag:
            done, text = self.open.pop()
            self.read.append((done, "".join(text)))
            if self.open:
                self.open[-1][1].extend(text)

    def handle_data(self, data):
        if not self.skip and self.open:
            self.open[-1][1].append(data)


def reading(site: Path, lang: str, chapter: str) -> list[tuple[str, str]]:
    parser = Reading()
    parser.feed(page_html(site, lang, chapter))
    return parser.read


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_chapter_page_shows_the_bare_placeholder_only_predictions_references_and_whole_sentences(built_site, lang, chapter):
    """Issue 38: before its first GPU capture a chapter reads whole. Every GPU-only value is a
    prediction in words, a cited specification, or its sentence stands without it: no claim is a
    hole, and no running text, caption or table cell shows "GPU capture needed"."""
    markdown = (ROOT / "docs" / lang / chapter / "index.md").read_text(encoding="utf-8")
    # a GPU claim without a comparison would show the placeholder until a GPU capture exists (the CPU's are committed)
    assert [(h.line, h.claim.text) for h in predictions.holes(markdown) if h.claim.scope == "cuda"] == []
    text = page_html(built_site, lang, chapter)
    assert "kb-needs-capture" not in text
    read = reading(built_site, lang, chapter)
    bare = {labels.label("needs_cuda", lang), labels.label("needs_cpu", lang)}
    assert [(tag, words) for tag, words in read if any(b in words for b in bare)] == []
    note = predictions.NOTE[lang]  # the parser reads what a reader reads: the predictions are there
    assert sum(f"({note})" in words for tag, words in read if tag in ("p", "li")) > 0
    assert text.count(f'<a class="kb-predicted-note" href="../instructors/#gpu-captures">({note})</a>') > 0


def test_the_placeholder_test_reads_what_a_reader_reads():
    parser = Reading()
    parser.feed("<p>One <span>GPU capture needed</span>.</p><ul><li>a <strong>b</strong></li></ul>"
                "<table><caption>c</caption><tr><td>GPU のキャプチャが必要</td></tr></table><script>x</script>")
    assert parser.read == [("p", "One GPU capture needed."), ("li", "a b"), ("caption", "c"), ("td", "GPU のキャプチャが必要")]


@pytest.mark.parametrize("lang", LANGS)
def test_chapter_1_shows_the_a100_traces_where_it_teaches_reading_kernel_rows(built_site, lang):
    """Step 2 shows the eager A100 trace, step 4 (before the timeline) the compiled one, each in
    the box that says whose trace it is, with its kernel table."""
    text = page_html(built_site, lang, "ch01")
    step2 = text.split('id="step-2-read"')[1].split('id="step-3-compiled"')[0]
    step4 = text.split('id="step-4-read-again"')[1].split('id="kb-figure-timeline"')[0]
    for section, kernel in ((step2, "<summary><code>vectorized_elementwise_kernel&#60;CUDAFunctor_add&#62;</code></summary>"),
                            (step4, "<td><code>triton_poi_fused_add_cos_sin_0</code></td><td>1</td>")):
        assert section.count('<div class="admonition abstract kb-recorded">') == 1
        box = section.split('<div class="admonition abstract kb-recorded">')[1]
        assert kernel in box and "NVIDIA A100 (A100-PG509-200)" in box and "HolisticTraceAnalysis" in box and "MIT" in box
        assert ("この本のスニペットではありません" if lang == "ja" else "not this book's snippets") in box
    assert "distribution_elementwise_grid_stride_kernel&#60;uniform_kernel&#62;" in step2
    assert re.search(r'title="NVIDIA A100 \(A100-PG509-200\)">4</span>', step2)  # the claimed launch count, as the page shows it
    assert '<code class="kb-kernel" title="triton_poi_fused_add_cos_sin_0">triton_poi_fused_add_cos_sin_0</code>' in step4
    assert "kb-error" not in step2 + step4


@pytest.mark.parametrize("lang", LANGS)
def test_every_cuda_tab_without_a_capture_links_to_the_kit_and_how_captures_are_merged(built_site, lang):
    book = load_book(ROOT)
    waiting = sorted(s for s, e in book.items() if e.cuda is None and not e.gpus and e.cpu is not None)
    seen = 0
    for chapter in CHAPTERS:
        text = page_html(built_site, lang, chapter)
        for example in text.split('<div class="kb-example" id="kb-')[1:]:  # each up to the next
            seen += 1
            assert example.count('class="kb-gpu-door"') == 1, example[:60]
    assert seen > 10 and len(waiting) == len(book)  # no snippet of the checkout has a GPU capture yet
    text = page_html(built_site, lang, "ch01")
    kit = f"https://github.com/kernelbook/kernelbook/blob/main/kit/capture_kit.{lang}.ipynb"
    assert text.count(f'<a class="kb-kit" href="{kit}">') == text.count('class="kb-gpu-door"') > 3
    assert f'href="https://colab.research.google.com/github/kernelbook/kernelbook/blob/main/kit/capture_kit.{lang}.ipynb"' in text
    door = "../instructors/#gpu-captures"  # each language's own instructors' page
    assert text.count(f'<a class="kb-door-how" href="{door}">') == text.count('class="kb-gpu-door"')
    instructors = (built_site / PREFIX[lang] / "instructors/index.html").read_text(encoding="utf-8")
    assert 'id="gpu-captures"' in instructors and f'<a class="kb-kit" href="{kit}">' in instructors


# ---------------------------------------------------------------- a crafted GPU capture in a temporary book


@pytest.fixture(scope="module")
def gpu_site(tmp_path_factory) -> Path:
    """A copy of the book with a crafted CUDA capture of ch01/size_sweep that bears its claims out, built once."""
    book = copy_project(tmp_path_factory.mktemp("gpu") / "book")

    def sweep(raw):
        raw["data"]["rows"][-1].update(eager_s=1.73e-3, compiled_s=1e-3)  # 1.73: rounded, so Japanese says 約
        raw["data"].update(compiled_bandwidth_bytes_per_s=1.8e12, copy_bandwidth_bytes_per_s=2e12)

    craft_cuda(book, "size_sweep", sweep)
    site = tmp_path_factory.mktemp("gpu-site")
    done = mkdocs_build(book, site)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return site


@pytest.mark.parametrize("lang, measured", [("en", ">1.7×</span>"), ("ja", ">約 1.7 倍</span>")])
def test_a_gpu_capture_replaces_the_prediction_with_the_measured_value(gpu_site, built_site, lang, measured):
    label = {"en": "the compiled version's speed relative to the eager one: ", "ja": "イーガー版に対するコンパイル版の速さ："}[lang]
    before = re.search(re.escape(label) + r"(.*?)</li>", page_html(built_site, lang, "ch01")).group(1)
    after = re.search(re.escape(label) + r"(.*?)</li>", page_html(gpu_site, lang, "ch01")).group(1)
    assert "kb-predicted" in before and predictions.NOTE[lang] in before
    assert "kb-predicted" not in after and measured in after
    example = page_html(gpu_site, lang, "ch01").split('<div class="kb-example" id="kb-ch01-size-sweep">')[1].split('class="kb-example"')[0]
    assert "kb-gpu-door" not in example and "NVIDIA H100 (crafted by a test)" in example
    instructors = unmark((gpu_site / PREFIX[lang] / "instructors/index.html").read_text(encoding="utf-8"))
    row = next(r for r in re.findall(r"<tr data-checked.*?</tr>", instructors) if "rows.-1.eager_s / rows.-1.compiled_s @cuda &gt;= 1.4" in r)
    state = {"en": "measured on NVIDIA H100 (crafted by a test): 1.7×", "ja": "NVIDIA H100 (crafted by a test) で計測: 約 1.7 倍"}[lang]
    assert 'data-checked="true"' in row and state in row
    old = next(r for r in re.findall(r"<tr data-checked.*?</tr>", (built_site / PREFIX[lang] / "instructors/index.html").read_text(encoding="utf-8"))
               if "rows.-1.eager_s / rows.-1.compiled_s @cuda &gt;= 1.4" in r)
    assert {"en": "predicted: not yet measured", "ja": "予想のみ"}[lang] in old


def test_a_notebook_shows_the_recorded_box_and_its_claims_too(traces):
    from kernelbook.site.notebooks import chapter as notebooks

    nb, problems = notebooks.render(f"# T\n\n{CH01_CLAIMS}\n\n[[kb:recorded hta-a100/triton_example]]\n", "en", "ch01", {},
                                    site_url="https://book/", recorded_dir=str(traces))
    text = "".join("".join(c["source"]) for c in nb["cells"])
    assert problems == [] and "kb-error" not in text
    assert "[HolisticTraceAnalysis](https://github.com/facebookresearch/HolisticTraceAnalysis)" in text
    assert "| <code>triton_poi_fused_add_cos_sin_0</code> | 1 |" in text
