"""Chapter 2's figures (copy_roof, roofline, cos_chain): what they draw is what the captures hold.

Positions are checked against the capture's numbers through the figure's own axis labels: a
point's place is worked out from the two tick labels around it (their text parsed back into a
number), never from the drawing code, so a point drawn at the wrong value, or an axis
labelled wrongly, fails.
"""

from __future__ import annotations

import dataclasses
import math
import re
import xml.etree.ElementTree as ET

import pytest

from kernelbook.common.records import Session
from kernelbook.site import figures
from kernelbook.site.figures.strings import COMMON
from kernelbook.site.prose.units import format_bandwidth, format_bytes, format_si
from test_figures import SVG, committed_cpu, fake, parse, with_class

COPY_ROOF, MM_VS_ADD, COS_CHAIN = "ch02/copy_roof", "ch02/mm_vs_add", "ch02/cos_chain"
LAYOUTS = range(len(figures.LAYOUTS))


@pytest.fixture(scope="module")
def cpu():
    return {s: committed_cpu(s) for s in (COPY_ROOF, MM_VS_ADD, COS_CHAIN)}


# ---------------------------------------------------------------- reading a drawing back


UNITS = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}


def number(label: str) -> float:
    """A tick label as a number: "10 GB/s", "100 MFLOP/s", "8 KiB", "1k", "0.01", "15", "10 µs"."""
    duration = re.fullmatch(r"([\d.,]+)\s*(ns|µs|ms|s)", label.strip())
    if duration:
        return float(duration.group(1).replace(",", "")) * {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1}[duration.group(2)]
    m = re.fullmatch(r"([\d.,]+)\s*(Ki|Mi|Gi|k|M|G|T)?\s*(B/s|FLOP/s|B)?", label.strip())
    assert m, f"cannot read tick label {label!r}"
    return float(m.group(1).replace(",", "")) * UNITS[m.group(2) or ""]


def ticks(chart: ET.Element) -> dict[str, list[tuple[float, float]]]:
    """(value, position) of every labelled tick of a chart: x from the labels' x, y from their y."""
    out = {"x": [], "y": []}
    for group in chart.iter(SVG + "g"):
        anchor = group.get("text-anchor")
        texts = group.findall(SVG + "text")
        if anchor in ("end", "middle") and texts and "kb-small" in (group.get("class") or ""):
            axis, coord = ("y", "y") if anchor == "end" else ("x", "x")
            out[axis] += [(number("".join(t.itertext())), float(t.get(coord))) for t in texts]
    assert len(out["x"]) >= 2 and len(out["y"]) >= 2, out
    return out


def place(marks: list[tuple[float, float]], value: float, log: bool = True) -> float:
    """Where ``value`` goes on an axis whose labelled ticks are ``marks``."""
    f = math.log10 if log else (lambda v: v)
    (v1, p1), (v2, p2) = marks[0], marks[-1]
    return p1 + (f(value) - f(v1)) / (f(v2) - f(v1)) * (p2 - p1)


def centre(point: ET.Element) -> tuple[float, float]:
    """The centre of a marker: a circle's, a square's (M x-4 y-4 h8v8h-8z) or a triangle's apex-based path."""
    if point.tag == SVG + "circle":
        return float(point.get("cx")), float(point.get("cy"))
    x, y = map(float, re.match(r"M(-?[\d.]+) (-?[\d.]+)", point.get("d")).groups())
    return (x + 4, y + 4) if point.get("d").endswith("h8v8h-8z") else (x, y + 5)


def chart_of(root: ET.Element, name: str) -> ET.Element:
    (chart,) = [c for c in with_class(root, "kb-chart") if c.get("data-chart") == name]
    return chart


# ---------------------------------------------------------------- copy_roof


def copy_roof_capture(gpu: bool = True, cache: int | None = 50 * 2**20, spec: float | None = 4.8e12) -> object:
    rows = []
    for p in range(10, 29):
        moved = 8 * 2**p
        loop = min(moved / 6e-6, 3.9e12)  # a fixed cost per call, then the memory's rate
        gpu_bw = min(moved / 1.5e-6, 5.5e12 if moved <= (cache or 0) else 4.1e12) if gpu else None
        rows.append({"elements": 2**p, "moved_bytes": moved, "loop_s": moved / loop, "loop_bytes_per_s": loop,
                     "gpu_s": moved / gpu_bw if gpu else None, "gpu_bytes_per_s": gpu_bw, "bytes_per_s": gpu_bw or loop})
    data = {"cache_name": "L2" if cache else None, "cache_bytes": cache, "spec_bytes_per_s": spec, "rows": rows}
    return fake(COPY_ROOF, "cuda", data=data)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("lang", figures.LANGS)
def test_copy_roof_draws_each_size_where_the_capture_says(cpu, lang, layout):
    fig = figures.figure("copy_roof", lang, cpu)
    root = parse(fig.svgs[layout])
    chart = chart_of(root, "copy")
    marks = ticks(chart)
    rows = cpu[COPY_ROOF].data["rows"]
    points = with_class(chart, "kb-point")
    assert {p.get("data-series") for p in points} == {"loop"}  # a CPU has no GPU-alone timing
    assert [int(p.get("data-bytes")) for p in points] == [r["moved_bytes"] for r in rows]
    for point, row in zip(points, rows):
        x, y = centre(point)
        assert x == pytest.approx(place(marks["x"], row["moved_bytes"]), abs=0.15)
        assert y == pytest.approx(place(marks["y"], row["loop_bytes_per_s"]), abs=0.15)
    # x ticks every 16x in bytes, labelled in binary units
    assert [v for v, _ in marks["x"]] == [8 * 2**10 * 16**i for i in range(len(marks["x"]))]
    # the cache line stands at the cache's size, labelled with its name and size
    (line,) = with_class(chart, "kb-roof")
    cache = cpu[COPY_ROOF].data["cache_bytes"]
    assert float(line.get("x1")) == pytest.approx(place(marks["x"], cache), abs=0.15)
    labels = ["".join(t.itertext()) for t in with_class(chart, "kb-roof-label")]
    assert labels == [f"{cpu[COPY_ROOF].data['cache_name']} {format_bytes(cache)}"]
    note = COMMON[lang]["on_cpu"].strip()  # drawn from the CPU capture, and it says so
    assert note in fig.caption and note in fig.alt


def test_copy_roof_regions_follow_the_curve_and_the_cache(cpu):
    fig = figures.figure("copy_roof", "en", cpu)
    rows = cpu[COPY_ROOF].data["rows"]
    best = max(r["bytes_per_s"] for r in rows)
    first = next(i for i, r in enumerate(rows) if r["bytes_per_s"] >= best / 2)
    edge = math.sqrt(rows[first - 1]["moved_bytes"] * rows[first]["moved_bytes"])
    cache = cpu[COPY_ROOF].data["cache_bytes"]
    assert fig.data["regions"] == [["overhead", rows[0]["moved_bytes"], pytest.approx(edge)],
                                   ["cache", pytest.approx(edge), cache], ["memory", cache, rows[-1]["moved_bytes"]]]
    root = parse(fig.svg)
    names = {t.get("data-region"): "".join(t.itertext()) for t in root.iter(SVG + "text") if t.get("data-region")}
    assert names == {"overhead": "overhead", "cache": "cache", "memory": "outer caches, main memory"}
    (band,) = with_class(root, "kb-band")
    marks = ticks(chart_of(root, "copy"))
    assert float(band.get("x")) == pytest.approx(place(marks["x"], edge), abs=0.15)
    assert float(band.get("x")) + float(band.get("width")) == pytest.approx(place(marks["x"], cache), abs=0.2)


@pytest.mark.parametrize("lang", figures.LANGS)
def test_copy_roof_on_a_gpu_draws_both_timings_the_l2_and_the_peak(lang):
    cap = copy_roof_capture()
    fig = figures.figure("copy_roof", lang, {COPY_ROOF: cap})
    root = parse(fig.svg)
    chart = chart_of(root, "copy")
    marks = ticks(chart)
    rows = cap.data["rows"]
    for series, key in (("gpu", "gpu_bytes_per_s"), ("loop", "loop_bytes_per_s")):
        points = [p for p in with_class(chart, "kb-point") if p.get("data-series") == series]
        assert len(points) == len(rows)
        for point, row in zip(points, rows):
            assert centre(point)[1] == pytest.approx(place(marks["y"], row[key]), abs=0.15)
    spec_line = [line for line in with_class(chart, "kb-roof") if line.get("y1") == line.get("y2")]
    assert len(spec_line) == 1 and float(spec_line[0].get("y1")) == pytest.approx(place(marks["y"], 4.8e12), abs=0.15)
    labels = " ".join("".join(t.itertext()) for t in with_class(chart, "kb-roof-label"))
    assert "L2 50 MiB" in labels and "4.8 TB/s" in labels
    memory = "GPU memory" if lang == "en" else "GPU メモリ"
    assert memory in [t.text for t in root.iter(SVG + "text") if t.get("data-region") == "memory"]
    assert fig.data["series"] == ["gpu", "loop"] and "NVIDIA H200" in fig.caption and "NVIDIA H200" in fig.alt


def test_copy_roof_without_a_cache_size_or_peak_draws_no_line_for_them():
    fig = figures.figure("copy_roof", "en", {COPY_ROOF: copy_roof_capture(cache=None, spec=None)})
    root = parse(fig.svg)
    assert not with_class(root, "kb-roof") and fig.data["cache_bytes"] is None and fig.data["spec_gbs"] is None
    assert [r[0] for r in fig.data["regions"]] == ["overhead", "cache"] and "cache (" not in fig.caption


@pytest.mark.parametrize("bad", [None, {"rows": []}, {"rows": [{"moved_bytes": 8192, "loop_bytes_per_s": 0, "bytes_per_s": 1}]}])
def test_copy_roof_refuses_unusable_data(bad):
    with pytest.raises(ValueError, match="ch02/copy_roof"):
        figures.figure("copy_roof", "en", {COPY_ROOF: fake(COPY_ROOF, "cpu", data=bad)})


# ---------------------------------------------------------------- roofline


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("lang", figures.LANGS)
def test_roofline_places_every_measured_kernel_and_both_measured_roofs(cpu, lang, layout):
    data = cpu[MM_VS_ADD].data
    root = parse(figures.figure("roofline", lang, cpu).svgs[layout])
    chart = chart_of(root, "roofline")
    marks = ticks(chart)
    points = with_class(chart, "kb-point")
    expected = [("matmul", m["intensity"], m["flop_per_s"]) for m in data["matmuls"]]
    expected.append(("add", data["add"]["intensity"], data["add"]["flop_per_s"]))
    assert [p.get("data-op") for p in points] == [op for op, _, _ in expected]
    assert [int(p.get("data-n")) for p in points if p.get("data-n")] == [m["n"] for m in data["matmuls"]]
    for point, (_, intensity, flops) in zip(points, expected):
        x, y = centre(point)
        assert x == pytest.approx(place(marks["x"], intensity), abs=0.15)
        assert y == pytest.approx(place(marks["y"], flops), abs=0.15)
    # the roofs: a slope of the copy's bandwidth up to the ridge, then flat at the fastest matmul
    (roof,) = with_class(chart, "kb-roofline")
    (x0, y0), (xr, yr), (x1, y1) = [tuple(map(float, p.split(","))) for p in roof.get("points").split()]
    ridge, peak, bw = data["ridge_intensity"], data["peak_flop_per_s"], data["copy_bytes_per_s"]
    assert ridge == pytest.approx(peak / bw)
    assert (xr, yr) == (pytest.approx(place(marks["x"], ridge), abs=0.15), pytest.approx(place(marks["y"], peak), abs=0.15))
    assert y1 == yr and x1 > xr
    # along the slope FLOP/s = bandwidth x intensity: invert the axes at its left end
    lx = 10 ** (math.log10(marks["x"][0][0]) + (x0 - marks["x"][0][1]) / (marks["x"][-1][1] - marks["x"][0][1])
                * (math.log10(marks["x"][-1][0]) - math.log10(marks["x"][0][0])))
    assert y0 == pytest.approx(place(marks["y"], bw * lx), abs=0.2)
    (ridge_line,) = with_class(chart, "kb-ridge")
    assert float(ridge_line.get("x1")) == pytest.approx(xr, abs=0.15)
    labels = " ".join("".join(t.itertext()) for t in with_class(chart, "kb-roof-label"))
    assert format_bandwidth(bw) in labels and format_si(peak, "FLOP/s") in labels


def test_roofline_refuses_roofs_that_do_not_meet_at_the_ridge(cpu):
    data = dict(cpu[MM_VS_ADD].data, ridge_intensity=cpu[MM_VS_ADD].data["ridge_intensity"] * 2)
    with pytest.raises(ValueError, match="ch02/mm_vs_add.*ridge_intensity"):
        figures.figure("roofline", "en", {MM_VS_ADD: dataclasses.replace(cpu[MM_VS_ADD], data=data)})
    with pytest.raises(ValueError, match="ch02/mm_vs_add.*no matmuls"):
        figures.figure("roofline", "en", {MM_VS_ADD: fake(MM_VS_ADD, "cpu", data={"add": {}})})


def test_roofline_alt_and_caption_say_what_was_measured_where(cpu):
    fig = figures.figure("roofline", "en", cpu)
    data = cpu[MM_VS_ADD].data
    assert "CPU rehearsal" in fig.caption and "measured in that run" in fig.caption
    for n in (data["matmuls"][0]["n"], data["matmuls"][-1]["n"]):
        assert f"n = {n}" in fig.alt
    assert format_si(data["add"]["flop_per_s"], "FLOP/s") in fig.alt


# ---------------------------------------------------------------- cos_chain


def cos_chain_capture(order: list[tuple[str, int]], launches: dict[tuple[str, int], int]) -> object:
    ks = sorted({k for _, k in order})
    rows = [{"k": k, "eager_s": 1e-4 * k, "compiled_s": 1e-4 + 1e-6 * k} for k in ks]
    data = {"ks": ks, "sessions": [{"mode": m, "k": k} for m, k in order], "rows": rows}
    sessions = tuple(Session(i, "cuda", (), launches[key]) for i, key in enumerate(order))
    return dataclasses.replace(fake(COS_CHAIN, "cuda", data=data), sessions=sessions)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("lang", figures.LANGS)
def test_cos_chain_draws_the_launches_of_each_profiled_session_and_the_times(cpu, lang, layout):
    cap = cpu[COS_CHAIN]
    fig = figures.figure("cos_chain", lang, cpu)
    root = parse(fig.svgs[layout])
    # what the capture's profiling sessions counted, matched by results.sessions
    counted = {(s["mode"], s["k"]): session.launches for s, session in zip(cap.data["sessions"], cap.sessions)}
    unit = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}[fig.data["time_unit"]]
    for name, value in (("launches", lambda mode, k, row: counted[mode, k]),
                        ("time", lambda mode, k, row: row[f"{mode}_s"] / unit)):
        chart = chart_of(root, name)
        marks = ticks(chart)
        for mode in ("eager", "compiled"):
            points = [p for p in with_class(chart, "kb-point") if p.get("data-series") == mode]
            assert [int(p.get("data-k")) for p in points] == cap.data["ks"]
            for point, row in zip(points, cap.data["rows"]):
                x, y = centre(point)
                assert x == pytest.approx(place(marks["x"], row["k"], log=False), abs=0.15)
                assert y == pytest.approx(place(marks["y"], value(mode, row["k"], row), log=False), abs=0.15)
    assert fig.data["launches"] == {"eager": [counted["eager", k] for k in cap.data["ks"]],
                                    "compiled": [counted["compiled", k] for k in cap.data["ks"]]}


def test_cos_chain_maps_sessions_by_their_names_not_their_order():
    order = [("compiled", 2), ("eager", 1), ("eager", 2), ("compiled", 1)]
    launches = {("eager", 1): 1, ("eager", 2): 2, ("compiled", 1): 1, ("compiled", 2): 1}
    fig = figures.figure("cos_chain", "en", {COS_CHAIN: cos_chain_capture(order, launches)})
    assert fig.data["launches"] == {"eager": [1, 2], "compiled": [1, 1]}
    assert "eager: 1, 2; torch.compile: 1, 1" in fig.alt and "NVIDIA H200" in fig.caption
    assert fig.data["time_unit"] == "µs"  # 200 µs at most: the axis counts in µs


def test_cos_chain_refuses_sessions_it_cannot_match():
    order = [("eager", 1), ("eager", 1)]
    with pytest.raises(ValueError, match=r"results.sessions\[1\]"):
        figures.figure("cos_chain", "en", {COS_CHAIN: cos_chain_capture(order, {("eager", 1): 1})})
    cap = cos_chain_capture([("eager", 1), ("compiled", 1)], {("eager", 1): 1, ("compiled", 1): 1})
    with pytest.raises(ValueError, match="names 2 profiling session.*recorded 1"):
        figures.figure("cos_chain", "en", {COS_CHAIN: dataclasses.replace(cap, sessions=cap.sessions[:1])})


@pytest.mark.parametrize("name, missing", [("copy_roof", COPY_ROOF), ("roofline", MM_VS_ADD), ("cos_chain", COS_CHAIN)])
def test_a_missing_capture_is_named(name, missing):
    with pytest.raises(KeyError, match=missing):
        figures.figure(name, "ja", {})
