"""Chapter notebooks: generated from the page, the snippets and the captures; run; rendered."""

from __future__ import annotations

import base64
import dataclasses
import html
import json
import os
import re
import time
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT, book_settings, copy_project, run_cli
from kernelbook.site.notebooks import links as notebook_links, chapter as notebooks
from kernelbook.site.prose import predictions
from kernelbook.site.book import load_book
from kernelbook.site.prose.labels import label
from kernelbook.site.prose.text import front_matter, headings

CHAPTER = "ch01"
LANGS = ("ja", "en")
RUN = re.compile(r"^\[\[kb:run[ \t]+(\S+?)[ \t]*\]\][ \t]*$", re.MULTILINE)
HEADING = re.compile(r"^(#{2,3}) (.+?)\s*\{ #([\w-]+) \}\s*$", re.MULTILINE)
CPU_SAYS = {"ja": "これは CPU でのキャプチャです", "en": "This is a CPU capture"}

# Read while pytest collects, before any test builds the site: a build regenerates the
# notebooks in the checkout, which would hide committed notebooks that are out of date.
COMMITTED = {p.relative_to(ROOT): p.read_bytes() for p in sorted(ROOT.glob(f"docs/*/*/{notebooks.NAME}"))}


def page(lang: str, root: Path = ROOT, chapter: str = CHAPTER) -> str:
    return (root / "docs" / lang / chapter / "index.md").read_text(encoding="utf-8")


def chapters() -> list[str]:
    """Every chapter with a page in both languages: ch01, ch02, ..."""
    return sorted(p.parent.name for p in ROOT.glob("docs/ja/ch*/index.md") if (ROOT / "docs" / "en" / p.parent.name / "index.md").exists())


# Each chapter's notebook runs once (its code cells are the same snippets in both languages: see
# the test below), the language alternating, to keep CI short.
NOTEBOOK_RUNS = [(c, LANGS[i % 2]) for i, c in enumerate(chapters())]


@pytest.fixture(scope="module")
def book():
    return load_book(ROOT)


def make(lang: str, book, **changes) -> dict:
    """The chapter's notebook as the build makes it (its glossary, its site_url), figures drawn without a cache."""
    settings = book_settings(ROOT)
    options = {"site_url": settings.site_url, "glossary": notebooks.book_glossary(settings), "source": f"{lang}/{CHAPTER}/index.md"}
    return notebooks.notebook(page(lang), lang, CHAPTER, book, **(options | changes))


@pytest.fixture(scope="module")
def generated(book) -> dict[str, dict]:
    return {lang: make(lang, book) for lang in LANGS}


def text(value) -> str:
    return "".join(value) if isinstance(value, list) else value


def code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


# ---------------------------------------------------------------- what the notebook holds


@pytest.mark.parametrize("lang", LANGS)
def test_valid_nbformat_4_5_with_a_python3_kernel(generated, lang):
    nb = generated[lang]
    nbformat.validate(nbformat.from_dict(nb))  # raises when invalid
    assert (nb["nbformat"], nb["nbformat_minor"]) == (4, 5)
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    ids = [c["id"] for c in nb["cells"]]
    assert len(ids) == len(set(ids)) and all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids)


@pytest.mark.parametrize("lang", LANGS)
def test_code_cells_are_exactly_the_snippets_in_page_order(generated, lang):
    expected = RUN.findall(page(lang))
    assert expected, "the chapter runs no snippet"
    cells = code_cells(generated[lang])
    assert [text(c["source"]) for c in cells] == [(ROOT / "snippets" / f"{sid}.py").read_text(encoding="utf-8") for sid in expected]


@pytest.mark.parametrize("lang", LANGS)
def test_outputs_are_the_shown_captures_stdout(generated, book, lang):
    for sid, cell in zip(RUN.findall(page(lang)), code_cells(generated[lang])):
        captured = book[sid].shown.stdout
        assert cell["execution_count"] is None
        assert cell["outputs"] == [{"name": "stdout", "output_type": "stream", "text": captured.splitlines(keepends=True)}]
        assert text(cell["outputs"][0]["text"]) == captured


def markdown_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "markdown"]


def _unlinked(text_: str) -> str:
    """A notebook's Markdown with the glossary's term links back to their words."""
    return re.sub(r'\[([^\]]*)\]\(https://[^)\s]*/glossary/#[\w-]+ "(?:[^"\\]|\\.)*"\)', r"\1", text_)


def _prose_lines(lang: str) -> list[str]:
    """The page's plain prose lines: no directive, link, heading, admonition line or code in them."""
    body = front_matter(page(lang))[1]
    body = re.sub(r"^(`{3,}).*?^\1", "", body, flags=re.MULTILINE | re.DOTALL)
    lines = []
    for line in body.splitlines():
        line = line.strip()
        if line and not re.search(r"\[\[kb:|\]\(|^#|^!!!|^\?\?\?|^---$|\{[:#.]", line):
            lines.append(line)
    return lines


@pytest.mark.parametrize("lang", LANGS)
def test_the_notebook_carries_the_chapters_prose_section_by_section(generated, lang):
    cells = markdown_cells(generated[lang])
    text_ = _unlinked("\n".join(text(c["source"]) for c in cells))
    quoted = re.sub(r"^> ?", "", text_, flags=re.MULTILINE)  # admonitions are quotations in a notebook
    missing = [line for line in _prose_lines(lang) if line not in text_ and line not in quoted]
    assert not missing, f"{len(missing)} lines of the page's prose are not in its notebook, e.g. {missing[:3]}"
    # each section starts a cell of its own (its id: the section's anchor), and none is an empty heading
    headings = HEADING.findall(page(lang))
    starts = [c for c in cells if c["id"].startswith("h-")]
    assert [c["id"] for c in starts] == [f"h-{anchor}" for *_, anchor in headings]
    for cell, (hashes, title, _) in zip(starts, headings):
        lines = text(cell["source"]).splitlines()
        assert lines[0] == f"{hashes} {title}", lines[0]  # the heading without its { #anchor }
        assert any(line.strip() for line in lines[1:]), f"{lines[0]!r} has nothing under it"
    # in page order: each code cell after the heading it sits under
    order = [text(c["source"]).splitlines()[0] if c["id"].startswith("h-") else "RUN"
             for c in generated[lang]["cells"] if c["id"].startswith(("h-", "run-"))]
    body = re.sub(r"^(#{2,3} .+?)\s*\{ #[\w-]+ \}\s*$", r"\1", page(lang), flags=re.MULTILINE)
    lines = [ln for ln in body.splitlines() if ln.startswith(("## ", "### ")) or RUN.match(ln)]
    assert order == ["RUN" if ln.startswith("[[kb:run") else ln for ln in lines]


@pytest.mark.parametrize("lang", LANGS)
def test_no_directive_or_site_only_markdown_is_left_in_a_notebook(lang):
    nb = json.loads(COMMITTED[Path("docs") / lang / CHAPTER / notebooks.NAME])
    for cell in markdown_cells(nb):
        source = text(cell["source"])
        assert "[[kb:" not in source, f"raw directive in cell {cell['id']}"
        assert not re.search(r"^(?:!!!|\?\?\?|===) ", source, re.MULTILINE), f"an admonition left in cell {cell['id']}"
        assert not re.search(r"\{ *[#:.][^}]*\}", source), f"an attribute list left in cell {cell['id']}"
        assert '<span class="kb-error"' not in source
        for url in re.findall(r"\]\(([^)\s]+)", source) + re.findall(r'href="([^"]+)"', source):
            assert url.startswith(("https://", "data:image/svg+xml;base64,")), f"a link that breaks on Colab or GitHub: {url}"


@pytest.mark.parametrize("lang", LANGS)
def test_directives_become_what_a_notebook_can_show(generated, book, lang):
    nb = generated[lang]
    source = "\n".join(text(c["source"]) for c in markdown_cells(nb))
    # claims as their values; a scoped claim without its device's capture as its prediction, never a bare placeholder
    assert ("プロファイラが記録したカーネルの起動は 1 回でした" if lang == "ja" else "the profiler recorded 1 kernel launch") in _unlinked(source)
    assert f"({predictions.NOTE[lang]})" in source and label("needs_cuda", lang) not in source
    kernel = book["ch01/eager_profile"].shown.sessions[-1].kernels[0].name
    assert f"<code>{kernel}</code>" in source
    # objectives, then every question with its answer closed in a <details>
    objectives_cell = nb["cells"][1]
    assert objectives_cell["id"] == "objectives" and label("objectives", lang) in text(objectives_cell["source"])
    predicts = len(re.findall(r"^\[\[kb:predict ", page(lang), re.MULTILINE))
    assert source.count(f"<details>\n<summary>{label('answer', lang)}</summary>") == predicts
    assert "<details open" not in source
    for n in range(1, predicts + 1):
        assert f"**{label('question', lang, n=n)}**" in source
    assert source.count(label("answer_value", lang, value="")) == predicts - 2  # the two @cuda answers wait for a GPU
    # figures: the wide drawing as an embedded SVG image, its caption, a link to it on the page
    figures_ = re.findall(r"^\[\[kb:figure (\w+)\]\]$", page(lang), re.MULTILINE)
    images = re.findall(r"!\[([^\]]*)\]\(data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)\)", source)
    assert len(images) == len(figures_) == 3
    for name, (alt, data) in zip(figures_, images):
        svg = base64.b64decode(data).decode("utf-8")
        assert svg.startswith("<svg") and "kb-layout-wide" in svg and 'width="720"' in svg and 'fill="#fff"' in svg
        assert html.unescape(" ".join(alt.split())) in " ".join(html.unescape(svg).split())  # the alt text (inert) is the drawing's title
        assert f"{book_settings(ROOT).site_url}{'' if lang == 'ja' else 'en/'}{CHAPTER}/#kb-figure-{name})" in source
    # the kernel panels after their code cells
    assert source.count(f"**{label('kernels', lang)} (CPU)") == sum(1 for sid in RUN.findall(page(lang)) if book[sid].shown.sessions)


@pytest.mark.parametrize("lang", LANGS)
def test_terms_link_to_the_glossary_in_the_notebooks_language(generated, lang):
    source = "\n".join(text(c["source"]) for c in markdown_cells(generated[lang]))
    base = f"{book_settings(ROOT).site_url}{'' if lang == 'ja' else 'en/'}glossary/"
    links = re.findall(r'\[([^\]]+)\]\(' + re.escape(base) + r'#([\w-]+) "((?:[^"\\]|\\.)*)"\)', source)
    assert len(links) > 60
    from kernelbook.site.glossary.terms import load as load_glossary

    g = load_glossary(ROOT / "docs" / "glossary.yml", LANGS)
    for words, term_id, title in links:
        assert g.get(term_id) is not None and title.replace('\\"', '"') == g.get(term_id).words[lang].plain


@pytest.mark.parametrize("lang", LANGS)
def test_first_cell_says_where_and_when_and_plainly_cpu(generated, book, lang):
    first = generated[lang]["cells"][0]
    assert first["cell_type"] == "markdown"
    body = text(first["source"])
    h1 = next(ln for ln in page(lang).splitlines() if ln.startswith("# "))
    assert body.splitlines()[0] == h1
    shown = [book[sid].shown for sid in RUN.findall(page(lang))]
    for capture in shown:
        env = capture.environment
        assert env.device_name in body and f"torch {env.torch}" in body and env.captured_at[:10] in body and "UTC" in body
    assert (CPU_SAYS[lang] in body) == all(c.device == "cpu" for c in shown)
    prefix = "" if lang == "ja" else "en/"
    assert f"({book_settings(ROOT).site_url}{prefix}{CHAPTER}/)" in body  # back to the chapter page


@pytest.mark.parametrize("lang", LANGS)
def test_first_cell_of_a_chapter_running_triton_says_how_to_run_it(generated, book, lang):
    """Chapter 4's snippets switch Triton's interpreter on where there is no GPU: its first cell says how
    to run it on Colab's GPU and without one; chapter 1, which runs no Triton kernel, says nothing of it."""
    site_url = book_settings(ROOT).site_url
    triton = text(notebooks.notebook(page(lang, chapter="ch04"), lang, "ch04", book, site_url=site_url)["cells"][0]["source"])
    assert label("nb_triton", lang) in triton and "TRITON_INTERPRET=1" in triton
    assert label("nb_triton", lang) not in text(generated[lang]["cells"][0]["source"])


def _with_device(entry, device: str, name: str):
    capture = dataclasses.replace(entry.shown, device=device,
                                  environment=dataclasses.replace(entry.shown.environment, device_kind=device, device_name=name, cuda="12.4" if device == "cuda" else None))
    return dataclasses.replace(entry, cuda=capture if device == "cuda" else None, cpu=capture if device == "cpu" else None)


def test_provenance_for_gpu_and_mixed_captures(book):
    sids = RUN.findall(page("en"))
    gpu = {sid: _with_device(book[sid], "cuda", "NVIDIA H100 80GB HBM3") for sid in sids}
    body = text(notebooks.notebook(page("en"), "en", CHAPTER, gpu)["cells"][0]["source"])
    assert "NVIDIA H100 80GB HBM3" in body and "CUDA 12.4" in body and "CPU" not in body
    mixed = dict(gpu, **{sids[0]: book[sids[0]]})
    for lang in LANGS:
        body = text(notebooks.notebook(page(lang), lang, CHAPTER, mixed)["cells"][0]["source"])
        assert "NVIDIA H100 80GB HBM3" in body and book[sids[0]].shown.environment.device_name in body
        assert f"`{sids[0]}`" in body and CPU_SAYS[lang] not in body
        assert ("CPU でのキャプチャです" if lang == "ja" else "are CPU captures") in body


def test_deterministic_json_and_stable_ids(book, generated):
    again = make("ja", book)
    assert notebooks.dumps(again) == notebooks.dumps(generated["ja"])
    dumped = notebooks.dumps(generated["ja"])
    assert json.loads(dumped) == generated["ja"]
    assert dumped == json.dumps(generated["ja"], indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    assert '"execution":' not in dumped and not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", dumped)  # no run timestamps
    assert [c["id"] for c in code_cells(generated["ja"])] == [f"run-{sid.split('/')[1].replace('_', '-')}" for sid in RUN.findall(page("ja"))]


def test_outline_skips_fenced_code_and_reads_anchors():
    md = "# Title { #top }\n\n```python\n## not a heading\n[[kb:run ch01/nope]]\n```\n\n## Real { #real }\n\n[[kb:run ch01/yes]]\n\n~~~\n### no\n~~~\n### Sub\n"
    title, items = notebooks.outline(md)
    assert title == "Title"
    assert items == [("heading", "## Real", "real"), ("run", "ch01/yes", ""), ("heading", "### Sub", "")]


# ---------------------------------------------------------------- regenerated only on change


def test_committed_notebooks_are_up_to_date(tmp_path):
    """The .ipynb files in the checkout (Colab opens them on GitHub) match a fresh generation."""
    copy = copy_project(tmp_path / "book")
    for path in copy.glob(f"docs/*/*/{notebooks.NAME}"):
        path.unlink()
    written = notebooks.generate_all(book_settings(copy))
    fresh = {p.relative_to(copy): p.read_bytes() for p in written}
    assert sorted(fresh) == sorted(COMMITTED), "a chapter's notebook is missing or has no chapter: run `kernelbook notebooks`"
    stale = [str(p) for p in fresh if fresh[p] != COMMITTED[p]]
    assert not stale, f"out of date (run `kernelbook notebooks` and commit): {stale}"


def test_write_if_changed_leaves_an_unchanged_file_alone(tmp_path, generated):
    path = tmp_path / "nb" / notebooks.NAME
    assert notebooks.write_if_changed(path, generated["en"]) is True
    old = time.time() - 3600
    os.utime(path, (old, old))
    assert notebooks.write_if_changed(path, generated["en"]) is False
    assert path.stat().st_mtime == pytest.approx(old)
    assert notebooks.write_if_changed(path, generated["ja"]) is True
    assert path.stat().st_mtime > old + 1800


def test_regenerated_only_when_a_heading_or_a_capture_changes(tmp_path):
    copy = copy_project(tmp_path / "book")
    notebooks.generate_all(book_settings(copy))
    ja, en = (copy / "docs" / lang / CHAPTER / notebooks.NAME for lang in LANGS)
    assert notebooks.generate_all(book_settings(copy)) == [] and notebooks.stale(book_settings(copy)) == []
    old = time.time() - 3600
    for p in (ja, en):
        os.utime(p, (old, old))
    # A heading changes in one language: only that notebook is rewritten.
    index = copy / "docs" / "en" / CHAPTER / "index.md"
    index.write_text(index.read_text(encoding="utf-8").replace("## Summary { #summary }", "## In short { #summary }"), encoding="utf-8")
    assert notebooks.stale(book_settings(copy)) == [en] and en.stat().st_mtime == pytest.approx(old)  # --check writes nothing
    assert notebooks.generate_all(book_settings(copy)) == [en]
    assert ja.stat().st_mtime == pytest.approx(old) and "## In short" in en.read_text(encoding="utf-8")
    # A capture changes (test data in a throwaway copy): both languages show it.
    capture = copy / "snippets" / CHAPTER / "captures" / "first_kernel.cpu.json"
    raw = json.loads(capture.read_text(encoding="utf-8"))
    raw["stdout"] = ["device: cpu", "c = [an edited capture]"]
    capture.write_text(json.dumps(raw), encoding="utf-8")
    assert sorted(notebooks.generate_all(book_settings(copy))) == sorted([ja, en])
    assert "c = [an edited capture]" in ja.read_text(encoding="utf-8")
    assert notebooks.generate_all(book_settings(copy)) == []


def test_cli_notebooks_check_lists_stale_without_writing(tmp_path):
    copy = copy_project(tmp_path / "book")
    assert run_cli("notebooks", root=copy).returncode == 0
    done = run_cli("notebooks", "--check", root=copy)
    assert done.returncode == 0, done.stdout + done.stderr
    path = copy / "docs" / "ja" / CHAPTER / notebooks.NAME
    before = path.read_bytes()
    index = copy / "docs" / "ja" / CHAPTER / "index.md"
    index.write_text(index.read_text(encoding="utf-8").replace("## まとめ { #summary }", "## おさらい { #summary }"), encoding="utf-8")
    done = run_cli("notebooks", "--check", root=copy)
    assert done.returncode == 1 and f"docs/ja/{CHAPTER}/{notebooks.NAME}" in done.stdout and "en/" not in done.stdout
    assert path.read_bytes() == before
    done = run_cli("notebooks", root=copy)
    assert done.returncode == 0 and f"wrote docs/ja/{CHAPTER}/{notebooks.NAME}" in done.stdout
    assert run_cli("notebooks", "--check", root=copy).returncode == 0


# ---------------------------------------------------------------- links


def test_colab_url_and_chapter_links():
    settings = book_settings(ROOT)
    owner, name = settings.repository.split("/")
    for lang in LANGS:
        url = notebook_links.colab_url(settings.repository, settings.branch, lang, CHAPTER)
        assert url == f"https://colab.research.google.com/github/{owner}/{name}/blob/{settings.branch}/docs/{lang}/{CHAPTER}/notebook.ipynb"
        block = notebook_links.notebook_links(CHAPTER, lang, settings.repository, settings.branch)
        assert block.startswith(f'!!! example kb-notebook "{label("nb_title", lang)}"')
        for key in ("nb_body", "nb_view", "nb_download", "nb_colab"):
            assert label(key, lang) in block
        assert 'href="notebook/"' in block and 'href="notebook.ipynb"' in block and f'href="{url}"' in block
    assert 'href="ch01/notebook/"' in notebook_links.notebook_links(CHAPTER, "en", "o/n", "main", base="ch01/")
    assert "colab" not in notebook_links.notebook_links(CHAPTER, "en", "", "main")


# ---------------------------------------------------------------- run top to bottom


@pytest.mark.parametrize("chapter", chapters())
def test_both_languages_notebooks_run_the_same_code(chapter):
    cells = {lang: [text(c["source"]) for c in code_cells(json.loads((ROOT / "docs" / lang / chapter / notebooks.NAME).read_text(encoding="utf-8")))]
             for lang in LANGS}
    assert cells["ja"] == cells["en"] and cells["ja"], f"{chapter}: the two languages' notebooks differ in their code cells"


@pytest.mark.parametrize(("chapter", "lang"), NOTEBOOK_RUNS)
def test_notebook_runs_top_to_bottom_in_a_fresh_kernel_on_the_cpu(tmp_path, monkeypatch, book, chapter, lang):
    from nbclient import NotebookClient

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # the kernel inherits it: the CPU, even on a GPU machine
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # chapter 4's snippets set it themselves
    nb = nbformat.read(ROOT / "docs" / lang / chapter / notebooks.NAME, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    started = time.monotonic()
    NotebookClient(nb, kernel_name="python3", timeout=900, allow_errors=False,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    print(f"{chapter} {lang}: executed in {time.monotonic() - started:.1f} s")
    nbformat.validate(nb)
    sids = RUN.findall(page(lang, chapter=chapter))
    for sid, cell in zip(sids, [c for c in nb.cells if c.cell_type == "code"]):
        assert cell.execution_count is not None
        out = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")
        assert out, f"{sid} printed nothing"
        assert not [o for o in cell.outputs if o.output_type == "error"]
    if chapter != CHAPTER:
        return
    # This run is on the CPU, so what it printed, where it does not depend on timing, is what the
    # CPU capture says, whichever capture the notebook shows (a CUDA one, once a GPU has run it).
    first_kernel = next(c for sid, c in zip(sids, [c for c in nb.cells if c.cell_type == "code"]) if sid == "ch01/first_kernel")
    cpu = book["ch01/first_kernel"].cpu
    assert cpu is not None, "ch01/first_kernel has no fresh CPU capture to compare this CPU run with"
    printed = "".join(o.text for o in first_kernel.outputs if o.output_type == "stream" and o.name == "stdout")
    assert printed == cpu.stdout and printed.startswith("device: cpu\n")


# ---------------------------------------------------------------- the built site


@pytest.mark.parametrize("lang", LANGS)
def test_site_renders_notebook_pages_and_links_them(built_site, generated, lang):
    prefix = built_site if lang == "ja" else built_site / "en"
    page_html = (prefix / CHAPTER / "notebook" / "index.html").read_text(encoding="utf-8")
    assert page_html.lstrip().lower().startswith("<!doctype html>")  # a page, not the JSON as a download
    assert '"cell_type"' not in page_html and "jp-CodeCell" in page_html and "jp-OutputArea" in page_html
    cells = [re.search(r'\bid="cell-id=([\w-]+)"', tag) for tag in re.findall(r'<div\b[^>]*\bclass="jp-Cell jp-CodeCell[^>]*>', page_html)]
    assert [cell.group(1) for cell in cells if cell] == [c["id"] for c in code_cells(generated[lang])]
    for cell in code_cells(generated[lang]):  # each snippet's first line (a comment: one highlighted span) and output
        assert html.escape(text(cell["source"]).splitlines()[0], quote=False) in page_html
        assert html.escape(text(cell["outputs"][0]["text"]).splitlines()[0].strip(), quote=False) in page_html
    assert f'lang="{lang}"' in page_html
    assert page_html.count("<details>") == 8  # the answers
    # the figures and the stylesheet are files of the site, not inline on every notebook page (notebook_assets.py)
    figures = re.findall(r'<img\b[^>]*\bsrc="((?:\.\./)+assets/kernelbook/notebook/[0-9a-f]+\.svg)"', page_html)
    assert len(figures) == 3 and "data:image" not in page_html
    page_dir = prefix / CHAPTER / "notebook"
    assert all((page_dir / src).resolve().read_bytes().startswith(b"<svg") for src in figures)
    sheets = re.findall(r'<link rel="stylesheet" href="((?:\.\./)+assets/kernelbook/notebook/[0-9a-f]+\.css)">', page_html)
    assert len(sheets) == 1 and (page_dir / sheets[0]).resolve().stat().st_size > 10_000
    assert len(re.findall(r"<style\b", page_html)) == 1 and len(page_html.encode()) < 300_000  # ours, one rule
    assert "<blockquote>" in page_html and "kb-term" not in page_html  # the note, as a quotation
    assert label("nb_download", lang) in page_html and "colab.research.google.com/github/" in page_html
    # the whole Colab link, from what mkdocs.yml names (not from the code under test): repository, branch, file
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    repository, branch = (re.search(rf"^\s+{key}:\s*(\S+)", config, re.M).group(1) for key in ("repository", "branch"))
    colab = f"https://colab.research.google.com/github/{repository}/blob/{branch}/docs/{lang}/{CHAPTER}/notebook.ipynb"
    assert re.findall(r'href="(https://colab\.research\.google\.com/[^"]*)"', page_html) == [colab]
    for tag in re.findall(r"<script\b[^>]*>", page_html):  # nothing fetched from outside the site
        src = re.search(r'src="([^"]*)"', tag)
        assert src is None or (src.group(1) and not re.match(r"(https?:)?//", src.group(1))), tag
    assert "cdnjs" not in page_html and "mathjax" not in page_html.lower()
    other = "en" if lang == "ja" else "ja"
    assert re.search(rf'href="[./]*{"en/" if other == "en" else ""}{CHAPTER}/notebook/" hreflang="{other}"', page_html)
    # the download: the .ipynb itself, next to the chapter page
    download = prefix / CHAPTER / notebooks.NAME
    assert download.read_bytes() == (ROOT / "docs" / lang / CHAPTER / notebooks.NAME).read_bytes()
    chapter = (prefix / CHAPTER / "index.html").read_text(encoding="utf-8")
    assert 'class="admonition example kb-notebook"' in chapter
    assert 'href="notebook/"' in chapter and 'href="notebook.ipynb"' in chapter
    settings = book_settings(ROOT)
    assert f'href="{notebook_links.colab_url(settings.repository, settings.branch, lang, CHAPTER)}"' in chapter
    sitemap = (built_site / "sitemap.xml").read_text(encoding="utf-8")
    assert f"{settings.site_url}{'' if lang == 'ja' else 'en/'}{CHAPTER}/notebook/</loc>" in sitemap


def test_notebook_pages_load_in_a_browser_from_the_site_alone(browser, site_url):
    base = site_url + "/"
    outside, failed = [], []
    tab = browser.new_page()
    tab.on("request", lambda r: None if r.url.startswith((base, "data:", "blob:")) else outside.append(r.url))
    tab.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    try:
        for path, lang in ((f"{CHAPTER}/notebook/", "ja"), (f"en/{CHAPTER}/notebook/", "en")):
            tab.goto(base + path, wait_until="networkidle")
            assert tab.locator(".jp-CodeCell .jp-InputArea").first.is_visible()
            assert tab.locator("a.kb-nb-colab").get_attribute("href").startswith("https://colab.research.google.com/github/")
            href = tab.locator("a.kb-nb-download").get_attribute("href")
            assert href == "../notebook.ipynb"
            assert tab.request.get(base + path + href).ok
    finally:
        tab.close()
    assert outside == [] and failed == []


@pytest.mark.parametrize("lang", LANGS)
def test_search_titles_carry_no_pilcrow(built_site, lang):
    """nbconvert ends each heading with a "¶" link; material's search leaves a headerlink out of a title, and no other."""
    index = json.loads((built_site / ("" if lang == "ja" else "en") / "search" / "search_index.json").read_text(encoding="utf-8"))
    titles = [d["title"] for d in index["docs"]]
    notebook_titles = [d["title"] for d in index["docs"] if "/notebook/" in "/" + d["location"]]
    assert len(notebook_titles) > 10 and not [t for t in titles if "¶" in t], [t for t in titles if "¶" in t][:5]
    sections = [h.text.replace("`", "") for h in headings(page(lang)) if h.level <= 3]
    assert set(sections) <= set(notebook_titles)  # each section of the notebook page is found by its own title


def test_with_fresh_cuda_and_cpu_captures_the_notebook_shows_what_the_page_shows(tmp_path):
    """The day a GPU capture lands beside the CPU one, both are fresh: the page and the notebook show
    the CUDA run (the CPU rehearsal only as the page's second panel), never one each."""
    import shutil

    from kernelbook.site.directives import Context, render_page

    shutil.copytree(ROOT / "snippets", tmp_path / "snippets", ignore=shutil.ignore_patterns("__pycache__"))
    sid = RUN.findall(page("en"))[0]
    cpu_path = tmp_path / "snippets" / f"{sid}.py"
    cpu_path = cpu_path.parent / "captures" / f"{cpu_path.stem}.cpu.json"
    raw = json.loads(cpu_path.read_text(encoding="utf-8"))
    raw["device"], raw["trace_files"] = "cuda", []
    raw["environment"].update(device_kind="cuda", device_name="NVIDIA H200", cuda="13.0", triton="3.7.1")
    for session in raw["sessions"]:
        session["device_kind"] = "cuda"
    raw["stdout"] = ["what the GPU run printed"]
    cpu_path.with_name(cpu_path.name.replace(".cpu.", ".cuda.")).write_text(json.dumps(raw, indent=1), encoding="utf-8")
    book = load_book(tmp_path)
    assert book[sid].cuda is not None and book[sid].cpu is not None, "both captures must be fresh for this test"
    cpu_stdout = book[sid].cpu.stdout
    for lang in LANGS:
        nb = notebooks.notebook(page(lang), lang, CHAPTER, book, source=f"{lang}/{CHAPTER}/index.md")
        cell = next(c for c in code_cells(nb) if text(c["source"]) == (ROOT / "snippets" / f"{sid}.py").read_text(encoding="utf-8"))
        assert text(cell["outputs"][0]["text"]) == "what the GPU run printed\n"
        shown = render_page(f"[[kb:run {sid}]]\n", Context(lang=lang, page=f"{lang}/{CHAPTER}/index.md", book=book))
        first_panel = shown.split("what the GPU run printed")[0]
        assert "what the GPU run printed" in shown and cpu_stdout.splitlines()[0] not in first_panel
