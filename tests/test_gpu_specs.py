"""docs/gpu_specs.yml: the vendor specifications chapter 2 draws and cites, checked on load, and
what the build computes from them (ridge points, the cos-chain estimate, the roofline's dashed roofs)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import yaml

from conftest import ROOT
from kernelbook.site.caches import figures as figure_cache
from kernelbook.site import figures
from kernelbook.site.figures import gpu_specs
from kernelbook.site.book import load_book
from kernelbook.site.directives import Context, render_notebook, render_page
from kernelbook.site.directives.spec import instructions_per_element
from test_figures import SVG, committed_cpu

SPEC_FILE = ROOT / "docs" / gpu_specs.FILE
MM_VS_ADD = "ch02/mm_vs_add"


def good() -> dict:
    return yaml.safe_load(SPEC_FILE.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the file


def test_the_book_file_holds_the_five_reference_gpus_each_with_its_sources():
    specs = gpu_specs.book_specs()
    assert [g.id for g in specs.gpus] == ["h200", "h100", "a100", "l4", "t4"]
    for gpu in specs.gpus:
        assert gpu.vendor_url.startswith("https://www.nvidia.com/") and gpu.checked_against
        notes = dict(gpu.notes)
        for field in gpu_specs.NUMBERS:  # a null says why
            assert getattr(gpu, field) is not None or notes[field]
    t4 = specs.get("t4")
    assert t4.tf32_tflops is None and t4.bf16_tflops is None and "Turing" in dict(t4.notes)["tf32_tflops"]


def test_ridge_points_are_peak_over_bandwidth_from_the_file():
    h200 = gpu_specs.book_specs().get("h200")
    assert h200.ridge("fp32") == pytest.approx(h200.fp32_tflops * 1e12 / (h200.memory_tb_per_s * 1e12))
    assert h200.ridge("fp32") == pytest.approx(14, abs=0.5)  # the issue's ≈ 14 FLOP/B (fp32) ...
    assert h200.ridge("bf16") == pytest.approx(206, abs=1)  # ... and ≈ 206 (BF16, dense) on an H200
    assert gpu_specs.book_specs().get("t4").ridge("bf16") is None


def bad(mutate) -> str:
    raw = good()
    mutate(raw["gpus"])
    with pytest.raises(gpu_specs.SpecError) as caught:
        gpu_specs.parse(raw, "docs/gpu_specs.yml")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("docs/gpu_specs.yml: ")
    return message


@pytest.mark.parametrize("mutate, field", [
    (lambda g: g["h200"].update(fp32_tflops=-67), "gpus.h200.fp32_tflops: expected a positive number or null"),
    (lambda g: g["h200"].update(fp32_tflops="67"), "gpus.h200.fp32_tflops: expected a positive number or null"),
    (lambda g: g["h100"].update(sms=True), "gpus.h100.sms: expected a positive number"),
    (lambda g: g["h100"].update(l2_mb=None), "gpus.h100.l2_mb: null without a reason"),
    (lambda g: g["a100"].pop("bf16_tflops"), "gpus.a100.bf16_tflops: missing"),
    (lambda g: g["a100"].update(fp64_tflops=9.7), "gpus.a100.fp64_tflops: unknown field"),
    (lambda g: g["l4"].update(vendor_url="nvidia.com/l4"), "gpus.l4.vendor_url: expected one https:// URL"),
    (lambda g: g["l4"].update(checked_against=[]), "gpus.l4.checked_against: expected a list"),
    (lambda g: g["t4"]["notes"].update(fp16="65 TFLOPS"), "gpus.t4.notes.fp16: not a figure"),
    (lambda g: g.update(H200={}), "gpus.H200: an id is lower-case"),
])
def test_a_bad_entry_is_one_line_naming_file_and_field(mutate, field):
    assert field in bad(mutate)


def test_a_file_without_gpus_is_refused():
    with pytest.raises(gpu_specs.SpecError, match=r"^docs/gpu_specs.yml: expected one key, `gpus:`"):
        gpu_specs.parse({"gpu": {}}, "docs/gpu_specs.yml")


@pytest.fixture
def broken(tmp_path, monkeypatch):
    """The build reading a spec file whose H200 FP32 peak is text."""
    raw = good()
    raw["gpus"]["h200"]["fp32_tflops"] = "sixty-seven"
    path = tmp_path / gpu_specs.FILE
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    monkeypatch.setattr(gpu_specs, "default_path", lambda: path)


# ---------------------------------------------------------------- [[kb:spec]]


@pytest.fixture(scope="module")
def book():
    return load_book(ROOT)


def rendered(text: str, book, lang: str = "en") -> tuple[str, list[str]]:
    ctx = Context(lang, "en/ch02/index.md", book)
    return render_page(text, ctx), ctx.errors


def test_spec_shows_the_files_figures_and_the_computed_ridges(book):
    h200 = gpu_specs.book_specs().get("h200")
    out, errors = rendered("[[kb:spec h200 memory]] [[kb:spec h100 memory]] [[kb:spec h200 fp32]] "
                           "[[kb:spec h200 ridge_fp32]] [[kb:spec h200 ridge_bf16]] [[kb:spec t4 sms]]", book)
    assert errors == []
    assert [v.split(">")[1] for v in out.split("</span>")[:-1]] == [
        "4.8 TB/s", "3.35 TB/s", "67 TFLOP/s", "14", "206", "40"]
    assert f'title="{h200.name}: {h200.vendor_url}"' in out


def test_the_cos_chain_estimate_is_the_spec_budget_over_the_captured_instruction_count(book):
    h200 = gpu_specs.book_specs().get("h200")
    per_cos = committed_cpu("ch04/sm90_code").data["cos_chain"]["instructions_per_cos"]
    budget = h200.fp32_tflops * 1e12 / 2 * 8 / (h200.memory_tb_per_s * 1e12)  # instructions per 8 bytes moved
    assert instructions_per_element(h200) == pytest.approx(budget)
    out, errors = rendered("[[kb:spec h200 instructions_per_element]] / "
                           "[[kb:spec h200 crossover ch04/sm90_code cos_chain.instructions_per_cos]]", book)
    assert errors == []
    shown = [v.split(">")[1] for v in out.split("</span>")[:-1]]
    assert [float(x) for x in shown] == [pytest.approx(budget, rel=2e-3), pytest.approx(budget / per_cos, rel=2e-3)]
    ctx = Context("en", "en/ch02/index.md", book)
    assert render_notebook("[[kb:spec h200 crossover ch04/sm90_code cos_chain.instructions_per_cos]]", ctx).strip() == shown[1]


@pytest.mark.parametrize("text, error", [
    ("[[kb:spec h300 fp32]]", "no GPU 'h300'"),
    ("[[kb:spec h200 fp64]]", "unknown field 'fp64'"),
    ("[[kb:spec h200 l2]]", "docs/gpu_specs.yml: gpus.h200.l2_mb is null: NVIDIA's H200 page lists no L2 size"),
    ("[[kb:spec t4 ridge_bf16]]", "gpus.t4: no ridge point"),
    ("[[kb:spec h200 crossover ch04/sm90_code cos_chain.block_size_nope]]", "cos_chain.block_size_nope"),
    ("[[kb:spec h200 crossover ch04/sm90_code]]", "write [[kb:spec GPU FIELD]]"),
])
def test_a_spec_that_cannot_be_shown_fails_the_build_naming_it(book, text, error):
    _, errors = rendered(text, book)
    assert len(errors) == 1 and text in errors[0] and error in errors[0]


def test_a_bad_spec_file_fails_a_spec_naming_file_and_field(book, broken):
    _, errors = rendered("[[kb:spec h100 fp32]]", book)
    assert len(errors) == 1 and "docs/gpu_specs.yml: gpus.h200.fp32_tflops: expected a positive number" in errors[0]


# ---------------------------------------------------------------- the roofline's dashed roofs


@pytest.mark.parametrize("lang, words", [("en", "vendor specification, not measured"), ("ja", "ベンダー仕様値（実測ではない）")])
def test_the_roofline_draws_the_specified_roofs_dashed_and_says_they_are_not_measured(lang, words):
    specs = gpu_specs.book_specs()
    fig = figures.figure("roofline", lang, {MM_VS_ADD: committed_cpu(MM_VS_ADD)})
    for n, svg in enumerate(fig.svgs):  # the wide layout, then the phone's
        assert figure_cache.inert_svg(svg)  # the cache takes it back
        root = ET.fromstring(svg)
        label = [("".join(t.itertext())) for t in root.iter(SVG + "text") if "kb-bold" in (t.get("class") or "")]
        assert " ".join(label).replace("、 ", "、") == words or "".join(label) == words  # on two lines on a phone
        vendor = [g for g in root.iter(SVG + "g") if g.get("class") == "kb-vendor"]
        assert [g.get("data-gpu") for g in vendor] == ["h200", "h100"]
        for g, gpu_id in zip(vendor, ("h200", "h100")):
            (line,) = g.iter(SVG + "polyline")
            assert line.get("class") == "kb-roof"  # dashed (svg.RULES)
            (name,) = ("".join(x.itertext()) for x in g.iter(SVG + "text"))
            assert name.startswith(gpu_id.upper())
            if n == 0:  # room for the bandwidth and the ridge, computed from the file
                assert f"ridge {specs.get(gpu_id).ridge('fp32'):.3g}" in name or f"リッジ {specs.get(gpu_id).ridge('fp32'):.3g}" in name
        assert "stroke-dasharray" in root.find(SVG + "style").text
    assert fig.data["vendor_ridges"] == {"H200": specs.get("h200").ridge("fp32"), "H100": specs.get("h100").ridge("fp32")}
    assert {"en": "not measured", "ja": "実測ではなく"}[lang] in fig.caption


def test_a_changed_spec_redraws_the_roofline(tmp_path, monkeypatch):
    captures = {MM_VS_ADD: committed_cpu(MM_VS_ADD)}
    before = figures.data_key("roofline", captures)
    raw = good()
    raw["gpus"]["h200"]["memory_tb_per_s"] = 5.0
    path = tmp_path / gpu_specs.FILE
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    monkeypatch.setattr(gpu_specs, "default_path", lambda: path)
    assert figures.data_key("roofline", captures) != before  # the figure cache keys on the specified roofs too
    assert figures.figure("roofline", "en", captures).data["vendor_ridges"]["H200"] == pytest.approx(67 / 5.0)


def test_a_bad_spec_file_is_an_error_naming_file_and_field(broken):
    with pytest.raises(ValueError, match=r"figure 'roofline': docs/gpu_specs.yml: gpus.h200.fp32_tflops"):
        figures.figure("roofline", "en", {MM_VS_ADD: committed_cpu(MM_VS_ADD)})


def test_a_book_reads_its_own_spec_file_not_this_repositorys(tmp_path):
    """Loading a book's mkdocs.yml points [[kb:spec]] and the roofline at that book's docs/gpu_specs.yml."""
    from conftest import make_project, write
    from kernelbook.site.settings import load

    book = make_project(tmp_path / "book")
    write(book / "mkdocs.yml", "site_name: t\nplugins:\n  - kernelbook:\n      repository: x/y\n")
    write(book / "docs" / gpu_specs.FILE, yaml.safe_dump({"gpus": {"mine": good()["gpus"]["h200"]}}))
    load(book)
    assert gpu_specs.default_path() == book / "docs" / gpu_specs.FILE
    assert [g.id for g in gpu_specs.book_specs().gpus] == ["mine"]
