"""Figures drawn from GPU captures only (chapter 4's bandwidth and block-size figures): the drawing
against crafted CUDA-shaped captures (every point and bar where the capture's number puts it),
the refusal of another device's capture, and the placeholder a CPU-built page shows instead."""

from __future__ import annotations

import dataclasses
import html
import math
import re
import xml.etree.ElementTree as ET

import pytest

import crafted_gpu
from kernelbook.common import records
from kernelbook.site import figures
from kernelbook.site.prose.units import format_bandwidth

from conftest import ROOT

SVG = "{http://www.w3.org/2000/svg}"
GPU_ONLY = ("add_relu_bandwidth", "block_size_sweep", "softmax_bandwidth")
SNIPPET = {"add_relu_bandwidth": "ch04/add_relu_bandwidth", "block_size_sweep": "ch04/block_size", "softmax_bandwidth": "ch04/fused_softmax"}
LINES = {"add_relu_bandwidth": ("elements", ("eager", "compiled", "triton", "copy")),
         "softmax_bandwidth": ("n_cols", ("naive", "torch", "compiled", "triton", "copy"))}


@pytest.fixture(scope="module")
def gpu() -> dict[str, records.Capture]:
    return crafted_gpu.all_captures()


def chart(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    (found,) = [e for e in root.iter() if "kb-chart" in (e.get("class") or "").split()]
    return found


def scale(group: ET.Element) -> tuple[float, float]:
    """The chart's own y scale: the y of 0, and viewBox units per byte/s."""
    zero, top, top_value = float(group.get("data-zero")), float(group.get("data-top")), float(group.get("data-top-value"))
    return zero, (zero - top) / top_value


def polyline(group: ET.Element) -> list[tuple[float, float]]:
    return [tuple(map(float, p.split(","))) for p in group.find(SVG + "polyline").get("points").split()]


def test_every_gpu_only_figure_says_so_and_what_it_shows():
    for name in GPU_ONLY:
        kind = figures.KINDS[name]
        assert kind.device == "cuda" and kind.needs == (SNIPPET[name],)
        assert set(kind.subject) == set(figures.LANGS) and all(kind.subject.values())


# ---------------------------------------------------------------- lines: bandwidth against size


@pytest.mark.parametrize("lang", figures.LANGS)
@pytest.mark.parametrize("name", ["add_relu_bandwidth", "softmax_bandwidth"])
def test_bandwidth_lines_sit_where_the_capture_puts_them(gpu, name, lang):
    """One line per version, one point per row: y from 0 in proportion to the row's bytes/s, x in
    proportion to the log of its size, in every layout; the markers carry the same numbers."""
    capture = gpu[SNIPPET[name]]
    x_key, versions = LINES[name]
    rows = sorted(capture.data["rows"], key=lambda r: r[x_key])
    fig = figures.figure(name, lang, gpu)
    for svg in fig.svgs:
        group = chart(svg)
        zero, per_byte = scale(group)
        series = {g.get("class"): g for g in group.findall(SVG + "g")}
        assert list(series) == [f"kb-{'eager' if v == 'naive' else 'library' if v == 'torch' else v}" for v in versions]
        xs = None
        for version, g in zip(versions, series.values()):
            points = polyline(g)
            assert len(points) == len(rows)
            for (px, py), row in zip(points, rows):
                assert (zero - py) / per_byte == pytest.approx(row[f"{version}_bytes_per_s"], rel=2e-3, abs=0.06 / per_byte)
            markers = [m for m in g if m.get("data-series") == version]
            assert [float(m.get("data-x")) for m in markers] == [r[x_key] for r in rows]
            assert [float(m.get("data-bytes-per-s")) for m in markers] == pytest.approx([r[f"{version}_bytes_per_s"] for r in rows], rel=1e-5)
            if xs is None:
                xs = [px for px, _ in points]
            assert [px for px, _ in points] == xs  # every version at the same sizes
        steps = [(b - a) / math.log10(rb[x_key] / ra[x_key]) for a, b, ra, rb in zip(xs, xs[1:], rows, rows[1:])]
        assert max(steps) == pytest.approx(min(steps), rel=0.02)  # a log axis: equal ratios, equal distances
        # the y ticks are labelled with the value at their height
        for tick in ET.fromstring(svg).iter(SVG + "text"):
            m = re.fullmatch(r"([\d.]+) TB/s", "".join(tick.itertext()))
            if m and tick.get("y"):
                assert float(tick.get("y")) == pytest.approx(zero - float(m.group(1)) * 1e12 * per_byte, abs=0.1)
    largest = rows[-1]
    for version in versions:
        assert format_bandwidth(largest[f"{version}_bytes_per_s"]) in fig.alt
    assert f"{largest[x_key]:,}" in fig.alt and "NVIDIA H200" in fig.caption and "NVIDIA H200" in fig.alt
    assert fig.data["points"] == len(rows) and fig.data["series"] == list(versions) and fig.data["device"] == "cuda"
    assert fig.data["largest_gbs"] == {v: round(largest[f"{v}_bytes_per_s"] / 1e9, 3) for v in versions}


def test_softmax_says_how_many_rows_every_size_has(gpu):
    fig = figures.figure("softmax_bandwidth", "en", gpu)
    assert "4,096 rows" in fig.caption and "columns per row (log scale), 4,096 rows" in fig.svg
    capture = gpu["ch04/fused_softmax"]
    rows = [dict(r) for r in capture.data["rows"]]
    rows[1]["n_rows"] = 2048
    with pytest.raises(ValueError, match="n_rows differs between rows"):
        figures.figure("softmax_bandwidth", "en", {**gpu, "ch04/fused_softmax": dataclasses.replace(capture, data={**capture.data, "rows": rows})})


# ---------------------------------------------------------------- bars: the block-size sweep


@pytest.mark.parametrize("lang", figures.LANGS)
def test_block_size_bars_are_the_captures_numbers_and_the_fastest_is_marked(gpu, lang):
    capture = gpu["ch04/block_size"]
    rows = capture.data["rows"]
    fastest = max(rows, key=lambda r: r["bytes_per_s"])["block_size"]  # worked out here, not read from the figure
    assert fastest == capture.data["best_block"]
    fig = figures.figure("block_size_sweep", lang, gpu)
    for svg, layout in zip(fig.svgs, figures.LAYOUTS):
        root = ET.fromstring(svg)
        group = chart(svg)
        zero, per_byte = scale(group)
        bars = group.findall(SVG + "rect")
        assert [int(b.get("data-block")) for b in bars] == [r["block_size"] for r in rows]
        for bar, row in zip(bars, rows):
            y, h = float(bar.get("y")), float(bar.get("height"))
            assert y + h == pytest.approx(zero, abs=0.1)  # standing on 0
            assert h / per_byte == pytest.approx(row["bytes_per_s"], rel=2e-3, abs=0.06 / per_byte)
            assert ("kb-best" in bar.get("class").split()) == (row["block_size"] == fastest)
            tip = bar.find(SVG + "title").text
            assert format_bandwidth(row["bytes_per_s"]) in tip and f"{row['programs']:,}" in tip
        (copy,) = [e for e in root.iter(SVG + "path") if e.get("data-bytes-per-s")]
        copy_y = float(re.match(r"M[\d.]+ ([\d.]+)", copy.get("d")).group(1))
        assert (zero - copy_y) / per_byte == pytest.approx(capture.data["copy_bytes_per_s"], rel=2e-3)
        texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
        assert [t for t in texts if t in {str(r["block_size"]) for r in rows}] == [str(r["block_size"]) for r in rows]
        programs = [f"{r['programs']:,}" for r in rows]
        assert all(p in texts for p in programs) == (layout.name == "wide")  # the programs under each bar: on a desktop
    assert f"{capture.data['elements']:,}" in fig.alt and format_bandwidth(capture.data["copy_bytes_per_s"]) in fig.alt
    assert fig.data == {"bars": len(rows), "device": "cuda", "source": "ch04/block_size (cuda)", "best_block": fastest,
                        "copy_gbs": round(capture.data["copy_bytes_per_s"] / 1e9, 3)}


def test_block_size_refuses_a_best_block_it_did_not_measure(gpu):
    capture = gpu["ch04/block_size"]
    bad = dataclasses.replace(capture, data={**capture.data, "best_block": 640})
    with pytest.raises(ValueError, match="best_block 640 is not one of the block sizes measured"):
        figures.figure("block_size_sweep", "en", {**gpu, "ch04/block_size": bad})


# ---------------------------------------------------------------- never from a CPU capture, a placeholder instead

CPU_CAPTURES = ROOT / "snippets" / "ch04" / "captures"
NEEDED = {"en": "Not yet measured on a GPU", "ja": "GPU ではまだ計測していません"}
CAPTION = {"en": "not yet measured", "ja": "まだ計測していません"}


@pytest.mark.parametrize("lang", figures.LANGS)
@pytest.mark.parametrize("name", GPU_ONLY)
def test_a_cpu_capture_draws_the_placeholder_not_its_numbers(gpu, name, lang):
    """The committed CPU capture (it times nothing: nulls) gives the placeholder (figures/placeholder.py):
    the figure's subject and "Not yet measured on a GPU", nothing read from the CPU's data."""
    sid = SNIPPET[name]
    cpu = records.load(CPU_CAPTURES / f"{sid.split('/')[1]}.cpu.json")
    fig = figures.figure(name, lang, {**gpu, sid: cpu})
    assert fig.data == {"placeholder": True, "device": "cuda", "shown": {sid: "cpu"}}
    for svg in fig.svgs:
        words = " ".join("".join(t.itertext()) for t in ET.fromstring(svg).iter(SVG + "text"))
        assert NEEDED[lang] in words and "B/s" not in words
    assert figures.KINDS[name].subject[lang] in fig.alt and CAPTION[lang] in fig.caption
    with pytest.raises(ValueError, match=sid):  # and its data could not be drawn anyway
        figures.figure(name, lang, {**gpu, sid: dataclasses.replace(cpu, device="cuda")})


@pytest.mark.parametrize("lang", figures.LANGS)
def test_the_cpu_built_chapter_shows_the_placeholders(built_site, lang):
    """The book as committed has CPU captures only for chapter 4: its figures wait for a GPU."""
    page = (built_site / ("" if lang == "ja" else "en") / "ch04" / "index.html").read_text(encoding="utf-8")
    for name in GPU_ONLY:
        block = re.search(rf'<figure class="kb-figure" id="kb-figure-{name}"[^>]*>(.*?)</figure>', page, re.S)
        assert block, name
        assert html.escape(NEEDED[lang], quote=False) in block.group(1) or NEEDED[lang] in html.unescape(block.group(1))
        assert "TB/s" not in html.unescape(block.group(1))
