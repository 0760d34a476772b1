"""No string from a capture becomes markup: hostile captures, built into every kind of page.

A copy of the book gets captures whose every string field (device name, torch, CUDA,
driver, triton, git commit, kernel and event names, stdout, stderr, values in ``results``)
holds HTML, Markdown and directive syntax, plus CUDA twins of them so that the pages show
CUDA/CPU tabs, and a page pair with inline claims of every kind. The copy is built as
`kernelbook build` builds it, and every page kind is parsed: the chapter page, the
notebook page, the instructors' page and the home page (environment tables), the figures'
SVG, the search index, and the notebook's own Markdown cells as Jupyter and nbconvert
render them. Nothing from a capture may be a live element or attribute, and each
hostile string must still be shown, as text.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import copy_project, mkdocs_build, write

# Every syntax that could become markup somewhere: raw HTML, attributes, Markdown
# emphasis, links, code, attr_list, directives, fences, and the quotes of attributes.
HOSTILE = ('<img src=x onerror=alert(1) class=kbpwn><b class="kbpwn">B</b>"\'`]]{: .kbpwn onclick="alert(2)" }'
           "[kbpwn](javascript:alert(3))*kbem* _kbem_ [[kb:launches ch01/eager_profile]]</p></div>")
VISIBLE = "<img src=x onerror=alert(1) class=kbpwn>"  # must be on the page, as text
OUTPUT_LINES = [HOSTILE, "```", "~~~~", "[[kb:run ch01/first_kernel]]", "[[kb:launches ch01/eager_profile]]",
                "</div>", "<script>alert(4)</script>", "    indented"]
HOSTILE_PAGE = """\
# Hostile {lang}

## Claims {{ #claims }}

Device [[kb:device ch01/eager_profile]], kernel [[kb:kernel ch01/eager_profile ~ add]],
kernels [[kb:kernels ch01/eager_profile]], value [[kb:value ch01/first_call hostile]],
nested [[kb:value ch01/first_call nested.0]].

[[kb:environment]]
"""


def _hostile_capture(raw: dict) -> None:
    env = raw["environment"]
    env["device_name"] = env["device_name"] + " " + HOSTILE
    env["torch"] = HOSTILE
    env["git_commit"] = HOSTILE
    env["platform"] = HOSTILE
    raw["stdout"] = raw["stdout"][:-1] + OUTPUT_LINES + [""]
    raw["stderr"] = [HOSTILE]
    for session in raw["sessions"]:
        for kernel in session["kernels"]:
            kernel["name"] = kernel["name"] + HOSTILE
        for event in session.get("events", []):
            event["name"] = event["name"] + HOSTILE
    if raw["snippet"] == "ch01/first_call":
        raw["data"] = {**(raw["data"] or {}), "hostile": HOSTILE, "nested": [HOSTILE]}


def _as_cuda(raw: dict) -> dict:
    cuda = json.loads(json.dumps(raw))
    cuda["device"] = "cuda"
    cuda["freshness"]["torch"] = HOSTILE
    cuda["environment"].update(device_kind="cuda", compute_capability=HOSTILE, cuda=HOSTILE, driver=HOSTILE,
                               triton=HOSTILE)
    for session in cuda["sessions"]:
        session["device_kind"] = "cuda"
    cuda["trace_files"] = [name.replace(".cpu.", ".cuda.") for name in cuda["trace_files"]]
    return cuda


# A GPU-only claim no number stands for: a name only a GPU run shows (`kernel S ~ triton_per_ @cuda`),
# text only a GPU run's generated code holds (`value S kernel @cuda ~ "tl.program_id(0)"`)
# or a value shown without a check (`value S rows.0.eager_s @cuda`), which a key only a GPU run
# records may hold. A CPU capture dressed as CUDA cannot meet it.
_GPU_ONLY_WORDS = re.compile(r"\[\[kb:\w+ ([a-z0-9_]+/[a-z0-9_]+)[^\]]*?@cuda"
                             r'(\s*(?:==|>=|<=|<|>)\s*[0-9.]+)?(?:\s*~\s*"[^"]*")?\]\]')


def _gpu_only_snippets(root: Path) -> set[str]:
    """The snippets a page says something about that only a real GPU capture can show."""
    found = set()
    for page in sorted((root / "docs").glob("*/ch*/index.md")):
        found |= {m.group(1) for m in _GPU_ONLY_WORDS.finditer(page.read_text(encoding="utf-8")) if not m.group(2)}
    return found


def _holds_null(value) -> bool:
    if isinstance(value, dict):
        return any(_holds_null(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_null(v) for v in value)
    return value is None


def hostile_book(dest: Path) -> Path:
    """A copy of the book whose captures (CPU, and CUDA twins of them) are hostile.

    Every snippet gets a CUDA twin but those of ``_gpu_only_snippets`` (chapter 3's Triton
    names and generated code, CUDA-graph timings), which keep their hostile CPU capture only."""
    root = copy_project(dest)
    gpu_only = _gpu_only_snippets(root)
    assert "ch01/first_call" not in gpu_only  # the pages this test reads keep their CUDA twins
    for path in sorted((root / "snippets").glob("*/captures/*.cpu.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        _hostile_capture(raw)
        path.write_text(json.dumps(raw, ensure_ascii=False, indent=1), encoding="utf-8")
        # chapters 4 and 5 time (and chapter 5 builds its CUDA kernels) only on a GPU, and some rows a
        # CPU run leaves null (ch02/overhead_floor's kernel share): a CPU capture whose rows hold null
        # where @cuda ratios read gets no CUDA twin
        rows = raw["data"].get("rows") if isinstance(raw["data"], dict) else None
        if raw["snippet"] in gpu_only or raw["snippet"].startswith(("ch04/", "ch05/")) or _holds_null(rows):
            continue
        cuda = _as_cuda(raw)
        path.with_name(path.name.replace(".cpu.", ".cuda.")).write_text(json.dumps(cuda, ensure_ascii=False), encoding="utf-8")
        for name in raw["trace_files"]:
            shutil.copy2(path.with_name(name), path.with_name(name.replace(".cpu.", ".cuda.")))
    # The CUDA twins carry CPU numbers, so the chapter's GPU-only claims would fail on them
    # and stop the build: they are kept (their pages and the instructors' list still show
    # the twins' provenance) with a condition any number meets.
    for page in sorted((root / "docs").glob("*/ch*/index.md")):
        text = page.read_text(encoding="utf-8")
        page.write_text(re.sub(r"@cuda\s*(==|>=|<=|<|>)\s*[0-9.]+", "@cuda >= 0", text), encoding="utf-8")
    for lang in ("ja", "en"):
        write(root / "docs" / lang / "hostile.md", HOSTILE_PAGE.format(lang=lang))
    return root


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> tuple[Path, Path]:
    """(the book, its built site)."""
    root = hostile_book(tmp_path_factory.mktemp("hostile") / "book")
    site = root / "site"
    done = mkdocs_build(root, site, cache_dir=root / "cache")
    assert done.returncode == 0, f"the hostile book did not build:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return root, site


def injected(html: str) -> list[str]:
    """Every live element or attribute a hostile string made: empty when none."""
    from bs4 import BeautifulSoup

    found = []
    for el in BeautifulSoup(html, "html.parser").find_all(True):
        classes = el.get("class") or []
        if "kbpwn" in classes or el.get("id") == "kbpwn":
            found.append(f"<{el.name} class=kbpwn>")
        for name, value in el.attrs.items():
            text = " ".join(value) if isinstance(value, list) else str(value)
            if name.lower().startswith("on"):
                found.append(f"<{el.name} {name}={text!r}>")
            if name.lower() in ("href", "src", "xlink:href") and text.strip().lower().startswith("javascript:"):
                found.append(f"<{el.name} {name}={text!r}>")
        if el.name == "img" and el.get("src") == "x":
            found.append("<img src=x>")
        if el.name == "script" and "alert(" in el.get_text():
            found.append("<script>alert(...)</script>")
        if el.name in ("em", "strong", "i", "b") and "kbem" in el.get_text():
            found.append(f"<{el.name}>kbem</{el.name}>")
    return found


def text_of(html: str) -> str:
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser").get_text()


PAGES = {
    "chapter (ja)": "ch01/index.html",
    "chapter (en)": "en/ch01/index.html",
    "notebook page (ja)": "ch01/notebook/index.html",
    "notebook page (en)": "en/ch01/notebook/index.html",
    "instructors (ja)": "instructors/index.html",
    "instructors (en)": "en/instructors/index.html",
    "home, environment table (ja)": "index.html",
    "claims page (en)": "en/hostile/index.html",
}


@pytest.mark.parametrize("kind", PAGES)
def test_no_capture_string_is_markup_on_any_page(hostile_site, kind):
    _, site = hostile_site
    html = (site / PAGES[kind]).read_text(encoding="utf-8")
    assert injected(html) == []
    assert VISIBLE in text_of(html), f"{kind}: the hostile value is not shown as text"


def test_directive_syntax_in_captured_output_is_shown_as_written(hostile_site):
    _, site = hostile_site
    page = text_of((site / "en/ch01/index.html").read_text(encoding="utf-8"))
    assert "[[kb:launches ch01/eager_profile]]" in page and "[[kb:run ch01/first_kernel]]" in page
    assert "<script>alert(4)</script>" in page


def test_figures_svg_text_is_inert(hostile_site):
    from bs4 import BeautifulSoup

    from kernelbook.site.figures import FIGURES, LAYOUTS

    _, site = hostile_site
    figures, drawings, seen = [], 0, set()
    for page in sorted(site.glob("en/ch*/index.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        figures += soup.select("figure.kb-figure svg")
        # a figure drawn from a snippet with a CUDA twin and its CPU capture gets a tab for each (figure_tabs.py)
        tabbed = {s["data-tabs"].rsplit(":", 1)[0]: int(s["data-tabs"].rsplit(":", 1)[1]) for s in soup.select(".kb-figure-tabs")}
        here = {name for name in FIGURES if soup.select(f'svg[class*="kb-fig-{name}-en-"]')}
        drawings += sum(tabbed.get(name, 1) for name in here)
        seen |= here
    assert seen == set(FIGURES)  # every figure on some page
    assert len(figures) == drawings * len(LAYOUTS)  # each drawing once per layout
    for svg in figures:
        assert injected(str(svg)) == []
    assert any(VISIBLE in svg.get_text() or "kbpwn" in svg.get_text() for svg in figures)


def test_search_index_holds_no_live_markup(hostile_site):
    _, site = hostile_site
    index = json.loads((site / "search/search_index.json").read_text(encoding="utf-8"))
    for doc in index["docs"]:
        assert injected(doc.get("text", "")) == [], doc["location"]


def _markdown_cells(book: Path) -> list[str]:
    cells = []
    for path in sorted(book.glob("docs/*/ch01/notebook.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells += ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    return cells


def test_notebook_markdown_cells_render_inert_in_jupyter_and_nbconvert(hostile_site):
    """The .ipynb itself (Colab, Jupyter, GitHub): its Markdown cells as CommonMark and as nbconvert renders them."""
    from markdown_it import MarkdownIt
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    book, _ = hostile_site
    cells = _markdown_cells(book)
    assert cells
    rendered = [MarkdownIt("commonmark", {"html": True}).render(c) for c in cells] + [markdown2html_mistune(c) for c in cells]
    for html in rendered:
        assert injected(html) == [], html
    assert any(VISIBLE in text_of(html) for html in rendered)


def test_notebook_outputs_are_plain_text_streams(hostile_site):
    book, _ = hostile_site
    for path in book.glob("docs/*/ch01/notebook.ipynb"):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for output in cell.get("outputs", []):
                assert output["output_type"] == "stream", output  # never text/html or text/markdown


def test_notebook_prose_shows_hostile_kernel_and_device_names_as_text(hostile_site):
    """The notebook's prose carries the kernel panels, provenance, claims and figures: each hostile string there is text."""
    from markdown_it import MarkdownIt
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    book, _ = hostile_site
    cells = _markdown_cells(book)
    panels = [c for c in cells if "<code title=" in c and "kbpwn" in c]  # a kernel panel with a hostile kernel name
    provenance = [c for c in cells if "<sub>" in c and "CPU (" in c and "kbpwn" in c]  # the hostile device name
    figures = [c for c in cells if "](data:image/svg+xml;base64," in c]
    assert panels and provenance and figures, "the notebook's prose lacks its kernel panels, provenance or figures"
    for cell in panels + provenance + figures:
        for html in (MarkdownIt("commonmark", {"html": True}).render(cell), markdown2html_mistune(cell)):
            assert injected(html) == [], html
    shown = text_of(MarkdownIt("commonmark", {"html": True}).render(panels[0]))
    assert VISIBLE in shown and "[[kb:launches ch01/eager_profile]]" in shown  # shown as written, never run
