"""The renderer: executed examples, kernel panels, notices, claims, twins. No mkdocs, no torch."""

from __future__ import annotations

import dataclasses
import html
import re

import pytest

from conftest import ROOT
from kernelbook.site.prose import claims
from kernelbook.site.pages import twins
from kernelbook.site.book import Entry, load_book
from kernelbook.common.records import Kernel, Session, load
from kernelbook.site.directives import Context, fence, render_page

BOOK = load_book(ROOT)
EAGER = ROOT / "snippets/ch01/captures/eager_profile.cpu.json"


def ctx(lang: str = "en", book=None) -> Context:
    return Context(lang=lang, page="en/test.md", book=book if book is not None else BOOK,
                   recorded_dir=str(ROOT / "snippets" / "recorded"))  # the traces recorded elsewhere, as a build reads them


def with_kernels(capture, names: list[str], device: str = "cpu"):
    session = Session(0, device, tuple(Kernel(n, 1, 1.0) for n in names), len(names))
    return dataclasses.replace(capture, sessions=(session,), device=device,
                               environment=dataclasses.replace(capture.environment, device_kind=device, device_name="NVIDIA H200" if device == "cuda" else capture.environment.device_name))


def entry_with(cpu=None, cuda=None) -> Entry:
    snippet = BOOK["ch01/eager_profile"].snippet
    return Entry(snippet, cuda, cpu, (), ())


def output_block(rendered: str) -> list[str]:
    """The lines of the fenced block right under the example's "Output" label, as the page shows them."""
    label = '<p class="kb-label">Output</p>' if '<p class="kb-label">Output</p>' in rendered else "Output\n    {: .kb-label }"  # in a tab
    after = rendered.split(label, 1)[1].lstrip("\n")
    fence, rest = after.split("\n", 1)
    indent = fence[:len(fence) - len(fence.lstrip())]  # inside a tab (a CPU capture beside the CUDA tab that waits): indented
    assert re.fullmatch(r"`{3,}text", fence.strip()), f"no text block under the output label: {fence!r}"
    return [line.removeprefix(indent) for line in rest.split("\n" + fence[:-4] + "\n", 1)[0].split("\n")]


def test_run_block_shows_code_output_kernels_and_provenance():
    c = ctx()
    out = render_page("[[kb:run ch01/eager_profile]]\n", c)
    assert c.errors == []
    source = (ROOT / "snippets/ch01/eager_profile.py").read_text()
    assert source.strip().splitlines()[-1] in out  # the file itself, included
    # what the program printed, every line, in order, in the output block
    printed = load(EAGER).stdout.rstrip("\n").split("\n")
    assert len(printed) > 5 and output_block(out) == printed
    assert 'title="snippets/ch01/eager_profile.py"' in out
    assert "aten::add" in out and "aten::clamp_min" in out  # kernel panel
    assert "Kernels launched (CPU)" in out
    assert 'class="kb-provenance"' in out and "torch 2." in out
    assert "This is a CPU capture" in out  # the notice, in the page's language


def test_notice_is_in_the_pages_language():
    c = ctx("ja")
    out = render_page("[[kb:run ch01/eager_profile]]\n", c)
    assert "CPU での実行結果です" in out and "起動されたカーネル" in out


def test_kernel_names_with_angle_brackets_are_escaped():
    cap = with_kernels(load(EAGER), ["void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, A&B>(int)"], "cuda")
    book = {"ch01/eager_profile": entry_with(cuda=cap)}
    c = ctx(book=book)
    out = render_page("[[kb:run ch01/eager_profile]]\n", c)
    assert "CUDAFunctor_add<float>, A&B>(int)" in html.unescape(out)  # shown as written...
    assert "<float>" not in out and "A&B" not in out  # ...never as markup
    assert "This is a CPU capture" not in out  # a CUDA capture needs no notice


def test_both_captures_make_tabs_cuda_first():
    cpu = load(EAGER)
    cuda = with_kernels(cpu, ["void add_kernel<float>(float*)", "void clamp_kernel(float*)"], "cuda")
    c = ctx(book={"ch01/eager_profile": entry_with(cpu=cpu, cuda=cuda)})
    out = render_page("[[kb:run ch01/eager_profile]]\n", c)
    assert out.index('=== "CUDA"') < out.index('=== "CPU"')


def test_claim_inserts_value_from_the_shown_capture():
    c = ctx()
    out = render_page("eager launches [[kb:launches ch01/eager_profile == 2]] kernels: [[kb:kernel ch01/eager_profile ~ clamp]]", c)
    assert c.errors == []
    assert re.search(r">2</span> kernels", out)
    assert "aten::clamp_min" in html.unescape(out)


def test_contradicted_claim_names_page_claim_and_capture():
    cap = with_kernels(load(EAGER), ["aten::add", "aten::clamp_min", "aten::mul"])
    c = ctx(book={"ch01/eager_profile": entry_with(cpu=cap)})
    render_page("[[kb:launches ch01/eager_profile == 2]]", c)
    assert len(c.errors) == 1
    assert "en/test.md" in c.errors[0] and "[[kb:launches ch01/eager_profile == 2]]" in c.errors[0]
    assert "cpu capture eager_profile.cpu.json says 3" in c.errors[0]


def test_claim_must_hold_on_every_fresh_capture():
    cpu = load(EAGER)
    cuda = with_kernels(cpu, ["k1", "k2", "k3"], "cuda")
    c = ctx(book={"ch01/eager_profile": entry_with(cpu=cpu, cuda=cuda)})
    render_page("[[kb:launches ch01/eager_profile == 2]]", c)
    assert c.errors and "cuda capture eager_profile.cuda-h200.json says 3" in c.errors[0]


def test_missing_kernel_and_unknown_snippet_are_errors():
    c = ctx()
    render_page("[[kb:kernel ch01/eager_profile ~ triton_poi]]\n\n[[kb:run ch01/nope]]\n\n[[kb:bogus x]]\n", c)
    assert any("no kernel containing 'triton_poi'" in e for e in c.errors)
    assert any("no snippet 'ch01/nope'" in e for e in c.errors)
    assert any("[[kb:bogus x]]: not a directive" in e for e in c.errors)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_value_and_ratio_claims(lang):
    """The numbers a reader sees, worked out here from the capture's results, in each language's words."""
    first_call = load(ROOT / "snippets/ch01/captures/first_call.cpu.json").data
    sweep = load(ROOT / "snippets/ch01/captures/size_sweep.cpu.json").data
    ratio = first_call["first_call_s"] / first_call["later_call_s"]
    assert ratio >= 10  # the claim below says so: whole numbers with separators
    whole = f"{round(ratio):,}"
    expected_ratio = f"{whole}×" if lang == "en" else f"約 {whole} 倍"
    elements = f'{sweep["rows"][-1]["elements"]:,}'
    c = ctx(lang)
    out = render_page("[[kb:ratio ch01/first_call first_call_s / later_call_s > 10]] [[kb:value ch01/size_sweep rows.-1.elements]]", c)
    assert c.errors == []
    shown = re.findall(r'<span class="kb-value" title="cpu">([^<]*)</span>', out)
    assert shown == [expected_ratio, elements]


def test_fence_outlasts_backticks_in_output():
    assert fence("a ``` b", "text").startswith("````text")


def test_twins_compare_flags_anchor_and_directive_drift():
    ja = "# T\n\n## 融合 { #fusion }\n\n[[kb:run ch01/a]]\n"
    en = "# T\n\n## Fusion { #fusion-x }\n\n[[kb:run ch01/b]]\n"
    problems = twins.compare("ch01/index.md", ja, en)
    assert any("anchors differ" in p for p in problems)
    assert any("snippet includes/claims differ" in p and "ch01/a" in p for p in problems)
    assert twins.compare("x.md", "## A\n", "## A\n")[0].startswith("docs/ja/x.md: heading without an explicit anchor")


def test_committed_twins_agree():
    assert twins.check_tree(ROOT / "docs") == []


def test_twin_missing_is_reported(tmp_path):
    (tmp_path / "ja").mkdir()
    (tmp_path / "en").mkdir()
    (tmp_path / "ja" / "only.md").write_text("# x\n")
    assert twins.check_tree(tmp_path) == ["docs/ja/only.md has no English twin docs/en/only.md"]


def test_chapter_claims_hold_against_committed_captures():
    """Every claim in both chapters checks out against the captures the site shows."""
    for lang in ("ja", "en"):
        text = (ROOT / "docs" / lang / "ch01" / "index.md").read_text()
        assert claims.find(text), "the chapter makes checked claims"
        c = ctx(lang)
        render_page(text, c)
        assert c.errors == [], c.errors


def test_directives_inside_code_blocks_are_shown_as_written():
    c = ctx()
    page = "Write it like this:\n\n```markdown\n[[kb:run ch01/eager_profile]]\n[[kb:launches nope == 3]]\n```\n"
    assert render_page(page, c) == page and c.errors == []


def test_unevaluable_claim_is_a_named_error_not_a_crash():
    c = ctx()
    render_page("[[kb:ratio ch01/size_sweep device / bytes_per_element > 1]]", c)
    assert len(c.errors) == 1 and "device is str 'cpu', not a number" in c.errors[0]


def test_every_reader_skips_headings_and_directives_inside_code():
    """The twin check, the notebooks and the instructors' index read pages by one set of rules."""
    from kernelbook.site.notebooks import chapter as notebooks
    from kernelbook.site.prose import text as page_text

    page = "# T { #top }\n\n## Real { #real }\n\n    ```md\n    ## Fake { #fake }\n    [[kb:run ch01/x]]\n    ```\n\n[[kb:run ch01/y]]\n"
    assert twins.anchors(page) == ["real"]
    assert twins.directives(page) == ["[[kb:run ch01/y]]"]
    assert page_text.title(page) == "T"
    assert notebooks.outline(page) == ("T", [("heading", "## Real", "real"), ("run", "ch01/y", "")])


# ---------------------------------------------------------------- interpreted Triton kernels

VECTOR_ADD = ROOT / "snippets/ch04/captures/vector_add.cpu.json"
INTERPRETED = {"en": "were interpreted by Triton's interpreter", "ja": "Triton のインタプリタ (`TRITON_INTERPRET=1`、numpy) で解釈実行"}
PLAIN_CPU = {"en": "There is no GPU (CUDA) capture of this example yet. The output and kernels below come from a run on the CPU;",
             "ja": "ここに示す出力とカーネルは CPU で実行したときのもので、カーネル名も時間も"}


def test_interpreted_triton_is_read_from_the_recorded_setting_or_the_launch_ranges():
    from kernelbook.common.records import Event
    from kernelbook.site.directives.run import interpreted

    real = load(VECTOR_ADD)  # a real capture: the snippet set TRITON_INTERPRET=1 and wrapped its launch
    assert real.environment.settings["TRITON_INTERPRET"] == "1" and interpreted(real)
    assert any(e.name == "triton: add_kernel" for e in real.sessions[0].events)

    def env(capture, **settings):
        return dataclasses.replace(capture, environment=dataclasses.replace(capture.environment, settings=settings))

    assert interpreted(env(real))  # no setting recorded: the session's `triton: add_kernel` range says it
    assert interpreted(env(real, TRITON_INTERPRET="true"))
    plain = load(EAGER)
    assert plain.environment.settings.get("TRITON_INTERPRET") is None and not interpreted(plain)
    assert not interpreted(env(plain, TRITON_INTERPRET="0"))
    assert interpreted(env(plain, TRITON_INTERPRET="1"))  # e.g. a snippet with no profiler session at all
    launch = Session(0, "cpu", (Kernel("k", 1, 5.0),), 1, (Event("op", "triton: k", 0.0, 5.0), Event("kernel", "k", 0.0, 5.0)))
    assert interpreted(dataclasses.replace(plain, sessions=(launch,)))
    assert not interpreted(dataclasses.replace(real, device="cuda"))  # on a GPU Triton compiles


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_interpreted_examples_say_so_and_plain_cpu_ones_keep_their_notice(lang):
    """Each kind of CPU notice in full once per page, then the short form; an interpreted capture never
    gets the plain notice (which calls the kernels ATen operators) and a plain one never the interpreted."""
    real = load(VECTOR_ADD)
    book = {"ch04/vector_add": Entry(BOOK["ch04/vector_add"].snippet, None, real, (), ()),
            "ch01/eager_profile": entry_with(cpu=load(EAGER))}
    c = ctx(lang, book)
    out = render_page("[[kb:run ch04/vector_add]]\n\n[[kb:run ch01/eager_profile]]\n\n[[kb:run ch04/vector_add]]\n", c)
    assert c.errors == []
    first, second, third = out.split('<div class="kb-example"')[1:]
    assert INTERPRETED[lang] in first and PLAIN_CPU[lang] not in first
    assert PLAIN_CPU[lang] in second and INTERPRETED[lang] not in second  # its own kind, in full
    again = {"en": "its Triton kernels interpreted, not compiled; see the first such notice",
             "ja": "Triton のカーネルはインタプリタで解釈実行したものです。詳しくは"}
    assert again[lang] in third and INTERPRETED[lang] not in third
    assert "add_kernel" in first  # the launch, counted from its `triton: add_kernel` range


# ---------------------------------------------------------------- kernels compiled for a GPU, not run

SM90 = ROOT / "snippets/ch04/captures/sm90_code.cpu.json"
COMPILED = {"en": "Compiled for sm_90 (H100/H200), not run", "ja": "sm_90 (H100/H200) 向けにコンパイル、実行はしていません"}


def test_compiled_for_is_read_from_the_snippets_own_target():
    from kernelbook.site.directives.run import compiled_for

    real = load(SM90)  # the snippet stores "target": "cuda:90" in its results
    assert compiled_for(real) == "cuda:90"
    assert compiled_for(load(EAGER)) is None and compiled_for(load(VECTOR_ADD)) is None
    assert compiled_for(dataclasses.replace(real, data={"target": "cpu"})) is None
    assert compiled_for(dataclasses.replace(real, data=["target"])) is None


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_compiled_examples_say_compiled_not_run_never_the_cpu_notice(lang):
    """A CPU capture of kernels compiled for sm_90 is labelled as such, with its triton; not as a CPU run."""
    real = load(SM90)
    book = {"ch04/sm90_code": Entry(BOOK["ch04/sm90_code"].snippet, None, real, (), ())}
    c = ctx(lang, book)
    out = render_page("[[kb:run ch04/sm90_code]]\n\n[[kb:data ch04/sm90_code sass_add_relu_memory text]]\n", c)
    assert c.errors == []
    assert out.count(COMPILED[lang]) == 2  # each block's note has the title
    body = {"en": "This example ran nothing on a GPU.", "ja": "この例は GPU でカーネルを実行していません。"}
    assert out.count(body[lang]) == 1 and f"({real.environment.triton})" in out  # in full once per page
    assert PLAIN_CPU[lang] not in out and INTERPRETED[lang] not in out
    again = {"en": "This example too compiled its kernels for sm_90", "ja": "この例もカーネルを sm_90 向けにコンパイルしただけで"}
    assert out.count(again[lang]) == 1  # the data block's short notice
    assert f"triton {real.environment.triton}" in out  # the provenance names the compiler's version
    assert "LDG.E.128" in out


NVCC_SM90 = ROOT / "snippets/ch05/captures/cuda_sm90.cpu.json"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_kernels_nvcc_compiled_say_nvcc_and_its_version_not_triton(lang):
    """ch05/cuda_sm90 stores "compiler": "nvcc": its notice and provenance name nvcc, not Triton."""
    from kernelbook.site.directives.run import compiled_for, nvcc_version

    real = load(NVCC_SM90)
    assert compiled_for(real) == "cuda:90" and nvcc_version(real) == real.data["nvcc"]
    assert nvcc_version(load(SM90)) is None  # Triton compiled chapter 4's
    book = {"ch05/cuda_sm90": Entry(BOOK["ch05/cuda_sm90"].snippet, None, real, (), ())}
    c = ctx(lang, book)
    out = render_page("[[kb:run ch05/cuda_sm90]]\n\n[[kb:data ch05/cuda_sm90 sass_vec4 text]]\n", c)
    assert c.errors == []
    assert out.count(COMPILED[lang]) == 2
    assert f"nvcc ({real.data['nvcc']})" in out and f"nvcc {real.data['nvcc']}" in out  # the notice, the provenance
    triton_body = {"en": "Triton compiled the kernels", "ja": "Triton がカーネルを"}
    assert f"triton {real.environment.triton}" not in out and triton_body[lang] not in out
    again = {"en": "This example too compiled its kernels for sm_90 with nvcc", "ja": "この例もカーネルを sm_90 向けに nvcc でコンパイルしただけで"}
    assert out.count(again[lang]) == 1
