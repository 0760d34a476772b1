"""The claim grammar and the directives built on it, on crafted captures: scopes, sessions,
lists, session against session, contains, units, ratios, strings and nulls, data blocks,
predictions, objectives and the instructors' lists. No mkdocs build, no torch."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from conftest import write
from kernelbook.common.records import Capture, Environment, Freshness, Kernel, Session
from kernelbook.site.prose import claims, objectives, units
from kernelbook.site.pages import twins
from kernelbook.site.book import Entry
from kernelbook.site.directives import Context, render_page
from kernelbook.site.directives.claims import HOLE
from kernelbook.site.prose.text import PageText
from kernelbook.common.snippets import Snippet

SID = "ch09/toy"


def capture(device: str, sessions=(), data=None, snippet: str = SID) -> Capture:
    """A capture made up for a test: sessions as lists of (kernel name, launches)."""
    made = tuple(Session(i, device, tuple(Kernel(n, c, float(c)) for n, c in ks), sum(c for _, c in ks)) for i, ks in enumerate(sessions))
    name = "NVIDIA H100 80GB HBM3" if device == "cuda" else "CPU (test)"
    return Capture(snippet, device, Freshness("0" * 64, 2, "2.13.0"),
                   Environment(device, name, "2.13.0", "3.11", "Linux", "2026-01-02T03:04:05Z"),
                   1.5, "printed\n", "", made, data)


@pytest.fixture
def snippet(tmp_path) -> Snippet:
    return Snippet(SID, write(tmp_path / "snippets/ch09/toy.py", "print('printed')\n"))


def book(snippet: Snippet, cpu: Capture | None = None, cuda: Capture | None = None) -> dict[str, Entry]:
    return {snippet.id: Entry(snippet, cuda, cpu, (), ())}


def page(markdown: str, entries, lang: str = "en") -> tuple[str, Context]:
    ctx = Context(lang=lang, page=f"{lang}/ch09/index.md", book=entries)
    return render_page(markdown, ctx), ctx


SWEEP = {"rows": [{"elements": 100, "eager_s": 2e-5, "compiled_s": 4e-5}, {"elements": 10**8, "eager_s": 3.4e-3, "compiled_s": 2e-3}],
         "copy_bandwidth_bytes_per_s": 3.9e12, "compiled_bandwidth_bytes_per_s": 3.4e12, "kernel": "triton_poi_fused_add_relu_0",
         "source": "def f(x):\n    return x < 1 & 2\n", "nothing": None, "sizes": [1, 2, 4, 8]}


# ---------------------------------------------------------------- the grammar


def test_a_claim_reads_snippet_sessions_arguments_scope_and_check():
    c = claims.parse("ratio", "ch01/s rows.-1.eager_s / rows.-1.compiled_s @cuda >= 1.4", "t")
    assert (c.snippet, c.args, c.scope, c.op, c.expected, c.session, c.until) == ("ch01/s", "rows.-1.eager_s / rows.-1.compiled_s", "cuda", ">=", "1.4", None, None)
    c = claims.parse("launches", "ch02/cos#0..7 == 1,2,3,4,5,6,7,8", "t")
    assert (c.snippet, c.session, c.until, c.is_range, c.expected) == ("ch02/cos", 0, 7, True, "1,2,3,4,5,6,7,8")
    c = claims.parse("launches", "ch03/sm#-1 > #0", "t")
    assert (c.session, c.op, c.expected) == (-1, ">", "#0")
    c = claims.parse("value", 'ch03/out kernel_names.0 ~ "fused add"', "t")
    assert (c.args, c.op, c.expected) == ("kernel_names.0", "~", "fused add")
    c = claims.parse("kernel", "ch01/x#1 ~ fused_sum @cpu", "t")
    assert (c.args, c.scope, c.session, c.op) == ("~ fused_sum", "cpu", 1, None)  # `~` picks a kernel, it is no check
    assert claims.parse("value", "ch01/x rows.0.eager_s @cpu", "t").scope == "cpu"  # display only, scoped


@pytest.mark.parametrize("kind, rest, says", [
    ("ratio", "ch01/s a / b @gpu > 1", "a scope is one @cuda or @cpu"),
    ("ratio", "ch01/s a @cuda / b > 1", "a scope is one @cuda or @cpu"),
    ("value", "ch01/s#1 rows", "does not read a profiling session"),
    ("launches", "ch01/s#x", "is not a session"),
    ("launches", "ch01/s#0..2 >= 1,2,3", "a range of sessions is a list"),
    ("value", "ch01/s rows.0.eager_s > #1", "compares with another profiling session"),
    ("launches", "ch01/s#0..1 == #1", "compares with another profiling session"),
    ("value", 'ch01/s key ~ ""', "`~` needs the text"),
    ("nope", "ch01/s", "unknown claim kind"),
])
def test_malformed_claims_say_what_to_write(kind, rest, says):
    with pytest.raises(claims.ClaimError, match=re.escape(says)):
        claims.parse(kind, rest, "[[kb:x]]")


# ---------------------------------------------------------------- scopes


def test_unscoped_claims_hold_on_every_fresh_capture_and_show_the_pages(snippet):
    cpu, cuda = capture("cpu", [[("aten::add", 1)]]), capture("cuda", [[("add_kernel", 1), ("k2", 1)]])
    out, ctx = page("[[kb:launches ch09/toy]]", book(snippet, cpu, cuda))
    assert ctx.errors == [] and '<span class="kb-value" title="cuda">2</span>' in out  # CUDA shown when fresh
    out, ctx = page("[[kb:launches ch09/toy == 1]]", book(snippet, cpu, cuda))
    assert ctx.errors == ["en/ch09/index.md: [[kb:launches ch09/toy == 1]]: the cuda capture toy.cuda-h100_80gb.json says 2 "
                          "(NVIDIA H100 80GB HBM3, torch 2.13.0, 2026-01-02T03:04:05Z)"]


def test_a_scoped_claim_is_checked_and_shown_only_from_its_devices_capture(snippet):
    cpu, cuda = capture("cpu", [[("aten::add", 1)]]), capture("cuda", [[("add_kernel", 1), ("k2", 1)]])
    # CPU shown on the page, but the @cuda claim reads the CUDA capture
    out, ctx = page("[[kb:launches ch09/toy @cuda == 2]] and [[kb:launches ch09/toy @cpu == 1]]", book(snippet, cpu, cuda))
    assert ctx.errors == [] and ctx.unchecked == []
    assert '<span class="kb-value" title="cuda">2</span> and <span class="kb-value" title="cpu">1</span>' in out
    # a scoped claim never looks at the other device: this would fail on the CPU capture
    out, ctx = page("[[kb:launches ch09/toy @cuda == 2]]", book(snippet, capture("cpu", [[("a", 1), ("b", 1), ("c", 1)]]), cuda))
    assert ctx.errors == []
    out, ctx = page("[[kb:launches ch09/toy @cuda == 3]]", book(snippet, cpu, cuda))
    assert ctx.errors == ["en/ch09/index.md: [[kb:launches ch09/toy @cuda == 3]]: the cuda capture toy.cuda-h100_80gb.json says 2 "
                          "(NVIDIA H100 80GB HBM3, torch 2.13.0, 2026-01-02T03:04:05Z)"]


@pytest.mark.parametrize("lang, cuda_text, cpu_text, predicted", [
    ("en", "GPU capture needed", "CPU capture needed", "≥ 1.4× <span class=\"kb-predicted-note\">(predicted; not yet measured on a GPU)</span>"),
    ("ja", "GPU のキャプチャが必要", "CPU のキャプチャが必要", "1.4 倍以上 <span class=\"kb-predicted-note\">(予想、GPU では未計測)</span>")])
def test_without_its_devices_capture_a_scoped_claim_is_unchecked_and_says_what_it_needs(snippet, lang, cuda_text, cpu_text, predicted):
    """A comparison is shown as the prediction it is (site/prose/predictions.py); a claim that makes
    none shows the placeholder, and the build's note says so."""
    cpu = capture("cpu", data=SWEEP)
    text = "[[kb:ratio ch09/toy rows.-1.eager_s / rows.-1.compiled_s @cuda >= 1.4]], [[kb:value ch09/toy nothing @cuda]]"
    out, ctx = page(text, book(snippet, cpu), lang)
    assert ctx.errors == []  # not a failure, and null is never read for it
    assert out.count('<span class="kb-value kb-predicted" title="') == 1 and predicted + "</span>" in out
    assert out.count(f'<span class="kb-value kb-needs-capture" title="cuda">{cuda_text}</span>') == 1
    assert "1.7" not in out  # never the CPU's value in its place
    assert ctx.unchecked == [
        f"{lang}/ch09/index.md: [[kb:ratio ch09/toy rows.-1.eager_s / rows.-1.compiled_s @cuda >= 1.4]]: unchecked on cuda (no fresh cuda capture of ch09/toy)",
        f"{lang}/ch09/index.md: [[kb:value ch09/toy nothing @cuda]]: unchecked on cuda (no fresh cuda capture of ch09/toy); {HOLE}",
    ]
    cuda = capture("cuda", [[("k", 1)]])
    out, ctx = page("[[kb:launches ch09/toy @cpu == 1]] [[kb:launches ch09/toy @cpu]]", book(snippet, cuda=cuda), lang)
    assert cpu_text in out and len(ctx.unchecked) == 2 and ctx.errors == []
    assert ("(predicted; not yet measured on a CPU)" if lang == "en" else "(予想、CPU では未計測)") in out


# ---------------------------------------------------------------- sessions


def test_sessions_by_number_and_range(snippet):
    cpu = capture("cpu", [[("a", 1)], [("a", 1), ("b", 1)], [("a", 2), ("c", 2)], [("d", 8)]])
    out, ctx = page("[[kb:launches ch09/toy#0 == 1]] [[kb:launches ch09/toy#-2 == 4]] [[kb:launches ch09/toy]] "
                    "[[kb:kernels ch09/toy#1]] [[kb:kernel ch09/toy#2 ~ c]] [[kb:launches ch09/toy#0..3 == 1,2,4,8]]",
                    book(snippet, cpu))
    assert ctx.errors == []
    values = re.findall(r'<(?:span|code) class="kb-(?:value|kernel)"[^>]*>([^<]*)<', out)
    assert values == ["1", "4", "8", "a, b", "c", "1, 2, 4, 8"]
    out, ctx = page("[[kb:launches ch09/toy#0..3]]", book(snippet, cpu), "ja")
    assert ">1、2、4、8<" in out


@pytest.mark.parametrize("text, says", [
    ("[[kb:launches ch09/toy#0..3 == 1,2,4,9]]", "says 1, 2, 4, 8"),
    ("[[kb:launches ch09/toy#0..3 == 1,2,4]]", "says 1, 2, 4, 8"),
    ("[[kb:launches ch09/toy#0..3 != 1,2,4,8]]", "says 1, 2, 4, 8"),
    ("[[kb:launches ch09/toy#4]]", "has 4 profiling session(s): #4 is not one of them"),
    ("[[kb:launches ch09/toy#2..5]]", "#2..5 is not a range of them"),
    ("[[kb:launches ch09/toy#0 > #3]]", "says 1 and session #3 says 8"),
])
def test_session_checks_that_fail_name_what_the_capture_says(snippet, text, says):
    cpu = capture("cpu", [[("a", 1)], [("a", 1), ("b", 1)], [("a", 2), ("c", 2)], [("d", 8)]])
    _, ctx = page(text, book(snippet, cpu))
    assert len(ctx.errors) == 1 and ctx.errors[0].startswith(f"en/ch09/index.md: {text}: ") and says in ctx.errors[0], ctx.errors


def test_session_against_session_of_the_same_capture(snippet):
    cpu = capture("cpu", [[("a", 3)], [("b", 1)]])
    _, ctx = page("[[kb:launches ch09/toy#0 > #1]] [[kb:launches ch09/toy#1 == #-1]] [[kb:time ch09/toy#0 > #1]]", book(snippet, cpu))
    assert ctx.errors == []


# ---------------------------------------------------------------- values: contains, units, ratios, strings, nulls


def test_contains_reads_strings_and_lists_of_strings(snippet):
    cpu = capture("cpu", [[("graph_0_cpp_fused_add_relu_0", 1)]], data=SWEEP)
    _, ctx = page('[[kb:value ch09/toy kernel ~ _fused_add_relu_]] [[kb:kernels ch09/toy ~ cpp_fused]] [[kb:value ch09/toy source ~ "return x"]]',
                  book(snippet, cpu))
    assert ctx.errors == []
    _, ctx = page("[[kb:value ch09/toy kernel ~ mul]] [[kb:value ch09/toy sizes ~ 1]]", book(snippet, cpu))
    assert "says triton_poi_fused_add_relu_0" in ctx.errors[0]
    assert "cannot compare list [1, 2, 4, 8] with '1'" in ctx.errors[1]


GENERATED = ("@triton.jit\ndef triton_poi_fused_add_relu_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
             "    xoffset = tl.program_id(0) * XBLOCK\n    xmask = xindex < xnumel\n    tmp4 = triton_helpers.maximum(tmp3, tmp2)\n")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_contains_on_generated_code_quotes_the_captures_own_line(snippet, lang):
    """`~` on a multi-line string (code a snippet captured) shows the line that holds the text, from the
    capture; one-line strings still show whole. Scoped @cuda, a CPU-only book shows the placeholder."""
    cuda = capture("cuda", data={"kernel": GENERATED, "name": "triton_poi_fused_add_relu_0"})
    text = ('[[kb:value ch09/toy kernel @cuda ~ "xmask = "]] | [[kb:value ch09/toy kernel @cuda ~ triton_helpers.maximum]] | '
            "[[kb:value ch09/toy name ~ _fused_]]")
    out, ctx = page(text, book(snippet, None, cuda), lang)
    assert ctx.errors == []
    shown = [html.unescape(v) for v in re.findall(r'<code class="kb-value" title="cuda">([^<]*)</code>', out)]  # inert: character references
    assert shown == ["xmask = xindex < xnumel", "tmp4 = triton_helpers.maximum(tmp3, tmp2)", "triton_poi_fused_add_relu_0"]
    _, ctx = page('[[kb:value ch09/toy kernel @cuda ~ "xmask = offsets"]]', book(snippet, None, cuda), lang)
    assert len(ctx.errors) == 1 and "says @triton.jit …" in ctx.errors[0]  # the failure names the text, not all of it
    cpu = capture("cpu", data={"kernel": 'extern "C" void kernel()\n{\n}\n'})
    out, ctx = page(text.split(" | ")[0], book(snippet, cpu), lang)
    assert ctx.errors == [] and "<code>xmask &#61; …</code>" in out and "extern" not in out  # the prediction: the text it looks for
    assert ("(predicted; not yet measured on a GPU)" if lang == "en" else "(予想、GPU では未計測)") in out


@pytest.mark.parametrize("key, value, shown", [
    ("copy_bandwidth_bytes_per_s", 3.9e12, "3.9 TB/s"),
    ("peak_flop_per_s", 3.12e14, "312 TFLOP/s"),
    ("copy.bytes_per_s", 1.21e10, "12 GB/s"),  # a key that is the unit itself: not seconds
    ("flop_per_s", 5.41e10, "54.1 GFLOP/s"),
    ("tmp_bytes", 4 * 2**20, "4 MiB"),
    ("hit_share", 0.853, "85%"),
    ("eager_s", 3.4e-3, "3.40 ms"),
    ("elements", 2147483648, "2,147,483,648"),
    ("speedup", 1.23456, "1.23"),
])
def test_values_are_written_by_their_keys_suffix_in_both_languages(snippet, key, value, shown):
    data: dict = {}
    *outer, last = key.split(".")
    inner = data
    for part in outer:
        inner = inner.setdefault(part, {})
    inner[last] = value
    cpu = capture("cpu", data=data)
    for lang in ("en", "ja"):
        out, ctx = page(f"[[kb:value ch09/toy {key}]]", book(snippet, cpu), lang)
        assert ctx.errors == [] and f">{shown}</span>" in out


def test_the_figures_and_the_claims_spell_bandwidth_alike():
    from kernelbook.site.figures import sweep

    assert units.by_key("copy_bandwidth_bytes_per_s", 3.9e12) == units.format_bandwidth(3.9e12) == "3.9 TB/s"
    assert sweep.format_bandwidth is units.format_bandwidth


@pytest.mark.parametrize("ratio, en, ja", [(13783.2, "13,783×", "約 13,783 倍"), (1.43, "1.4×", "約 1.4 倍"), (0.0712, "0.07×", "約 0.07 倍")])
def test_ratios_in_each_languages_words(snippet, ratio, en, ja):
    cpu = capture("cpu", data={"a": ratio, "b": 1.0})
    for lang, shown in (("en", en), ("ja", ja)):
        out, ctx = page("[[kb:ratio ch09/toy a / b]]", book(snippet, cpu), lang)
        assert ctx.errors == [] and f">{shown}</span>" in out


def test_strings_are_code_and_escaped(snippet):
    cpu = capture("cpu", data={"name": "f<int> & <script>"})
    out, ctx = page("[[kb:value ch09/toy name]]", book(snippet, cpu))
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(out, "html.parser")
    shown = soup.select("code.kb-value")
    assert ctx.errors == [] and len(shown) == 1 and shown[0].get("title") == "cpu"
    assert shown[0].get_text() == "f<int> & <script>" and soup.find("script") is None and soup.find("int") is None


def test_null_or_missing_values_fail_naming_page_directive_and_key(snippet):
    cpu = capture("cpu", data=SWEEP)
    _, ctx = page("[[kb:value ch09/toy nothing]] [[kb:ratio ch09/toy rows.0.eager_s / absent > 1]]", book(snippet, cpu))
    assert ctx.errors == [
        "en/ch09/index.md: [[kb:value ch09/toy nothing]]: the cpu capture toy.cpu.json of ch09/toy holds null at 'nothing': a claim needs a value",
        "en/ch09/index.md: [[kb:ratio ch09/toy rows.0.eager_s / absent > 1]]: the cpu capture toy.cpu.json of ch09/toy has no value at 'absent'",
    ]


# ---------------------------------------------------------------- [[kb:data]]


def test_data_block_shows_the_string_in_each_devices_language(snippet):
    cpu = capture("cpu", data={"code": "void cpp_fused() {}\n"})
    cuda = capture("cuda", data={"code": "def triton_poi():\n    pass\n"})
    out, ctx = page("[[kb:data ch09/toy code python@cuda,cpp@cpu]]\n", book(snippet, cpu, cuda))
    assert ctx.errors == []
    assert out.index('=== "CUDA"') < out.index("```python\n    def triton_poi():") < out.index('=== "CPU"') < out.index("```cpp\n    void cpp_fused() {}")
    out, ctx = page("[[kb:data ch09/toy code cpp]]\n", book(snippet, cpu))
    assert ctx.errors == [] and "This is a CPU capture" in out and "```cpp\nvoid cpp_fused() {}\n```" in out and "CUDA" not in out.split("```cpp")[1]


@pytest.mark.parametrize("text, data, says", [
    ("[[kb:data ch09/toy code]]", {"code": "x"}, "write [[kb:data SNIPPET KEY LANG]]"),
    ("[[kb:data ch09/toy code python@gpu]]", {"code": "x"}, "one per device"),
    ("[[kb:data ch09/toy code python@cuda]]", {"code": "x"}, "no code language for a cpu capture"),
    ("[[kb:data ch09/toy code text]]", {"code": None}, "holds null at 'code'"),
    ("[[kb:data ch09/toy code text]]", {"code": 3}, "code in the cpu capture toy.cpu.json is int, not text"),
    ("[[kb:data ch09/toy other text]]", {"code": "x"}, "has no value at 'other'"),
])
def test_data_block_errors_name_the_directive(snippet, text, data, says):
    _, ctx = page(text + "\n", book(snippet, capture("cpu", data=data)))
    assert len(ctx.errors) == 1 and ctx.errors[0].startswith(f"en/ch09/index.md: {text}: ") and says in ctx.errors[0], ctx.errors


# ---------------------------------------------------------------- [[kb:predict]]

PREDICT = """[[kb:predict ch09/toy#0 launches == 3]]
    How many kernels does `f` launch?

    Think about it.
    ---
    One per **elementwise** operation.

After.
"""


@pytest.mark.parametrize("lang, question, answer", [("en", "Question 1", "Answer"), ("ja", "問 1", "答え")])
def test_predict_shows_the_question_and_a_collapsed_answer_with_value_explanation_and_provenance(snippet, lang, question, answer):
    cpu = capture("cpu", [[("a", 1), ("b", 2)], [("c", 1)]])
    out, ctx = page(PREDICT, book(snippet, cpu), lang)
    assert ctx.errors == [] and ctx.unchecked == []
    head, rest = out.split("\n", 1)
    assert head == f'!!! question kb-predict "{question}"'
    assert rest.startswith("\n    How many kernels does `f` launch?\n\n    Think about it.\n\n")
    assert f'    ??? success "{answer}"\n' in out  # collapsed: pymdownx.details, no script
    assert "        One per **elementwise** operation." in out  # the explanation, inside the answer only
    assert out.index("<strong>3</strong>") < out.index("One per") < out.index("CPU (test) · torch 2.13.0")
    assert '{: .kb-answer data-device="cpu" }' in out and "---" not in out
    assert out.endswith("\nAfter.\n")


def test_predicts_are_numbered_on_their_page(snippet):
    cpu = capture("cpu", [[("a", 3)]])
    out, _ = page(PREDICT.replace("#0 ", " ") * 2, book(snippet, cpu))
    assert '"Question 1"' in out and '"Question 2"' in out


def test_a_predict_the_capture_contradicts_fails_naming_page_and_question(snippet):
    cpu = capture("cpu", [[("a", 1), ("b", 1)]])
    _, ctx = page(PREDICT, book(snippet, cpu))
    assert ctx.errors == ["en/ch09/index.md: [[kb:predict ch09/toy#0 launches == 3]]: the cpu capture toy.cpu.json says 2 "
                          "(CPU (test), torch 2.13.0, 2026-01-02T03:04:05Z)"]


def test_a_scoped_predict_without_its_capture_waits_for_it(snippet):
    cpu = capture("cpu", [[("a", 1)]])
    out, ctx = page(PREDICT.replace("launches == 3", "launches @cuda == 2"), book(snippet, cpu))
    assert ctx.errors == [] and "The expected answer: **2 (predicted; not yet measured on a GPU)**" in out and "One per" in out
    assert "{: .kb-answer .kb-predicted }" in out and "CPU (test)" not in out
    assert ctx.unchecked == ["en/ch09/index.md: [[kb:predict ch09/toy#0 launches @cuda == 2]]: unchecked on cuda (no fresh cuda capture of ch09/toy)"]


@pytest.mark.parametrize("text, says", [
    ("[[kb:predict ch09/toy launches]]\n    Q?\n", "a prediction needs the expected answer"),
    ("[[kb:predict ch09/toy kernel ~ a]]\n    Q?\n", "KIND one of launches, kernels, time, device, value, ratio"),
    ("[[kb:predict ch09/toy launches == 1]]\nnot indented\n", "the question goes below it"),
])
def test_malformed_predicts_say_what_to_write(snippet, text, says):
    _, ctx = page(text, book(snippet, capture("cpu", [[("a", 1)]])))
    assert len(ctx.errors) == 1 and says in ctx.errors[0], ctx.errors


def test_twins_compare_the_predict_line_not_its_text():
    ja = "# T\n\n[[kb:predict ch09/toy launches == 1]]\n    いくつ?\n"
    en = "# T\n\n[[kb:predict ch09/toy launches == 1]]\n    How many?\n    ---\n    One.\n"
    assert twins.compare("ch09/index.md", ja, en) == []
    problems = twins.compare("ch09/index.md", ja, en.replace("== 1", "== 2"))
    assert len(problems) == 1 and "[[kb:predict ch09/toy launches == 2]]" in problems[0]


# ---------------------------------------------------------------- objectives


def test_objectives_come_right_after_the_title_under_a_label():
    md = "```md\n# not the title\n```\n# Chapter 9 { #top }\n\nText.\n"
    block = objectives.render(["Count `kernels`.", "Time them."], "ja")
    out = objectives.after_title(md, block)
    assert out.index("# Chapter 9") < out.index('<p class="kb-objectives-label">この章の目標</p>') < out.index("Text.")
    assert "- Count `kernels`.\n- Time them.\n" in out and "# not the title\n```\n# Chapter 9" in out
    assert 'class="kb-objectives" markdown' in block and "<h" not in block  # a label, not a heading
    assert objectives.render([], "en") == "" and objectives.after_title(md, "") == md
    assert "In this chapter you will" in objectives.render(["x"], "en")


@pytest.mark.parametrize("meta", [{"objectives": "one string"}, {"objectives": []}, {"objectives": ["ok", 3]}, {"objectives": ["ok", " "]}])
def test_objectives_must_be_a_list_of_sentences(meta):
    with pytest.raises(ValueError, match="must be a list of sentences"):
        objectives.read(meta)


def test_an_objective_yaml_reads_as_a_mapping_says_to_quote_it():
    from kernelbook.site.prose.text import front_matter

    meta = front_matter("---\nobjectives:\n  - Read a kernel: its programs.\n---\n# T\n")[0]
    assert meta["objectives"] == [{"Read a kernel": "its programs."}]  # what YAML makes of it
    with pytest.raises(ValueError, match='put an objective that holds ": " in double quotes'):
        objectives.read(meta)
    quoted = front_matter('---\nobjectives:\n  - "Read a kernel: its programs."\n---\n# T\n')[0]
    assert objectives.read(quoted) == ["Read a kernel: its programs."]


def test_twins_must_have_as_many_objectives():
    ja = "---\nobjectives:\n  - 一つ目\n  - 二つ目\n---\n# T\n"
    en = "---\nobjectives:\n  - First\n---\n# T\n"
    assert twins.compare("ch09/index.md", ja, en) == ["docs/{ja,en}/ch09/index.md: objectives differ in number: ja 2 vs en 1"]
    assert twins.compare("ch09/index.md", ja, ja.replace("一つ目", "First")) == []


# ---------------------------------------------------------------- the instructors' page


def test_instructors_lists_objectives_and_every_device_scoped_claim_with_its_status(snippet):
    chapter = ("---\nobjectives:\n  - Count kernels.\n---\n# Chapter 9\n\n## Sizes { #sizes }\n\n"
               "Fast: [[kb:launches ch09/toy @cuda == 2]]; anywhere [[kb:launches ch09/toy]].\n\n```md\n[[kb:launches ch09/toy @cuda == 5]]\n```\n\n"
               "## Exercises { #exercises }\n\n[[kb:predict ch09/toy launches @cpu == 1]]\n    How many?\n")
    pages = [PageText("ch09/index.md", "https://book/en/ch09/", chapter)]
    cpu = capture("cpu", [[("a", 1)]])
    ctx = Context(lang="en", page="en/instructors.md", book=book(snippet, cpu), pages=lambda lang: pages)
    out = render_page("[[kb:objectives]]\n\n[[kb:device-checks]]\n", ctx)
    assert ctx.errors == []
    assert '<a href="https://book/en/ch09/">Chapter 9</a>' in out and "- Count kernels." in out
    rows = re.findall(r'<tr data-checked="(\w+)" data-gpu="[^"]*"><td><a href="([^"]+)">[^<]*</a></td><td><code>([^<]*)</code></td><td>([^<]*)</td><td>([^<]*)</td></tr>', out)
    assert rows == [
        ("false", "https://book/en/ch09/#sizes", "&#91;&#91;kb:launches ch09/toy @cuda == 2]]", "2", "predicted: not yet measured (no fresh CUDA capture)"),
        ("true", "https://book/en/ch09/#exercises", "&#91;&#91;kb:predict ch09/toy launches @cpu == 1]]", "1", "measured on CPU (test): 1 (torch 2.13.0, 2026-01-02)"),
    ]
    assert "1 of the 2 device-scoped claims and questions are checked now." in out
    assert "[[kb:" not in out  # listed as text, never evaluated again on this page


def test_read_pages_gives_every_page_but_the_index_with_its_url(tmp_path):
    from kernelbook.site.prose.sections import read_pages

    write(tmp_path / "index.md", "# Home\n")
    write(tmp_path / "ch01" / "index.md", "# One\n")
    write(tmp_path / "instructors.md", "# Teachers\n")
    found = read_pages(Path(tmp_path), "https://book/en")
    assert [(p.rel, p.url) for p in found] == [("index.md", "https://book/en/"), ("ch01/index.md", "https://book/en/ch01/")]


# ---------------------------------------------------------------- claims that could never fail


@pytest.mark.parametrize("text", [
    "[[kb:launches ch09/toy != nan]]", "[[kb:launches ch09/toy < inf]]", "[[kb:launches ch09/toy >= -inf]]",
    "[[kb:time ch09/toy#0 <= Infinity @cuda]]", "[[kb:value ch09/toy sizes == 1,2,NaN,8]]",
    "[[kb:launches ch09/toy == 99 == 1]]", "[[kb:time ch09/toy#0 < 5 > #1]]",
    "[[kb:kernel ch09/toy ~ ]]", "[[kb:kernel ch09/toy ~ @cuda]]", "[[kb:kernel ch09/toy]]",
    "[[kb:launches ch09/toy whatever == 1]]", "[[kb:value ch09/toy @cpu]]", "[[kb:ratio ch09/toy > 1]]",
])
def test_a_claim_that_could_never_fail_is_an_error_naming_page_and_line(snippet, text):
    """Every value passes `!= nan`, `< inf`, `>= -inf`; a second check, an empty pattern or ignored words check nothing.
    Refused as written, even scoped to a device without a capture."""
    cpu = capture("cpu", [[("a", 1)], [("b", 1)]], data=SWEEP)
    _, ctx = page(f"Intro.\n\nIt launches {text} here.\n", book(snippet, cpu))
    assert len(ctx.errors) == 1 and ctx.errors[0].startswith(f"en/ch09/index.md:3: {text}: "), ctx.errors
    _, ctx = page(f"[[kb:predict {text[5:].split(None, 1)[1][:-2].replace('ch09/toy', 'ch09/toy launches', 1)}]]\n    Q?\n",
                  book(snippet, cpu)) if text.startswith("[[kb:launches") else (None, None)
    if ctx is not None:  # the same check as a prediction's answer
        assert len(ctx.errors) == 1 and ctx.errors[0].startswith("en/ch09/index.md:1: [[kb:predict "), ctx.errors


def test_claims_that_can_fail_still_read():
    for kind, rest in [("launches", "ch01/s == 1"), ("value", "ch01/s rows.0.n <= 1e3"), ("kernel", "ch01/s#1 ~ fused @cpu"),
                       ("ratio", "ch01/s a / b >= 0.5"), ("launches", "ch01/s#0..2 == 1,2,3"), ("device", "ch01/s ~ H100")]:
        claims.parse(kind, rest, "t")


# ---------------------------------------------------------------- directives inside a prediction


BODY_CLAIMS = """[[kb:predict ch09/toy#0 launches == 2]]
    How many? The first is [[kb:kernel ch09/toy#0 ~ a]].
    ---
    Two: [[kb:kernel ch09/toy#0 ~ b]], then [[kb:launches ch09/toy#1]] in the next session; `[[kb:kernel as written]]`.
"""


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_directives_in_a_predictions_question_and_answer_render_on_the_page_and_in_the_notebook(snippet, lang):
    from kernelbook.site.directives import render_notebook

    cpu = capture("cpu", [[("a", 1), ("b", 1)], [("c", 7)]])
    out, ctx = page(BODY_CLAIMS, book(snippet, cpu), lang)
    assert ctx.errors == [], ctx.errors
    assert 'The first is <code class="kb-kernel" title="a">a</code>.' in out
    assert 'Two: <code class="kb-kernel" title="b">b</code>, then <span class="kb-value" title="cpu">7</span>' in out
    assert "`[[kb:kernel as written]]`" in out and out.count("[[kb:") == 1  # inline code shows it as written
    nctx = Context(lang=lang, page=f"{lang}/ch09/index.md", book=book(snippet, cpu), url="https://example.org/ch09/")
    nb = render_notebook(BODY_CLAIMS, nctx)
    assert nctx.errors == [] and "The first is <code>a</code>." in nb and "Two: <code>b</code>, then 7 in" in nb
    assert nb.count("[[kb:") == 1


def test_a_false_claim_in_a_predictions_answer_fails_naming_page_and_line(snippet):
    cpu = capture("cpu", [[("a", 1), ("b", 1)], [("c", 7)]])
    _, ctx = page("Intro.\n\n" + BODY_CLAIMS.replace("~ b]]", "~ fused_zzz]]").replace("#1]]", "#1 == 8]]"), book(snippet, cpu))
    assert len(ctx.errors) == 2, ctx.errors
    assert ctx.errors[0].startswith("en/ch09/index.md: [[kb:kernel ch09/toy#0 ~ fused_zzz]]: no kernel containing 'fused_zzz'")
    assert ctx.errors[1].startswith("en/ch09/index.md: [[kb:launches ch09/toy#1 == 8]]: the cpu capture toy.cpu.json says 7")
    _, ctx = page("Intro.\n\n" + BODY_CLAIMS.replace("[[kb:launches ch09/toy#1]]", "[[kb:launches ch09/toy#1"), book(snippet, cpu))
    assert ctx.errors == ["en/ch09/index.md:6: [[kb:launches ch09/toy#1 in the next session; `: "
                          "a directive left unclosed: end it with ]] on the same line (or show it as `code`)"], ctx.errors


@pytest.mark.parametrize("lang, session, says", [
    ("en", "#0", "(profiler session 1 of 3)"), ("en", "#-1", "(profiler session 3 of 3)"), ("en", "", "(profiler session 3 of 3)"),
    ("en", "#1", "(profiler session 2 of 3)"), ("ja", "#0", "(プロファイラのセッション 1 / 3)"), ("ja", "#-2", "(プロファイラのセッション 2 / 3)"),
])
def test_an_answer_names_its_profiler_session_counting_from_one(snippet, lang, session, says):
    """`#0` is the first of the capture's sessions: the reader reads "session 1 of 3", never "0 of 3"."""
    cpu = capture("cpu", [[("a", 1)], [("b", 1)], [("c", 1)]])
    out, ctx = page(f"[[kb:predict ch09/toy{session} launches == 1]]\n    Q?\n", book(snippet, cpu), lang)
    assert ctx.errors == [] and says in out, out
