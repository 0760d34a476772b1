"""Figures in a tab per capture (site/pages/figure_tabs.py): each GPU's drawing, reference GPU first, the CPU's last,
linked with the examples' output tabs; the figure cache keeps one entry per capture drawn from.

The captures are crafted in temp trees, as tests/test_gpus.py crafts them: kernels from the real A100
trace in tests/fixtures/real-traces (a second GPU model: the same kernels, renamed and slower), and the
sweep's rows from the committed CPU capture of ch01/size_sweep, scaled per GPU. No GPU ran these files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, write
from test_gpus import A100, BILINGUAL, T4, cpu_capture, gpu_capture, tree

import crafted_gpu
from kernelbook.common.records import Capture, Environment
from kernelbook.site.pages import figure_tabs
from kernelbook.site.book import Entry, load_book
from kernelbook.common.snippets import Snippet

SWEEP = "ch01/size_sweep"
SCALE = {"a100_80gb": 0.01, "t4": 0.03}  # the crafted GPUs' times, as fractions of the CPU's


def sweep_captures(root: Path) -> None:
    """ch01/size_sweep captured on the A100, the T4 and the CPU, each with rows the sweep figure draws."""
    committed = json.loads((ROOT / "snippets/ch01/captures/size_sweep.cpu.json").read_text(encoding="utf-8"))
    captures = root / "snippets/ch01/captures"
    cpu = cpu_capture(root, SWEEP)
    raw = json.loads(cpu.read_text())
    cpu.write_text(json.dumps({**raw, "data": committed["data"]}))
    for gpu, rename in ((A100, False), (T4, True)):
        path = gpu_capture(root, SWEEP, gpu, rename=rename)
        raw = json.loads(path.read_text())
        rows = [{k: v * SCALE[gpu[2]] if k.endswith("_s") else v for k, v in row.items()} for row in committed["data"]["rows"]]
        raw["data"] = {**committed["data"], "device": "cuda", "rows": rows}
        path.write_text(json.dumps(raw))
    assert sorted(p.name for p in captures.iterdir()) == ["size_sweep.cpu.json", "size_sweep.cuda-a100_80gb.json", "size_sweep.cuda-t4.json"]


# ---------------------------------------------------------------- which tabs (no build)


def entry(sid: str, gpus: dict[str, Capture], cpu: bool = True, reference: str = "a100_80gb") -> Entry:
    order = sorted(gpus.items(), key=lambda kv: (kv[0] != reference, kv[0]))
    cpu_capture = Capture(sid, "cpu", crafted_gpu.cuda(sid, {}).freshness,
                          Environment("cpu", "CPU (test)", "2.13.0", "3.11", "Linux", "2026-01-01T00:00:00Z"), 1.0, "", "", (), {})
    return Entry(Snippet(sid, ROOT / "snippets" / f"{sid}.py"), order[0][1] if order else None, cpu_capture if cpu else None,
                 (), (), tuple(order), reference)


def renamed(capture: Capture, name: str) -> Capture:
    import dataclasses

    return dataclasses.replace(capture, environment=dataclasses.replace(capture.environment, device_name=name))


def test_a_figure_of_several_snippets_has_a_tab_per_device_all_of_them_ran_on():
    eager, compiled = "ch01/eager_profile", "ch01/compiled_profile"
    book = {eager: entry(eager, {"a100_80gb": crafted_gpu.cuda(eager, {}), "t4": crafted_gpu.cuda(eager, {})}),
            compiled: entry(compiled, {"a100_80gb": crafted_gpu.cuda(compiled, {})})}
    tabs = figure_tabs.tabs("timeline", book)
    # the T4 ran only the eager version: no tab mixes one GPU's run with another's
    assert [(t.label, t.key) for t in tabs] == [("A100 80GB", "a100_80gb"), ("CPU", "cpu")]
    assert tabs[1].captures[eager] is book[eager].cpu and tabs[1].captures[compiled] is book[compiled].cpu
    one = {sid: entry(sid, {"a100_80gb": crafted_gpu.cuda(sid, {})}) for sid in (eager, compiled)}
    assert [t.label for t in figure_tabs.tabs("timeline", one)] == ["CUDA", "CPU"]  # as the outputs name their one GPU
    assert figure_tabs.tabs("timeline", {sid: entry(sid, {}) for sid in (eager, compiled)}) == []  # one choice: no tabs
    assert figure_tabs.tabs("traffic", book) == []  # drawn from no capture


def test_a_gpu_only_figure_has_a_tab_per_gpu_and_none_for_the_cpu(tmp_path):
    h200 = crafted_gpu.block_size()
    t4 = renamed(h200, "Tesla T4")
    book = {h200.snippet: entry(h200.snippet, {"h200": h200, "t4": t4}, reference="h200")}
    tabs = figure_tabs.tabs("block_size_sweep", book)
    assert [(t.label, t.key) for t in tabs] == [("H200", "h200"), ("T4", "t4")]
    out = figure_tabs.page_figure(tmp_path, "block_size_sweep", "en", book, lambda drawn: None)
    assert "Not yet measured on a GPU" not in out and out.count('<figure class="kb-figure"') == 2
    assert figure_tabs.tabs("block_size_sweep", {h200.snippet: entry(h200.snippet, {"h200": h200}, reference="h200")}) == []


def test_the_figure_cache_keeps_one_entry_per_capture_drawn_from(tmp_path):
    root = tree(tmp_path / "t", snippets=(SWEEP,))
    sweep_captures(root)
    book = load_book(root)
    heard: list[bool] = []
    cache = tmp_path / "cache"
    first = figure_tabs.page_figure(cache, "sweep", "en", book, heard.append)
    assert heard == [True, True, True]
    names = sorted(p.name.rsplit(".", 2)[0] for p in (cache / "figures").iterdir())
    assert names == ["sweep.en.cpu", "sweep.en.cuda-a100_80gb", "sweep.en.cuda-t4"]
    again = figure_tabs.page_figure(cache, "sweep", "en", book, heard.append)
    assert again == first and heard[3:] == [False, False, False]  # drawing one tab never removed another's entry
    assert figure_tabs.page_figure(cache, "traffic", "en", book, heard.append).startswith('<figure class="kb-figure" id="kb-figure-traffic">')
    assert any(p.name.startswith("traffic.en.none.") for p in (cache / "figures").iterdir())


# ---------------------------------------------------------------- the built pages


CHAPTER = {
    "ja": "# 二つの GPU {{ #two-gpus }}\n\n## 長さを変える {{ #sweep }}\n\n[[kb:run ch01/size_sweep]]\n\n[[kb:figure sweep]]\n\n"
          "## 往復 {{ #traffic }}\n\n[[kb:figure traffic]]\n",
    "en": "# Two GPUs {{ #two-gpus }}\n\n## The sweep {{ #sweep }}\n\n[[kb:run ch01/size_sweep]]\n\n[[kb:figure sweep]]\n\n"
          "## Round trips {{ #traffic }}\n\n[[kb:figure traffic]]\n",
}
PREFIX = {"ja": "", "en": "en/"}


@pytest.fixture(scope="module")
def figure_site(tmp_path_factory) -> Path:
    from conftest import mkdocs_build

    base = tmp_path_factory.mktemp("figure-tabs")
    book = base / "book"
    write(book / "mkdocs.yml", BILINGUAL)
    write(book / "snippets/ch01/size_sweep.py", "print('size_sweep')\n")
    sweep_captures(book)
    for lang in ("ja", "en"):
        write(book / "docs" / lang / "index.md", f"# {lang}\n\n[ch01](ch01/index.md)\n")
        write(book / "docs" / lang / "ch01" / "index.md", CHAPTER[lang].format())
    built = mkdocs_build(book, base / "site")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-5000:]
    return base / "site"


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_figure_shows_a_tab_per_capture_reference_first_cpu_last(figure_site, lang):
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((figure_site / PREFIX[lang] / "ch01/index.html").read_text(encoding="utf-8"), "html.parser")
    tabs = soup.select_one("#kb-figure-sweep")
    assert tabs is not None and "tabbed-set" in tabs["class"]
    labels = [label.get_text(strip=True) for label in tabs.select(".tabbed-labels > label")]
    outputs = [label.get_text(strip=True) for label in soup.select(".kb-example .tabbed-labels > label")]
    assert labels == outputs == ["A100 80GB", "T4", "CPU"]
    inputs = tabs.select(":scope > input")
    assert [i.has_attr("checked") for i in inputs] == [True, False, False]
    assert [tabs.select_one(f'label[for="{i["id"]}"]').get_text(strip=True) for i in inputs] == labels
    figures = tabs.select(".tabbed-content > .tabbed-block > figure.kb-figure")
    assert [f["id"] for f in figures] == ["kb-figure-sweep-a100_80gb", "kb-figure-sweep-t4", "kb-figure-sweep-cpu"]
    captions = [f.figcaption.get_text() for f in figures]
    assert A100[0] in captions[0] and T4[0] in captions[1] and not any(g[0] in captions[2] for g in (A100, T4)), captions
    assert len(figures[0].select("svg")) == len(figures[2].select("svg")) >= 1  # every layout, in every tab
    titles = [f.svg.title.get_text() for f in figures]  # drawn from each capture's own numbers
    assert len(set(titles)) == 3, titles
    single = soup.select("figure#kb-figure-traffic")  # drawn from no capture: one figure, as always
    assert len(single) == 1 and single[0].find_parent(class_="tabbed-set") is None
    assert "[[kb:" not in soup.get_text()


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_picking_a_gpu_in_an_output_switches_the_figure_too(figure_site, browser, lang, tmp_path):
    from conftest import serving

    with serving(figure_site) as url:
        _pick_and_follow(browser, f"{url}/{PREFIX[lang]}ch01/", lang, tmp_path)


def _pick_and_follow(browser, url: str, lang: str, tmp_path) -> None:
    import os

    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(url)
        figure = page.locator("#kb-figure-sweep")

        def shown() -> tuple[str, str]:
            """The figure's checked tab, and the caption of the drawing in view."""
            checked = figure.locator(":scope > input:checked").get_attribute("id")
            visible = [f for f in figure.locator("figure.kb-figure").all() if f.is_visible()]
            assert len(visible) == 1
            return figure.locator(f'label[for="{checked}"]').inner_text().strip(), visible[0].locator("figcaption").inner_text()

        label, caption = shown()
        assert label == "A100 80GB" and A100[0] in caption
        page.locator(".kb-example .tabbed-labels > label", has_text="T4").click()
        page.wait_for_timeout(300)
        label, caption = shown()
        assert label == "T4" and T4[0] in caption and A100[0] not in caption  # linked: the figure followed the output
        figure.scroll_into_view_if_needed()
        folder = Path(os.environ.get("KERNELBOOK_SCREENSHOTS") or tmp_path)
        figure.screenshot(path=str(folder / f"figure-tabs-{lang}.png"))
        page.locator(".kb-example .tabbed-labels > label", has_text="CPU").click()
        page.wait_for_timeout(300)
        label, caption = shown()
        assert label == "CPU" and not any(g[0] in caption for g in (A100, T4))
        page.reload()
        page.wait_for_timeout(300)
        assert shown()[0] == "CPU"  # remembered across loads, as the outputs' choice is
    finally:
        context.close()


def test_ids_are_unique_on_the_page_and_each_drawing_is_labelled_by_its_own_title(figure_site):
    from bs4 import BeautifulSoup

    for lang in ("ja", "en"):
        text = (figure_site / PREFIX[lang] / "ch01/index.html").read_text(encoding="utf-8")
        ids = re.findall(r'\sid="([^"]+)"', text)
        assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
        svgs = BeautifulSoup(text, "html.parser").select("#kb-figure-sweep svg")
        assert len(svgs) >= 3 and all(svg["aria-labelledby"] == svg.title["id"] for svg in svgs)
