"""figures.py: every figure as inline SVG, in both languages, from captures; chapter 1's figures in detail
(chapter 2's: test_figures_ch02.py)."""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import crafted_gpu
from kernelbook.common import records
from kernelbook.site import figures
from kernelbook.common.records import Capture, Environment, Event, Freshness, Kernel, Session

ROOT = Path(__file__).resolve().parents[1]
CAPTURES = ROOT / "snippets" / "ch01" / "captures"
SVG = "{http://www.w3.org/2000/svg}"
EAGER, COMPILED, SWEEP = "ch01/eager_profile", "ch01/compiled_profile", "ch01/size_sweep"


def committed_cpu(snippet: str) -> Capture:
    """The committed CPU capture of ``snippet`` ("ch01/size_sweep")."""
    chapter, stem = snippet.split("/")
    return records.load(ROOT / "snippets" / chapter / "captures" / f"{stem}.cpu.json")


@pytest.fixture(scope="module")
def cpu() -> dict[str, Capture]:
    """What each figure is drawn from on a CPU-built page: the committed CPU captures (a GPU-only figure
    draws its placeholder from them), but chapter 4's timed snippets as crafted CUDA-shaped captures,
    so that its GPU-only figures are drawn here too (tests/crafted_gpu.py)."""
    committed = {snippet: committed_cpu(snippet) for kind in figures.KINDS.values() for snippet in kind.needs}
    return {**committed, **crafted_gpu.all_captures()}


def fake(snippet: str, device: str, events=(), data=None, stdout: str = "", launches: int | None = None) -> Capture:
    evs = tuple(Event(*e) for e in events)
    kernels: dict[str, list] = {}
    for e in evs:
        if e.kind == "kernel":
            kernels.setdefault(e.name, [0, 0.0])
            kernels[e.name][0] += 1
            kernels[e.name][1] += e.dur_us
    n = sum(1 for e in evs if e.kind == "kernel") if launches is None else launches
    sessions = (Session(0, device, tuple(Kernel(k, c, t) for k, (c, t) in kernels.items()), n, evs),) if evs else ()
    return Capture(
        snippet=snippet,
        device=device,
        freshness=Freshness("0" * 64, 1, "2.13.0"),
        environment=Environment(device, "NVIDIA H200" if device == "cuda" else "CPU", "2.13.0", "3.11", "Linux", "2026-01-01T00:00:00Z"),
        wall_time_s=1.0,
        stdout=stdout,
        stderr="",
        sessions=sessions,
        data=data,
    )


ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"


def cuda_profiles(eager_kernel: str = ADD) -> dict[str, Capture]:
    return {
        EAGER: fake(EAGER, "cuda", [
            ("op", "aten::add", 0.0, 24.0), ("launch", "cudaLaunchKernel", 9.0, 5.5), ("kernel", eager_kernel, 16.0, 7.2),
            ("op", "aten::relu", 30.0, 21.0), ("launch", "cudaLaunchKernel", 39.0, 4.8),
            ("kernel", "void at::native::vectorized_elementwise_kernel<4, clamp_min>(int)", 46.0, 6.9),
        ]),
        COMPILED: fake(COMPILED, "cuda", [
            ("op", "Torch-Compiled Region: 0/0", 0.0, 70.0), ("launch", "cuLaunchKernel", 52.0, 6.0),
            ("kernel", "triton_poi_fused_add_relu_0", 60.0, 6.1),
        ]),
    }


def sweep_capture(roof: float | None = 3.9e12, device: str = "cuda", stdout: str = "") -> Capture:
    rows = [{"elements": 10**k, "eager_s": 1e-5 * 1.9**k, "compiled_s": 2e-5 * 1.6**k} for k in range(2, 9)]
    data = {"device": device, "bytes_per_element": 4, "copy_bandwidth_bytes_per_s": roof, "rows": rows}
    return fake(SWEEP, device, data=data, stdout=stdout)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def with_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


# ---------------------------------------------------------------- every figure, every language


@pytest.mark.parametrize("lang", figures.LANGS)
@pytest.mark.parametrize("name", figures.FIGURES)
def test_figure_is_accessible_self_contained_svg(cpu, name, lang):
    fig = figures.figure(name, lang, cpu)
    assert (fig.name, fig.lang) == (name, lang)
    assert len(fig.svgs) == len(figures.LAYOUTS) and fig.svg == fig.svgs[0] and fig.html == "\n".join(fig.svgs)
    for layout, svg in zip(figures.LAYOUTS, fig.svgs):
        root = parse(svg)
        assert root.tag == SVG + "svg"
        assert root.get("role") == "img"
        assert root.get("width") == "100%" and root.get("height") is None and root.get("style") is None  # the CSS sizes it
        assert f"kb-layout-{layout.name}" in root.get("class").split()
        assert re.fullmatch(rf"0 0 {layout.width:g} [\d.]+", root.get("viewBox")), (layout, root.get("viewBox"))
        title_id = root.get("aria-labelledby")
        titles = [e for e in root.iter(SVG + "title") if e.get("id") == title_id]
        assert len(titles) == 1 and titles[0].text == fig.alt and fig.alt
        assert root.find(SVG + "title") is titles[0]  # the svg's own title comes first
        # no external references: no links, fonts, images or imports
        assert not re.search(r"href|@import|@font-face|url\(|<image|https?://(?!www\.w3\.org/2000/svg)", svg)
        # all text is real, selectable <text>, never below 11 viewBox units
        assert list(root.iter(SVG + "text"))
        sizes = [float(s) for s in re.findall(r"font-size:([\d.]+)px", svg)]
        assert sizes and min(sizes) >= figures.svg.SMALL
        # only the first layout shows without kernelbook.css: a bare page shows one drawing
        shown = re.search(r"\.kb-fig-[\w-]+\{display:(\w+)", svg).group(1)
        assert shown == ("block" if layout == figures.LAYOUTS[0] else "none")
    assert fig.caption and "\n" not in fig.caption and "<" not in fig.caption


def test_each_layout_keeps_its_smallest_text_legible_where_it_is_shown():
    """The wide drawing is shown down to the width where its smallest text is 11 px on screen,
    kernelbook.css switches below it, and the narrow drawing is still 11 px on a 320-px phone."""
    wide, narrow = figures.LAYOUTS
    css = (ROOT / "docs" / "assets" / "kernelbook.css").read_text(encoding="utf-8")
    switch = float(re.search(r"@container kb-figure \(width < ([\d.]+)px\)", css).group(1))
    assert figures.svg.narrowest_column(wide) <= switch < figures.svg.narrowest_column(wide) + 2
    assert figures.svg.SMALL * switch / wide.width >= figures.svg.MIN_PX
    assert figures.svg.SMALL * (320 - 32) / narrow.width >= figures.svg.MIN_PX  # a 320-px phone's column: 288 px
    assert figures.svg.SMALL * narrow.max_px / narrow.width < 20  # and not blown up on a tablet


def test_arrange_puts_panels_side_by_side_where_they_fit_and_stacks_them_where_not():
    from kernelbook.site.figures.svg import Panel, arrange

    panels = [Panel(340, 100, "<a/>"), Panel(340, 120, "<b/>")]
    wide, h = arrange(panels, 720, gap=40)
    assert wide == '<g transform="translate(0 0)"><a/></g><g transform="translate(380 0)"><b/></g>' and h == 120
    narrow, h = arrange(panels, 340, gap=40, row_gap=20)
    assert narrow == '<g transform="translate(0 0)"><a/></g><g transform="translate(0 120)"><b/></g>' and h == 240
    with pytest.raises(ValueError, match="a 400-unit panel does not fit a 340-unit drawing"):
        arrange([Panel(400, 10, "")], 340)


@pytest.mark.parametrize("lang", figures.LANGS)
def test_narrow_layouts_stack_panels_and_keep_every_part(cpu, lang):
    traffic, timeline, sweep = (parse(figures.figure(n, lang, cpu).svgs[1]) for n in ("traffic", "timeline", "sweep"))
    # sweep: the bandwidth chart under the time chart, not beside it
    placed = [g.get("transform") for g in sweep.iter(SVG + "g") if with_class(g, "kb-chart")[:1] == [g.find(SVG + "g")]]
    offsets = [tuple(map(float, re.fullmatch(r"translate\(([\d.]+) ([\d.]+)\)", t).groups())) for t in placed]
    assert len(offsets) == 2 and offsets[0] == (0, 0) and offsets[1][0] == 0 and offsets[1][1] > 200, offsets
    # traffic: every transfer and every array box is drawn
    assert len(with_class(traffic, "kb-transfer")) == 8
    labels = ["".join(t.itertext()) for t in traffic.iter(SVG + "text")]
    assert all(labels.count(a) == 2 for a in ("a", "b", "tmp", "c")), labels
    # timeline: the lane names sit above full-width lanes
    assert len(with_class(timeline, "kb-lane-label")) == 4 and len(with_class(timeline, "kb-kernel-bar")) == 3


@pytest.mark.parametrize("name", figures.FIGURES)
def test_colours_come_from_theme_variables(cpu, name):
    """Light and dark: no hard-coded black or white, colours only via var(...) or currentColor: material's
    custom properties, or kernelbook.css's own, which it sets for each palette (--kb-accent-text)."""
    svg = figures.figure(name, "en", cpu).svg
    assert not re.search(r"#000\b|#000000|#fff\b|#ffffff|\bblack\b|\bwhite\b", svg, re.I)
    for value in re.findall(r'(?:fill|stroke)="([^"]*)"', svg):
        assert value in ("currentColor", "none"), value
    style = parse(svg).find(SVG + "style").text
    for prop, value in re.findall(r"(?<![-\w])(fill|stroke|color):([^;}]*)", style):
        assert value.startswith(("var(--md-", "var(--kb-")) or value in ("currentColor", "none"), (prop, value)
    cls = f"kb-fig-{name}-en-wide"
    assert all(rule.startswith("." + cls) for rule in re.findall(r"(?:^|})([^{}]+)\{", style))  # scoped


def test_ids_are_unique_across_figures_languages_and_layouts(cpu):
    ids = [e.get("id") for n in figures.FIGURES for lang in figures.LANGS for svg in figures.figure(n, lang, cpu).svgs
           for e in parse(svg).iter() if e.get("id")]
    assert len(ids) == len(set(ids)) == len(figures.FIGURES) * len(figures.LANGS) * len(figures.LAYOUTS)


@pytest.mark.parametrize(
    "name, ja, en",
    [
        ("traffic", ["転送", "GPU メモリ", "GPU チップ"], ["transfers", "GPU memory", "GPU chip"]),
        ("timeline", ["カーネル", "CPU カーネル", "プロファイル開始からの時間 (µs)"], ["kernels", "CPU kernels", "time since the profile started (µs)"]),
        ("sweep", ["要素数", "1 回あたりの時間", "実効帯域幅", "単純なコピー"], ["elements", "time per call", "effective bandwidth", "plain copy"]),
        ("copy_roof", ["キャッシュ", "対数目盛", "Python のループから"], ["cache", "log scale", "from a Python loop"]),
        ("roofline", ["算術強度", "メモリ律速", "計算律速", "最速の行列積"], ["arithmetic intensity", "memory-bound", "compute-bound", "fastest matmul"]),
        ("cos_chain", ["イーガー版", "1 回あたりの時間", "カーネル数"], ["eager", "time per call", "kernels per call"]),
        ("regions", ["コンパイル済み領域", "グラフ間の演算", "グラフブレーク 1 個"], ["compiled regions", "ops between graphs", "1 graph break"]),
        ("overhead", ["GPU ではまだ計測していません"], ["Not yet measured on a GPU"]),  # a CPU capture: the placeholder
    ],
)
def test_labels_are_translated(cpu, name, ja, en):
    for lang, words, others in (("ja", ja, en), ("en", en, ja)):
        fig = figures.figure(name, lang, cpu)
        texts = " ".join("".join(t.itertext()) for t in parse(fig.svg).iter(SVG + "text"))
        for word in words:
            assert word in texts, (lang, word)
        assert not any(w in texts for w in others if w not in words), lang
    assert figures.figure(name, "ja", cpu).alt != figures.figure(name, "en", cpu).alt


@pytest.mark.parametrize("name", figures.FIGURES)
def test_output_is_deterministic(cpu, name):
    crafted = crafted_gpu.all_captures()
    reloaded = {k: crafted[k] if k in crafted else committed_cpu(k) for k in cpu}
    for lang in figures.LANGS:
        assert figures.figure(name, lang, cpu) == figures.figure(name, lang, cpu) == figures.figure(name, lang, reloaded)


# ---------------------------------------------------------------- traffic


def test_traffic_counts_come_from_the_table():
    assert figures.transfers("eager") == 5 and figures.transfers("fused") == 3
    assert figures.round_trips("eager") == ("tmp",) and figures.round_trips("fused") == ()


@pytest.mark.parametrize("lang, five, three", [("en", "5 transfers", "3 transfers"), ("ja", "転送 5 回", "転送 3 回")])
def test_traffic_draws_every_transfer_and_the_round_trip(lang, five, three):
    fig = figures.figure("traffic", lang, {})  # drawn from the table: needs no capture
    root = parse(fig.svg)
    assert fig.data["eager_transfers"] == 5 and fig.data["fused_transfers"] == 3
    panels = {p.get("data-version"): p for p in with_class(root, "kb-panel")}
    assert set(panels) == {"eager", "fused"}
    arrows = {v: with_class(p, "kb-transfer") for v, p in panels.items()}
    assert (len(arrows["eager"]), len(arrows["fused"])) == (5, 3)
    assert len(with_class(root, "kb-transfer")) == 8
    described = [(a.get("data-kernel"), a.get("data-direction"), a.get("data-array")) for a in arrows["eager"]]
    assert described == [("add", "read", "a"), ("add", "read", "b"), ("add", "write", "tmp"), ("relu", "read", "tmp"), ("relu", "write", "c")]
    assert [(a.get("data-direction"), a.get("data-array")) for a in arrows["fused"]] == [("read", "a"), ("read", "b"), ("write", "c")]
    trips = with_class(root, "kb-roundtrip")
    assert [(a.get("data-direction"), a.get("data-array")) for a in trips] == [("write", "tmp"), ("read", "tmp")]
    counts = ["".join(t.itertext()) for t in with_class(root, "kb-transfer-count")]
    assert counts == [five, three]
    # fused: tmp is not an array in GPU memory at all
    assert len(with_class(panels["fused"], "kb-array-ghost")) == 1
    assert "tmp" in fig.alt and "5" in fig.caption and "3" in fig.caption


# ---------------------------------------------------------------- timeline


def kernel_bars(root: ET.Element, snippet: str) -> list[ET.Element]:
    group = next(g for g in with_class(root, "kb-group") if g.get("data-snippet") == snippet)
    return with_class(group, "kb-kernel-bar")


def cpu_bars(root: ET.Element, snippet: str) -> list[ET.Element]:
    group = next(g for g in with_class(root, "kb-group") if g.get("data-snippet") == snippet)
    return with_class(group, "kb-cpu-bar")


@pytest.mark.parametrize("lang", figures.LANGS)
def test_timeline_draws_one_bar_per_launch_cpu(cpu, lang):
    fig = figures.figure("timeline", lang, cpu)
    root = parse(fig.svg)
    eager, compiled = cpu[EAGER].last_session, cpu[COMPILED].last_session
    assert (eager.launches, compiled.launches) == (2, 1)  # the chapter's claim
    assert len(kernel_bars(root, EAGER)) == eager.launches
    assert len(kernel_bars(root, COMPILED)) == compiled.launches
    assert len(with_class(root, "kb-kernel-bar")) == 3
    assert {k: v for k, v in fig.data.items() if k != "axis_us"} == {
        "eager_kernel_bars": 2,
        "compiled_kernel_bars": 1,
        "device": "cpu",
        "sources": ["ch01/eager_profile (cpu)", "ch01/compiled_profile (cpu)"],
    }
    # the shared axis runs from the start of each profile past the last thing it drew, read from the traces
    t_end = max(max(ts + dur for _, ts, dur in ops) for ops in map(trace_ops, (EAGER, COMPILED)))
    assert t_end <= fig.data["axis_us"] < 1.5 * t_end
    # the CPU lane holds the top-level ops; the kernels lane is labelled as CPU work, not GPU
    labels = ["".join(t.itertext()) for t in with_class(root, "kb-lane-label")]
    assert labels == (["CPU ops", "CPU kernels"] * 2 if lang == "en" else ["CPU 演算", "CPU カーネル"] * 2)
    ops = [e for e in eager.events if e.kind == "op"] + [e for e in compiled.events if e.kind == "op"]
    assert len(with_class(root, "kb-cpu-bar")) == len(ops)


def trace_ops(snippet: str) -> list[tuple[str, float, float]]:
    """(name, start, duration) of every CPU op in the snippet's committed CPU trace, read with gzip and
    json alone, times in µs from the first op's start (where its profile's drawing starts)."""
    path = CAPTURES / f"{snippet.split('/')[1]}.cpu.trace0.json.gz"
    events = [e for e in json.loads(gzip.decompress(path.read_bytes()))["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    origin = min(float(e["ts"]) for e in events)
    return [(e["name"], float(e["ts"]) - origin, float(e.get("dur", 0))) for e in events]


def band(root: ET.Element, snippet: str) -> tuple[float, float]:
    """Where a group's time axis lies: the x and width of its lanes."""
    group = next(g for g in with_class(root, "kb-group") if g.get("data-snippet") == snippet)
    rect = with_class(group, "kb-band")[0]
    return float(rect.get("x")), float(rect.get("width"))


@pytest.mark.parametrize("lang", figures.LANGS)
def test_timeline_bars_sit_where_the_trace_says_their_kernels_started(cpu, lang):
    fig = figures.figure("timeline", lang, cpu)
    root = parse(fig.svg)
    for snippet in (EAGER, COMPILED):
        x0, span = band(root, snippet)
        scale = span / fig.data["axis_us"]
        names = [k.name for k in cpu[snippet].last_session.kernels]
        starts = sorted((ts, dur) for name, ts, dur in trace_ops(snippet) if name in names)
        bars = kernel_bars(root, snippet)
        assert len(starts) == len(bars) == cpu[snippet].last_session.launches
        for bar, (ts, dur) in zip(bars, starts):
            assert float(bar.get("x")) == pytest.approx(x0 + ts * scale, abs=0.051), (snippet, ts)
            assert float(bar.get("width")) == pytest.approx(max(dur * scale, 2.0), abs=0.051)
    # eager's two kernels ran one after the other: their bars do too, at different places
    first, second = (float(b.get("x")) for b in kernel_bars(root, EAGER))
    assert first < second


def test_timeline_bars_are_to_scale_on_one_axis(cpu):
    root = parse(figures.figure("timeline", "en", cpu).svg)
    px_per_us = []
    for snippet in (EAGER, COMPILED):
        kernels_ = [e for e in cpu[snippet].last_session.events if e.kind == "kernel"]
        for bar, event in zip(kernel_bars(root, snippet), sorted(kernels_, key=lambda e: e.ts_us)):
            px_per_us.append(float(bar.get("width")) / event.dur_us)
    assert max(px_per_us) == pytest.approx(min(px_per_us), rel=0.02)  # every bar, one scale


def test_timeline_on_cuda_shows_launches_and_gpu_kernels():
    fig = figures.figure("timeline", "en", cuda_profiles())
    root = parse(fig.svg)
    assert fig.data["device"] == "cuda" and (fig.data["eager_kernel_bars"], fig.data["compiled_kernel_bars"]) == (2, 1)
    assert len(with_class(root, "kb-kernel-bar")) == 3
    assert len(with_class(root, "kb-cpu-bar")) == 3  # one launch call per kernel, ops not drawn
    # each bar starts where its event does, on the axis both groups share
    x0, span = band(root, EAGER)
    assert fig.data["axis_us"] == 80.0  # the last bar ends at 60 + 6.1 = 66.1 µs; the axis runs to the next 20 µs step
    scale = span / fig.data["axis_us"]
    for snippet, cap in cuda_profiles().items():
        events = sorted((e for e in cap.last_session.events if e.kind in ("kernel", "launch")), key=lambda e: (e.kind, e.ts_us))
        drawn = [(b, "kernel") for b in kernel_bars(root, snippet)] + [(b, "launch") for b in cpu_bars(root, snippet)]
        for (bar, kind), event in zip(sorted(drawn, key=lambda d: (d[1], float(d[0].get("x")))), events):
            assert (kind, float(bar.get("x"))) == (event.kind, pytest.approx(x0 + event.ts_us * scale, abs=0.051))
    labels = ["".join(t.itertext()) for t in with_class(root, "kb-lane-label")]
    assert labels == ["CPU launches", "GPU kernels"] * 2
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    assert any("CUDAFunctor_add" in t for t in texts)  # short names, truncated keeping what it computes
    tips = [t.text for t in root.iter(SVG + "title")]
    assert any(t.startswith(ADD) for t in tips)  # the full name in the tooltip
    assert "NVIDIA H200" in fig.caption


def test_timeline_mixed_devices_says_so():
    caps = cuda_profiles()
    caps[COMPILED] = fake(COMPILED, "cpu", [("op", "Torch-Compiled Region: 0/0", 0.0, 90.0), ("kernel", "graph_0_cpp_fused_add_relu_0", 10.0, 70.0)])
    fig = figures.figure("timeline", "en", caps)
    assert fig.data["device"] == "mixed"
    assert fig.data["sources"] == ["ch01/eager_profile (cuda)", "ch01/compiled_profile (cpu)"]


@pytest.mark.parametrize("lang", figures.LANGS)
def test_timeline_escapes_kernel_names(lang):
    nasty = "void f<int, a&b>(x)"
    fig = figures.figure("timeline", lang, cuda_profiles(eager_kernel=nasty))
    root = parse(fig.svg)  # well-formed XML
    assert "a&amp;b" in fig.svg and nasty not in fig.svg
    assert any(t.text and t.text.startswith(nasty) for t in root.iter(SVG + "title"))


def test_timeline_refuses_a_capture_whose_events_do_not_match_its_launches():
    caps = cuda_profiles()
    caps[EAGER] = dataclasses.replace(caps[EAGER], sessions=(dataclasses.replace(caps[EAGER].sessions[0], launches=3),))
    with pytest.raises(ValueError, match="ch01/eager_profile.*3 kernel launches but 2"):
        figures.figure("timeline", "en", caps)
    caps[EAGER] = fake(EAGER, "cpu")  # no profiling session at all
    with pytest.raises(ValueError, match="ch01/eager_profile.*no profiling session"):
        figures.figure("timeline", "en", caps)


# ---------------------------------------------------------------- sweep


@pytest.mark.parametrize("lang", figures.LANGS)
def test_sweep_one_point_per_row_per_series_and_the_copy_beside_them(cpu, lang):
    """The run timed a plain copy at every length: it is drawn as a third series, the yardstick at each length."""
    fig = figures.figure("sweep", lang, cpu)
    root = parse(fig.svg)
    rows = cpu[SWEEP].data["rows"]
    assert all("copy_s" in r for r in rows)
    charts = {c.get("data-chart"): c for c in with_class(root, "kb-chart")}
    assert set(charts) == {"time", "bandwidth"}
    for chart in charts.values():
        for series in ("eager", "compiled", "copy"):
            points = [p for p in with_class(chart, "kb-point") if p.get("data-series") == series]
            assert [int(p.get("data-elements")) for p in points] == [r["elements"] for r in rows]
    assert not with_class(root, "kb-roof")  # no one-length roof: the copy is measured at each length
    assert fig.data == {
        "points": len(rows),
        "roof_gbs": None,
        "device": "cpu",
        "source": "ch01/size_sweep (cpu)",
        "series": ["eager", "compiled", "copy"],
        "bytes_moved_per_element": {"eager": 20, "compiled": 12, "copy": 8},
    }
    # the copy's bandwidth points: 2 arrays of n float32 over its time, read from the tooltip
    chart = charts["bandwidth"]
    for point, row in zip([p for p in with_class(chart, "kb-point") if p.get("data-series") == "copy"], rows):
        value, unit = re.search(r": ([\d.]+) (\w?)B/s", point.find(SVG + "title").text).groups()
        shown = float(value) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[unit]
        assert shown == pytest.approx(2 * row["elements"] * 4 / row["copy_s"], rel=0.01)


@pytest.mark.parametrize("lang", figures.LANGS)
def test_sweep_without_per_length_copies_draws_the_copy_bandwidth_as_a_roof(lang):
    cap = sweep_capture()
    fig = figures.figure("sweep", lang, {SWEEP: cap})
    root = parse(fig.svg)
    charts = {c.get("data-chart"): c for c in with_class(root, "kb-chart")}
    assert len(with_class(charts["bandwidth"], "kb-roof")) == 1 and not with_class(charts["time"], "kb-roof")
    assert not [p for p in with_class(root, "kb-point") if p.get("data-series") == "copy"]
    roof_gbs = cap.data["copy_bandwidth_bytes_per_s"] / 1e9
    assert fig.data["roof_gbs"] == round(roof_gbs, 3) and fig.data["series"] == ["eager", "compiled"]
    label = "".join(with_class(root, "kb-roof-label")[0].itertext())
    assert label == ("copy bandwidth 3.9 TB/s" if lang == "en" else "コピーの帯域幅 3.9 TB/s")


def test_sweep_bandwidth_is_bytes_moved_over_time():
    """Each bandwidth point sits where 5 (eager) or 3 (compiled) arrays over the time puts it."""
    cap = sweep_capture()
    root = parse(figures.figure("sweep", "en", {SWEEP: cap}).svg)
    chart = next(c for c in with_class(root, "kb-chart") if c.get("data-chart") == "bandwidth")
    tips = {(p.get("data-series"), int(p.get("data-elements"))): p.find(SVG + "title").text for p in with_class(chart, "kb-point")}
    row = cap.data["rows"][-1]
    n = row["elements"]
    assert f"({5} arrays moved)" in tips["eager", n] and f"({3} arrays moved)" in tips["compiled", n]
    for series, arrays, seconds in (("eager", 5, row["eager_s"]), ("compiled", 3, row["compiled_s"])):
        value, unit = re.search(r": ([\d.]+) (\w?)B/s", tips[series, n]).groups()
        shown = float(value) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[unit]
        assert shown == pytest.approx(arrays * n * 4 / seconds, rel=0.01)


def test_sweep_log_axes_label_decades():
    root = parse(figures.figure("sweep", "en", {SWEEP: sweep_capture()}).svg)
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    for tick in ("100", "1k", "10k", "100k", "1M", "10M", "100M", "10 µs", "1 GB/s", "1 TB/s"):
        assert tick in texts, tick


def test_sweep_without_copy_bandwidth_has_no_roof():
    fig = figures.figure("sweep", "ja", {SWEEP: sweep_capture(roof=None)})
    assert fig.data["roof_gbs"] is None and fig.data["device"] == "cuda"
    assert not with_class(parse(fig.svg), "kb-roof") and "コピーの帯域幅" not in fig.svg
    assert "NVIDIA H200" in fig.caption


@pytest.mark.parametrize("bad", [{"rows": []}, None, {"rows": [{"elements": 100, "eager_s": 0, "compiled_s": 1e-5}]}])
def test_sweep_refuses_unusable_data(bad):
    with pytest.raises(ValueError, match="ch01/size_sweep"):
        figures.figure("sweep", "en", {SWEEP: fake(SWEEP, "cpu", data=bad)})


# ---------------------------------------------------------------- errors and keys


@pytest.mark.parametrize("name, missing", [("timeline", EAGER), ("sweep", SWEEP)])
def test_missing_capture_is_named(name, missing):
    with pytest.raises(KeyError, match=missing) as info:
        figures.figure(name, "ja", {})
    assert str(info.value).startswith(f"figure '{name}' needs the capture of {missing}")
    with pytest.raises(KeyError, match=missing):
        figures.data_key(name, {})


def test_unknown_figure_or_language():
    with pytest.raises(ValueError, match="unknown figure 'pie'"):
        figures.figure("pie", "en", {})
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        figures.figure("traffic", "fr", {})


def test_data_key_follows_the_drawn_data_only(cpu):
    keys = {n: figures.data_key(n, cpu) for n in figures.FIGURES}
    assert all(re.fullmatch(r"[0-9a-f]{64}", k) for k in keys.values()) and len(set(keys.values())) == len(figures.FIGURES)
    assert figures.data_key("timeline", dict(cpu)) == keys["timeline"]

    # unrelated changes: stdout, wall time, other snippets
    noisy = {k: dataclasses.replace(c, stdout=c.stdout + "more output\n", wall_time_s=c.wall_time_s + 1) for k, c in cpu.items()}
    noisy["ch01/first_call"] = fake("ch01/first_call", "cpu", stdout="hello")
    assert {n: figures.data_key(n, noisy) for n in figures.FIGURES} == keys
    assert figures.data_key("traffic", {}) == keys["traffic"]

    # a kernel's time changes: the timeline's key changes, the others do not
    eager = cpu[EAGER]
    session = eager.last_session
    events = tuple(dataclasses.replace(e, dur_us=e.dur_us + 1.0) if e.kind == "kernel" else e for e in session.events)
    slower = dict(cpu, **{EAGER: dataclasses.replace(eager, sessions=(*eager.sessions[:-1], dataclasses.replace(session, events=events)))})
    assert figures.data_key("timeline", slower) != keys["timeline"]
    assert figures.data_key("sweep", slower) == keys["sweep"]

    # a sweep time changes
    data = dict(cpu[SWEEP].data, rows=[dict(r) for r in cpu[SWEEP].data["rows"]])
    data["rows"][0]["eager_s"] *= 2
    changed = dict(cpu, **{SWEEP: dataclasses.replace(cpu[SWEEP], data=data)})
    assert figures.data_key("sweep", changed) != keys["sweep"]
    assert figures.data_key("timeline", changed) == keys["timeline"]


# ---------------------------------------------------------------- regions (chapter 3's graph break)

GRAPH_BREAK, REDUCE_OVERHEAD = "ch03/graph_break", "ch03/reduce_overhead"
CH03 = ROOT / "snippets" / "ch03" / "captures"


def trace_ranges(index: int) -> dict[str, list[tuple[str, float, float]]]:
    """(name, start, duration) of the compiled regions, graph calls and kernels in session
    ``index`` of graph_break's committed CPU trace, read with gzip and json alone, in µs from
    the session's first op."""
    path = CH03 / f"graph_break.cpu.trace{index}.json.gz"
    ops = [e for e in json.loads(gzip.decompress(path.read_bytes()))["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    origin = min(float(e["ts"]) for e in ops)
    pick = {"region": lambda n: n.startswith("Torch-Compiled Region"), "graph": lambda n: n.startswith("## Call CompiledFxGraph"),
            "kernel": lambda n: "cpp_fused_" in n}
    return {kind: sorted((e["name"], float(e["ts"]) - origin, float(e["dur"])) for e in ops if test(e["name"]))
            for kind, test in pick.items()}


def panel_of(root: ET.Element, function: str) -> ET.Element:
    return next(g for g in with_class(root, "kb-regions-panel") if g.get("data-function") == function)


@pytest.mark.parametrize("lang", figures.LANGS)
@pytest.mark.parametrize("layout", [0, 1])
def test_regions_bars_sit_where_the_trace_puts_each_region_graph_and_kernel(cpu, lang, layout):
    capture = cpu[GRAPH_BREAK]
    fig = figures.figure("regions", lang, cpu)
    root = parse(fig.svgs[layout])
    for index, part in enumerate(("broken", "fixed")):
        results = capture.data[part]
        panel = panel_of(root, results["function"])
        lane = with_class(panel, "kb-band")[0]
        x0, span = float(lane.get("x")), float(lane.get("width"))
        scale = span / float(panel.get("data-axis-us"))
        truth = trace_ranges(index)
        assert len(truth["region"]) == results["compiled_regions"] == (2 if part == "broken" else 1)  # the claim, from the trace
        for kind in ("region", "graph", "kernel"):
            bars = with_class(panel, f"kb-{kind}-bar")
            assert len(bars) == len(truth[kind]), (part, kind)
            for bar, (name, ts, dur) in zip(sorted(bars, key=lambda b: float(b.get("x"))), sorted(truth[kind], key=lambda t: t[1])):
                assert float(bar.get("x")) == pytest.approx(x0 + ts * scale, abs=0.051), (part, name)
                assert float(bar.get("width")) == pytest.approx(max(dur * scale, 2.0), abs=0.051), (part, name)
        # every bar ends inside its lane: the axis reaches past the last one
        assert all(float(b.get("x")) + float(b.get("width")) <= x0 + span + 0.051 for b in with_class(panel, "kb-kernel-bar"))


def test_regions_draw_the_resumed_region_inside_the_first_and_python_between_the_graphs(cpu):
    root = parse(figures.figure("regions", "en", cpu).svg)
    broken, fixed = (panel_of(root, cpu[GRAPH_BREAK].data[p]["function"]) for p in ("broken", "fixed"))
    outer, inner = sorted(with_class(broken, "kb-region-bar"), key=lambda b: float(b.get("x")))
    assert float(inner.get("y")) > float(outer.get("y"))  # one row lower
    assert float(outer.get("x")) < float(inner.get("x"))
    assert float(inner.get("x")) + float(inner.get("width")) <= float(outer.get("x")) + float(outer.get("width")) + 0.051
    names = ["".join(t.itertext()) for g in with_class(broken, "kb-region") for t in g.iter(SVG + "text")]
    assert names == ["0/0", "1/0"]
    # the ops between the graphs: after the first graph call ends, before the second starts
    first, second = sorted(with_class(broken, "kb-graph-bar"), key=lambda b: float(b.get("x")))
    (between,) = with_class(broken, "kb-cpu-bar")
    assert float(first.get("x")) + float(first.get("width")) <= float(between.get("x")) < float(second.get("x"))
    assert "aten::is_nonzero" in ["".join(t.itertext()) for t in broken.iter(SVG + "text")]
    assert not with_class(fixed, "kb-cpu-bar") and len(with_class(fixed, "kb-region-bar")) == 1
    assert len(with_class(fixed, "kb-graph-bar")) == 1


@pytest.mark.parametrize("lang", figures.LANGS)
def test_regions_data_alt_and_caption_say_what_the_capture_holds(cpu, lang):
    capture = cpu[GRAPH_BREAK]
    fig = figures.figure("regions", lang, cpu)
    broken, fixed = capture.data["broken"], capture.data["fixed"]
    assert [{k: p[k] for k in ("function", "regions", "region_rows", "graphs", "kernels", "between")} for p in fig.data["panels"]] == [
        {"function": broken["function"], "regions": broken["compiled_regions"], "region_rows": [0, 1], "graphs": broken["graph_count"],
         "kernels": capture.sessions[0].launches, "between": ["aten::is_nonzero"]},
        {"function": fixed["function"], "regions": fixed["compiled_regions"], "region_rows": [0], "graphs": fixed["graph_count"],
         "kernels": capture.sessions[1].launches, "between": []},
    ]
    assert fig.data["source"] == "ch03/graph_break (cpu)"
    for words in (broken["function"], fixed["function"], "aten::is_nonzero", "0/0", "1/0"):
        assert words in fig.alt
    assert ("CPU rehearsal" if lang == "en" else "CPU での予行演習") in fig.caption
    headings = ["".join(t.itertext()) for t in parse(fig.svg).iter(SVG + "text") if t.get("class") == "kb-bold"]
    assert headings == ([f"{broken['function']}: 2 compiled regions, 1 graph break", f"{fixed['function']}: 1 compiled region, 0 graph breaks"]
                        if lang == "en" else
                        [f"{broken['function']}: コンパイル済み領域 2 個、グラフブレーク 1 個", f"{fixed['function']}: コンパイル済み領域 1 個、グラフブレーク 0 個"])


def _without_regions(capture: Capture) -> Capture:
    sessions = tuple(dataclasses.replace(s, events=tuple(e for e in s.events if e.kind != "region")) for s in capture.sessions)
    return dataclasses.replace(capture, sessions=sessions)


def test_regions_refuses_a_capture_that_cannot_show_them(cpu):
    capture = cpu[GRAPH_BREAK]
    with pytest.raises(ValueError, match=r"ch03/graph_break \(cpu\): session 0 records no compiled regions.*kernelbook capture --force"):
        figures.figure("regions", "en", {GRAPH_BREAK: _without_regions(capture)})
    miscounted = dict(capture.data, broken=dict(capture.data["broken"], compiled_regions=3))
    with pytest.raises(ValueError, match=r"session 0 holds 2 compiled regions but the snippet counted 3"):
        figures.figure("regions", "en", {GRAPH_BREAK: dataclasses.replace(capture, data=miscounted)})
    with pytest.raises(ValueError, match=r"expected 2 profiling sessions"):
        figures.figure("regions", "en", {GRAPH_BREAK: dataclasses.replace(capture, sessions=capture.sessions[:1])})


def test_regions_on_a_gpu_name_the_lane_gpu_kernels(cpu):
    capture = cpu[GRAPH_BREAK]
    sessions = tuple(dataclasses.replace(s, device_kind="cuda") for s in capture.sessions)
    env = dataclasses.replace(capture.environment, device_kind="cuda", device_name="NVIDIA H200")
    gpu = dataclasses.replace(capture, device="cuda", sessions=sessions, environment=env)
    fig = figures.figure("regions", "en", {GRAPH_BREAK: gpu})
    labels = ["".join(t.itertext()) for t in with_class(parse(fig.svg), "kb-lane-label")]
    assert labels == ["compiled regions", "inductor graphs", "GPU kernels", "ops between graphs"] * 2
    assert "NVIDIA H200" in fig.caption


# ---------------------------------------------------------------- overhead (CUDA graphs) and GPU-only figures


def overhead_capture(device: str = "cuda") -> Capture:
    rows = [{"size": "small", "batch": 16, "width": 256, "eager_s": 180e-6, "compiled_s": 95e-6, "cuda_graph_s": 41e-6},
            {"size": "large", "batch": 2048, "width": 2048, "eager_s": 2.9e-3, "compiled_s": 2.85e-3, "cuda_graph_s": 2.8e-3}]
    launches = {"eager": {"kernel_launches": 16, "graph_launches": 0}, "compiled": {"kernel_launches": 16, "graph_launches": 0},
                "cuda_graph": {"kernel_launches": 0, "graph_launches": 1}}
    return fake(REDUCE_OVERHEAD, device, data={"device": device, "measured": True, "layers": 8, "rows": rows, "launches": launches})


@pytest.mark.parametrize("lang", figures.LANGS)
@pytest.mark.parametrize("layout", [0, 1])
def test_overhead_bars_are_the_captured_times_on_a_log_axis(lang, layout):
    capture = overhead_capture()
    fig = figures.figure("overhead", lang, {REDUCE_OVERHEAD: capture})
    root = parse(fig.svgs[layout])
    bars = with_class(root, "kb-bar")
    drawn = [(b.get("data-size"), b.get("data-series"), float(b.get("data-seconds"))) for b in bars]
    want = [(r["size"], v, r[f"{v}_s"]) for r in capture.data["rows"] for v in ("eager", "compiled", "cuda_graph")]
    assert drawn == want and fig.data["bars"] == [list(w) for w in want]
    # every bar starts at the axis; on a log axis the length of a bar grows by the same step per decade
    assert len({float(b.get("x")) for b in bars}) == 1
    x0 = float(bars[0].get("x"))
    ends = {seconds: x0 + float(b.get("width")) for (_, _, seconds), b in zip(drawn, bars)}
    per_decade = [(ends[a] - ends[b]) / math.log10(a / b) for a, b in ((180e-6, 41e-6), (2.9e-3, 95e-6), (2.85e-3, 41e-6))]
    assert max(per_decade) == pytest.approx(min(per_decade), rel=0.01)
    # the value beside each bar, written as the page writes seconds
    values = ["".join(t.itertext()) for b in bars for t in [next(g for g in root.iter(SVG + "g") if b in list(g)).find(SVG + "text")]]
    assert values == ["180 µs", "95.0 µs", "41.0 µs", "2.90 ms", "2.85 ms", "2.80 ms"]
    launches = " ".join("".join(t.itertext()) for t in with_class(root, "kb-launches"))
    assert (("16 kernel launches" in launches and "1 graph launch" in launches) if lang == "en"
            else ("カーネルの起動 16 回" in launches and "グラフの起動 1 回" in launches))
    assert fig.data["launches"] == capture.data["launches"] and "NVIDIA H200" in fig.caption


@pytest.mark.parametrize("lang", figures.LANGS)
def test_a_gpu_only_figure_on_a_cpu_capture_is_a_placeholder_with_nothing_of_the_cpus(cpu, lang):
    capture = cpu[REDUCE_OVERHEAD]
    assert capture.device == "cpu" and capture.data == {"device": "cpu", "measured": False}
    fig = figures.figure("overhead", lang, cpu)
    root = parse(fig.svg)
    needed = "Not yet measured on a GPU" if lang == "en" else "GPU ではまだ計測していません"
    assert fig.data == {"placeholder": True, "device": "cuda", "shown": {REDUCE_OVERHEAD: "cpu"}}
    assert ["".join(t.itertext()) for t in with_class(root, "kb-placeholder-needed")] == [needed]
    assert needed in fig.alt and ("not yet measured" if lang == "en" else "まだ計測していません") in fig.caption and REDUCE_OVERHEAD in fig.alt
    assert not with_class(root, "kb-bar") and not re.search(r"\d\s?(µs|ms)\b", fig.svg)  # no time drawn, none made up
    # even a CPU capture that holds numbers is not drawn from
    noisy = overhead_capture("cpu")
    assert figures.figure("overhead", lang, {REDUCE_OVERHEAD: noisy}).data == fig.data
    assert figures.data_key("overhead", {REDUCE_OVERHEAD: noisy}) == figures.data_key("overhead", cpu)
    assert figures.data_key("overhead", {REDUCE_OVERHEAD: overhead_capture()}) != figures.data_key("overhead", cpu)
    with pytest.raises(KeyError, match=REDUCE_OVERHEAD):  # a missing capture is still named
        figures.figure("overhead", lang, {})


def test_a_figure_for_one_device_must_say_what_it_shows():
    from kernelbook.site.figures import FigureKind

    def nothing(*args):
        raise AssertionError("never called")

    with pytest.raises(ValueError, match="needs a subject in ja, en"):
        FigureKind("gpu_only", ("ch09/x",), nothing, nothing, device="cuda")
    with pytest.raises(ValueError, match="device is 'cuda', 'cpu' or None"):
        FigureKind("tpu_only", ("ch09/x",), nothing, nothing, device="tpu", subject={"ja": "x", "en": "x"})


@pytest.mark.parametrize("layout", range(len(figures.LAYOUTS)))
@pytest.mark.parametrize("lang", figures.LANGS)
@pytest.mark.parametrize("committed", [True, False], ids=["committed-cpu", "crafted-cuda"])
def test_sweep_draws_every_point_and_line_where_the_capture_puts_it(cpu, lang, layout, committed):
    """Each series' markers and its line, point by point, at the row's length (x) and at its time or
    bytes moved over time (y), both read back through the chart's own tick labels: a series drawn with
    another's numbers, or a line that drops a point, fails."""
    from test_figures_ch02 import centre, place, ticks  # reading a drawing back through its tick labels

    captures = cpu if committed else {SWEEP: sweep_capture()}
    rows = sorted(captures[SWEEP].data["rows"], key=lambda r: r["elements"])
    series = {"eager": 5, "compiled": 3} | ({"copy": 2} if "copy_s" in rows[0] else {})
    root = parse(figures.figure("sweep", lang, captures).svgs[layout])
    charts = {c.get("data-chart"): c for c in with_class(root, "kb-chart")}
    assert set(charts) == {"time", "bandwidth"}
    for name, chart in charts.items():
        marks = ticks(chart)
        groups = {g.get("class"): g for g in chart.findall(SVG + "g") if (g.get("class") or "").startswith("kb-") and g.find(SVG + "polyline") is not None}
        assert list(groups) == [f"kb-{s}" for s in series], name
        for one, arrays in series.items():
            group = groups[f"kb-{one}"]
            line = [tuple(map(float, p.split(","))) for p in group.find(SVG + "polyline").get("points").split()]
            points = [p for p in with_class(group, "kb-point") if p.get("data-series") == one]
            assert [int(p.get("data-elements")) for p in points] == [r["elements"] for r in rows], (name, one)
            assert len(line) == len(rows) and [pytest.approx(centre(p), abs=0.15) for p in points] == line, (name, one)
            for (x, y), row in zip(line, rows):
                seconds = row[f"{one}_s"]
                value = seconds if name == "time" else arrays * row["elements"] * 4 / seconds
                assert x == pytest.approx(place(marks["x"], row["elements"]), abs=0.15), (name, one, row)
                assert y == pytest.approx(place(marks["y"], value), abs=0.15), (name, one, row)
