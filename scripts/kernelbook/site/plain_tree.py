"""``kernelbook render OUT``: the book as plain docs trees any generator builds, with no plugin.

Per language, ``OUT/<lang>/`` is a docs folder and ``OUT/mkdocs.<lang>.yml`` its config
(Material theme and its search only): every directive rendered and checked by the code the plugin runs
(``page_markdown.py``), figures as SVG files the pages reference, each chapter notebook as
an ordinary page beside its ``.ipynb`` download, and on every page a plain link to its twin
in the other language. ``mkdocs build -f OUT/mkdocs.ja.yml`` then ``-f OUT/mkdocs.en.yml``
(in that order: the first cleans ``OUT/site``) make the site, the default language at its
root and the others under ``<lang>/``, as the plugin build lays it out.

The claims and the strict failures stay here: a tree with a problem is not written.
"""

from __future__ import annotations

import html
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from ..safety.errors import KernelbookError
from ..safety.files import InputError, MiB, link_on_the_way, parse_json, read_bounded
from ..common.freshness import check_inputs
from ..common.records import write_atomic
from .editions import history as editions
from .glossary import build as glossary_site
from .notebooks import links as notebook_links, chapter as notebooks
from .prose import objectives
from .pages import twins
from .book import load_book
from .directives import Context, fence
from .caches.figures import cached_figure
from .prose.labels import label
from .prose.extensions import MARKDOWN_EXTENSIONS, yaml_item
from .pages.markdown import BookState, PageSource, render
from .prose.text import front_matter, lines_before
from .prose.sections import page_url, relative
from .settings import BookSettings, load

NOTEBOOK_PAGE = "notebook.md"  # beside notebook.ipynb: its URL, notebook/, is the plugin build's
# A figure in an <img> cannot read the theme's colours (its drawing falls back to the light
# system colours): under material's dark scheme it is inverted, hues kept.
PLAIN_CSS = ('[data-md-color-scheme="slate"] .kb-figure img { filter: invert(1) hue-rotate(180deg); }\n')
PLAIN_CSS_PATH = "assets/kernelbook-plain.css"
NARROW_MEDIA = "(max-width: 44.9375em)"  # material's phone breakpoint: there the narrow drawing is shown


@dataclass
class Tree:
    """What the render makes: files by path under OUT, and what it found wrong."""

    languages: tuple[str, ...] = ()  # the default language first
    files: dict[str, bytes] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    def report(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)

    def add(self, path: str, data: str | bytes) -> None:
        self.files[path] = data.encode("utf-8") if isinstance(data, str) else data


def render_book(root: Path) -> Tree:
    """Every language's tree of the book at ``root``, in memory. KernelbookError: bad input (exit 2)."""
    config, settings = load(root, plugin={"read_only": True})
    tree = Tree(settings.languages)
    if settings.language_folders:
        for problem in twins.check_tree(settings.docs_dir, settings.languages):
            tree.report(problem)
    glossary = glossary_site.read(settings, tree.report)
    check_inputs(settings.root, settings.snippets_dir)
    book = load_book(settings.root, settings.snippets_dir)
    state = BookState(settings, book, glossary, editions.current())
    planned = glossary_site.planned_notebooks(settings, book, glossary, report=tree.report)
    names = _language_names(config, settings)
    for lang in settings.languages:
        for path in sorted(settings.pages(lang).rglob("*")):
            rel = path.relative_to(settings.pages(lang)).as_posix()
            if path.is_dir() or path.suffix == ".ipynb" or (settings.glossary and path.resolve() == settings.glossary.resolve()):
                continue
            if path.suffix == ".md":
                _page(tree, state, lang, rel, path.read_text(encoding="utf-8"), names)
            else:
                tree.add(f"{lang}/{rel}", path.read_bytes())
        for path, nb in planned.items():
            if path.is_relative_to(settings.pages(lang)):
                chapter = path.parent.relative_to(settings.pages(lang)).as_posix()
                tree.add(f"{lang}/{chapter}/{notebooks.NAME}", notebooks.dumps(nb))
                tree.add(f"{lang}/{chapter}/{NOTEBOOK_PAGE}", notebook_page(nb, chapter, lang, settings))
        for path in sorted(p for p in settings.docs_dir.rglob("*") if p.is_file()) if settings.language_folders else ():
            rel = path.relative_to(settings.docs_dir)  # beside the language folders (assets/): each tree its own copy
            if rel.parts[0] not in settings.languages and not (settings.glossary and path.resolve() == settings.glossary.resolve()):
                tree.add(f"{lang}/{rel.as_posix()}", path.read_bytes())
        tree.add(f"{lang}/{PLAIN_CSS_PATH}", PLAIN_CSS)
        tree.add(f"mkdocs.{lang}.yml", site_config(settings.root / "mkdocs.yml", settings, lang))
    return tree


OWN_FILES = ".kernelbook-render.json"  # in each OUT/<lang>/: the files render wrote there, which it alone may replace


def write(tree: Tree, out: Path) -> None:
    """The tree into ``out`` (its ``<lang>/`` folders replaced; ``out/site`` left to the generator).

    Everything is checked before anything is written or removed: no link anywhere on the way (a link
    in OUT would have the write land where it points, e.g. in the book's docs), folders where folders
    go, and in each ``<lang>/`` only files an earlier render wrote (a user's file there is never deleted).
    KernelbookError (exit 2), one line, when any of it does not hold.
    """
    problem = _unsafe(tree, out)
    if problem:
        raise KernelbookError(f"kernelbook render {out}: {problem}; nothing written")
    try:
        for lang in tree.languages:
            if (out / lang).is_dir():
                shutil.rmtree(out / lang)  # a real folder holding only what render wrote (checked above)
        written: dict[str, list[str]] = {lang: [] for lang in tree.languages}
        for path, data in tree.files.items():
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, data)  # a new file renamed into place: never written through what was there
            lang, _, rel = path.partition("/")
            if rel and lang in written:
                written[lang].append(rel)
        for lang, names in written.items():
            write_atomic(out / lang / OWN_FILES, json.dumps(sorted(names), indent=0).encode("utf-8"))
    except OSError as exc:
        raise KernelbookError(f"kernelbook render {out}: cannot write {exc.filename or out} ({exc.strerror or exc}); "
                              "free space or fix permissions there, then render again") from None


def _unsafe(tree: Tree, out: Path) -> str | None:
    """Why writing ``tree`` into ``out`` would write through a link, over a non-file, or delete what render did not write."""
    if out.exists() and not out.is_dir():
        return "it is not a folder; remove it or name a folder"
    for lang in tree.languages:
        folder = out / lang
        if folder.is_symlink():
            return f"{folder} is a link (to {os.readlink(folder)}); remove the link: render writes only into real folders"
        if folder.exists() and not folder.is_dir():
            return f"{folder} is not a folder; remove it or name another OUT"
        if folder.is_dir():
            own = _own_files(folder)
            for where, dirs, files in os.walk(folder):  # a linked folder is listed, never entered
                for name in sorted(dirs + files):
                    path = Path(where) / name
                    rel = path.relative_to(folder).as_posix()
                    if path.is_symlink():
                        return f"{path} is a link (to {os.readlink(path)}); remove it: render writes only into real folders"
                    if name in files and rel != OWN_FILES and rel not in own:
                        return (f"{lang}/{rel} is a file kernelbook render did not write, and render replaces {folder} whole; "
                                "move it away or name another OUT")
    for path in tree.files:
        target = out / path
        found = link_on_the_way(out, target)
        if found is not None:
            what = f"a link (to {os.readlink(found)})" if found.is_symlink() else "not a folder"
            return f"{found} is {what}; remove it: render writes only into real folders"
        if target.exists() and not target.is_file():
            return f"{target} is not a regular file; remove it or name another OUT"
    return None


def _own_files(folder: Path) -> set[str]:
    """The files an earlier render wrote in ``folder`` (its OWN_FILES list); none when it has no readable list."""
    try:
        names = parse_json(read_bounded(folder / OWN_FILES, 16 * MiB, gzipped=False), str(folder / OWN_FILES))
    except InputError:
        return set()
    return {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()


def _page(tree: Tree, state: BookState, lang: str, rel: str, text: str, names: dict[str, str]) -> None:
    settings = state.settings
    meta, body = front_matter(text)
    src = f"{lang}/{rel}" if settings.language_folders else rel
    url = settings.url_prefix(lang) + page_url(rel)
    source = PageSource(lang=lang, src_uri=src, url=url, meta=meta, first_line=lines_before(text))

    def figure(name: str, lang: str, ctx: Context) -> str:
        return _figure(tree, settings, name, lang, ctx, page_url(rel))

    def notebook(chapter: str, lang: str, ctx: Context) -> str:
        base = relative(chapter, page_url(rel))
        return notebook_links.notebook_links(chapter, lang, settings.repository, settings.branch,
                                             base="" if base == "./" else base, view=True)

    done = render(body, source, state, figure=figure, notebook=notebook, report=tree.report)
    for problem in done.errors:
        tree.report(problem)
    tree.unchecked += [note for note in done.unchecked if note not in tree.unchecked]
    markdown = objectives.after_title(done.markdown, twin_links(settings, lang, rel, names))
    head = text[: len(text) - len(body)] if body and text.endswith(body) else ""
    tree.add(f"{lang}/{rel}", head + markdown)


def twin_links(settings: BookSettings, lang: str, rel: str, names: dict[str, str]) -> str:
    """The language switch: a plain link to this page in each other language that has it."""
    links = []
    for other in settings.languages:
        if other != lang and (settings.pages(other) / rel).is_file():
            href = relative(settings.url_prefix(other) + page_url(rel), settings.url_prefix(lang) + page_url(rel))
            links.append(f'<a href="{html.escape(href)}" hreflang="{other}" lang="{other}">{html.escape(names.get(other, other))}</a>')
    return f'<p class="kb-twin">{" · ".join(links)}</p>\n' if links else ""


def _figure(tree: Tree, settings: BookSettings, name: str, lang: str, ctx: Context, page: str) -> str:
    """The figure's drawings as SVG files (figures/<name>.svg, -narrow.svg), shown by a <picture>."""
    captures = {sid: e.shown for sid, e in ctx.book.items() if e.shown is not None}
    try:
        fig, _ = cached_figure(settings.cache_dir, name, lang, captures)
    except (KeyError, ValueError) as exc:
        return ctx.error(f"[[kb:figure {name}]]", f"cannot draw it: {exc}")
    files = [f"figures/{name}.svg"] + [f"figures/{name}-{i}.svg" for i in range(1, len(fig.svgs))]
    for path, svg in zip(files, fig.svgs):  # alone in a file, each drawing is shown (its style hid the narrow one)
        tree.add(f"{lang}/{path}", svg.replace("{display:none;", "{display:block;", 1))
    hrefs = [html.escape(relative(PurePosixPath(path).parent.as_posix(), page) + PurePosixPath(path).name) for path in files]
    sources = "".join(f'<source media="{NARROW_MEDIA}" srcset="{href}">' for href in hrefs[1:])
    return (f'<figure class="kb-figure" id="kb-figure-{fig.name}">\n<picture>{sources}'
            f'<img src="{hrefs[0]}" alt="{html.escape(fig.alt)}" style="width:100%"></picture>\n'
            f"<figcaption>{html.escape(fig.caption)}</figcaption>\n</figure>\n")


def notebook_page(nb: dict, chapter: str, lang: str, settings: BookSettings) -> str:
    """A chapter notebook as a page: its Markdown cells as written, each code cell and its output fenced."""
    parts = [notebook_links.page_bar(chapter, lang, settings.repository, settings.branch)]
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            parts.append(source)
            continue
        parts.append(fence(source, "python"))
        text = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        if text:
            parts.append(fence(text, "text"))
    title, _, rest = "\n\n".join(parts[1:]).partition("\n")
    if not title.startswith("# "):
        return "\n\n".join(parts) + "\n"
    named = json.dumps(label("nb_page_title", lang, title=title[2:].strip()), ensure_ascii=False)  # the nav lists it beside the chapter
    return f"---\ntitle: {named}\n---\n\n{title}\n\n{parts[0]}{rest}\n"


def _language_names(config, settings: BookSettings) -> dict[str, str]:
    i18n = config.plugins.get("i18n")
    return {lang.locale: lang.name for lang in i18n.config.languages} if i18n is not None else {}


def site_config(path: Path, settings: BookSettings, lang: str) -> str:
    """The language's mkdocs.yml: the book's theme, Markdown and search settings, no other plugin."""
    from mkdocs.utils import yaml_load

    text = path.read_text(encoding="utf-8")
    raw = yaml_load(text)
    plugins = [p if isinstance(p, dict) else {p: {}} for p in raw.get("plugins", [])]
    found = {name: options or {} for p in plugins for name, options in p.items()}
    own = next((dict(one) for one in found.get("i18n", {}).get("languages", []) if one.get("locale") == lang), {})
    theme = {**raw.get("theme", {}), **own.get("theme", {}), "language": lang}
    search = {**found.get("search", found.get("material/search", {})), "lang": [lang]}
    config = {
        "site_name": own.get("site_name", raw.get("site_name", "")),
        "site_description": own.get("site_description", raw.get("site_description", "")),
        "site_url": settings.site_url + settings.url_prefix(lang),
        "copyright": own.get("copyright", raw.get("copyright", "")),
        "docs_dir": lang,
        "site_dir": "site/" + settings.url_prefix(lang),
        "strict": True,
        "extra": raw.get("extra", {}),
        "theme": theme,
        "extra_css": [*raw.get("extra_css", []), PLAIN_CSS_PATH],
        "extra_javascript": raw.get("extra_javascript", []),
        "nav": _nav(raw.get("nav", [])),
        "plugins": [{"search": search}],
    }
    return (f"# Written by `kernelbook render` from {path.name} ({lang}): no kernelbook, i18n or jupyter plugin.\n"
            + yaml.safe_dump(config, allow_unicode=True, sort_keys=False, width=1000) + _markdown_extensions(text))


def _nav(nav):
    """The book's navigation, a notebook page where it lists a chapter's .ipynb."""
    if isinstance(nav, str):
        return nav[: -len(notebooks.NAME)] + NOTEBOOK_PAGE if nav.endswith(notebooks.NAME) else nav
    if isinstance(nav, list):
        return [_nav(item) for item in nav]
    return {key: _nav(value) for key, value in nav.items()} if isinstance(nav, dict) else nav


def _markdown_extensions(text: str) -> str:
    """mkdocs.yml's ``markdown_extensions`` as written (its options may be Python objects YAML dumps badly),
    with the extensions the rendered pages are written with (the plugin's MARKDOWN_EXTENSIONS) added."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("markdown_extensions:")), None)
    block = []
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if lines[i][:1] not in ("", " ", "#", "-")), len(lines))
        block = lines[start:end]
    else:
        block = ["markdown_extensions:"]
    present = set()
    for line in block[1:]:
        item = line.strip()
        if line.startswith("  - ") or line.startswith("- "):
            present.add(item[2:].split(":")[0].strip())
    for name in MARKDOWN_EXTENSIONS:
        if name not in present:
            block.append(yaml_item(name))
    return "\n".join(block) + "\n"

