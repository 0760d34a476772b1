"""Notebook pages in a two-language site: mkdocs-jupyter and mkdocs-static-i18n together.

Used by the plugin; needs mkdocs. With mkdocs-jupyter configured a chapter's notebook is
also a page; without it the .ipynb is only a download. Without mkdocs-static-i18n there is
nothing to work around.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from pathlib import Path, PurePosixPath

from mkdocs.structure.files import File

from . import links as notebook_links
from ..prose.labels import label


# # mkdocs-jupyter makes .ipynb files pages in its on_files (their File says "documentation
# page", and their destination becomes ja/ch01/notebook/index.html). mkdocs-static-i18n
# then rebuilds every File for the language being built (its on_files runs last, at
# priority -100): it moves the destination where the language's pages go (ch01/notebook/
# for ja, en/ch01/notebook/ for en) but as a plain File again, so the notebook's JSON is
# copied there as a static file: a download, never a page (ultrabug/mkdocs-static-i18n#198).
# So after i18n the plugin makes each notebook it kept for this language a page again, at the
# URL i18n chose, with the language switcher pointing at the other language's notebook
# page; and copies the .ipynb itself beside the chapter page (ch01/notebook.ipynb), the
# download link's target.


class NotebookPage(File):
    """An .ipynb as a documentation page at i18n's URL, keeping the i18n file's locale."""

    def __init__(self, i18n_file: File, config):
        dest = i18n_file.dest_uri
        if not dest.endswith(".html"):  # i18n saw a plain .ipynb (mkdocs-jupyter had not run)
            dest = posixpath.splitext(dest)[0] + ("/index.html" if config.use_directory_urls else ".html")
        super().__init__(i18n_file.src_uri, i18n_file.src_dir, config.site_dir, config.use_directory_urls,
                         dest_uri=dest, inclusion=i18n_file.inclusion)
        for name in ("locale", "locale_alternate_of", "localization", "norm_src_uri"):
            if hasattr(i18n_file, name):
                setattr(self, name, getattr(i18n_file, name))
        folder = posixpath.dirname(posixpath.dirname(dest) if config.use_directory_urls else dest)
        self.download = File(i18n_file.src_uri, i18n_file.src_dir, config.site_dir, config.use_directory_urls,
                             dest_uri=posixpath.join(folder, posixpath.basename(i18n_file.src_uri)))

    def is_documentation_page(self) -> bool:
        return True


def is_notebook(file) -> bool:
    return file.src_uri.endswith(".ipynb")


def chain_chapters(pages: list) -> None:
    """The footer's previous/next go page to page and skip the notebooks: a reader who
    finishes chapter 1 is led to what follows it, not to its notebook as if it were the
    next chapter. A notebook's own footer leads back to its chapter (the page before it in
    the navigation) and on to that chapter's next. The notebooks stay in the navigation and
    are linked from their chapter.
    """
    chapters = [p for p in pages if not is_notebook(p.file)]
    for before, page, after in zip([None, *chapters[:-1]], chapters, [*chapters[1:], None]):
        page.previous_page, page.next_page = before, after
    owner = None
    for page in pages:
        if not is_notebook(page.file):
            owner = page
            continue
        page.previous_page = owner
        page.next_page = owner.next_page if owner is not None else (chapters[0] if chapters else None)


def make_pages(files, config, exists=Path.is_file):
    """After i18n: each notebook it kept for this language becomes a page again (see above).

    ``exists(path)``: whether a notebook is part of the book (on disk, or about to be written).
    """
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is None:
        return files
    pages = []
    for file in list(files):
        if is_notebook(file) and not file.is_documentation_page() and file.src_dir and jupyter.should_include(file):
            pages.append(NotebookPage(file, config))
            files.remove(file)
            files.append(pages[-1])
    i18n = config.plugins.get("i18n")
    if pages and i18n is not None and i18n.config.docs_structure == "folder":
        for page in pages:
            page.alternates = _alternates(page, i18n, config, exists)
        # what i18n's on_files recorded, now with the notebook pages: its sitemap lists them
        i18n.i18n_files_per_language[i18n.current_language] = files.documentation_pages()
    return files


def _alternates(page: NotebookPage, i18n, config, exists=Path.is_file) -> dict[str, File]:
    """The notebook page in each built language that has it (i18n lists only the .ipynb itself)."""
    from mkdocs_static_i18n.folder import create_i18n_file

    found = {}
    for lang in i18n.build_languages:
        src = f"{lang}/{page.norm_src_uri}"
        if lang == getattr(page, "locale", None):
            found[lang] = page
        elif exists(Path(config.docs_dir) / src):
            other = File(src, config.docs_dir, config.site_dir, config.use_directory_urls)
            found[lang] = NotebookPage(create_i18n_file(other, lang, i18n.default_language, i18n.all_languages, config), config)
    return found


def copy_download(page, config) -> None:
    """The notebook's .ipynb beside its chapter page (``ch01/notebook.ipynb``): the download link's target."""
    download = getattr(page.file, "download", None)
    if download is not None:  # a notebook page rebuilt after i18n: it knows its download
        download.copy_file()
        return
    dest = Path(page.file.abs_dest_path)
    folder = dest.parent.parent if config.use_directory_urls else dest.parent
    target = folder / Path(page.file.abs_src_path).name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(page.file.abs_src_path, target)


# A script and the comment just before it; written to start with a literal "<" (not an
# optional group), so the search skips ahead to each "<" instead of trying every character.
_SCRIPT = re.compile(r"<(?:!--[^>]*-->\s*<)?script\b([^>]*)>(.*?)</script>\s*", re.IGNORECASE | re.DOTALL)
_SRC = re.compile(r"""\bsrc\s*=\s*["']?([^"'\s>]*)""", re.IGNORECASE)
_OUTSIDE = re.compile(r"""^(?:https?:)?//""", re.IGNORECASE)
_OUTSIDE_IN_JS = re.compile(r"""["'`](?:https?:)?//[^"'`\s]""", re.IGNORECASE)  # a URL in a string literal


def _local_script(match: re.Match) -> str:
    """Keep a script only if it fetches nothing from outside the site.

    nbconvert's template loads MathJax (its URL is empty here: `src=""`) and, for
    Mermaid cells, imports Mermaid from a CDN; these notebooks have neither maths nor
    diagrams, and a page load must request nothing outside the site.
    """
    attrs, body = match.group(1), match.group(2)
    src = _SRC.search(attrs)
    if src is not None and (not src.group(1) or _OUTSIDE.search(src.group(1))):
        return ""
    if "mathjax" in attrs.lower() or _OUTSIDE_IN_JS.search(body):
        return ""
    return match.group(0)


def page_html(html: str, page, lang: str, repository: str, branch: str) -> str:
    """Download and Colab links under the title; no script from outside the site; its own title."""
    chapter = PurePosixPath(getattr(page.file, "norm_src_uri", None) or page.file.src_uri).parent.name
    bar = notebook_links.page_bar(chapter, lang, repository, branch)
    html = _SCRIPT.sub(_local_script, html)
    html = _section_anchors(html, page)
    if page.title:  # set from the notebook's H1 by mkdocs-jupyter; the nav lists it beside the chapter
        page.title = label("nb_page_title", lang, title=page.title)
    head = html.find("</h1>")
    html = html[: head + 5] + "\n" + bar + html[head + 5 :] if head >= 0 else bar + html
    return _NOTEBOOK_STYLE + html


# nbconvert names a heading after its ASCII letters: a Japanese heading gets id="" or a
# bare number, shared with others, while the TOC (python-markdown's slugs, "_1", "1_1")
# names none of them; and material's search, given one location for several sections,
# fails on every query one of them matches. Each heading cell's id is h-<its section's
# anchor> (notebooks.py): the heading and its TOC entry take that anchor, as on the
# chapter page and in both languages alike.
# (The cell's attributes in any order: nbconvert writes id before class.)
_NB_HEADING = re.compile(r'(<div\b[^>]*?\bid="cell-id=h-([^"]+)"[^>]*>(?:(?!<div\b[^>]*\bclass="jp-Cell ).)*?<h[1-6] id=")[^"]*'
                         r'(">(?:(?!</h[1-6]>).)*?<a class="anchor-link" href="#)[^"]*(")', re.DOTALL)
_NB_HEADING_ID = re.compile(r'<h[1-6] id="([^"]*)"')


def _section_anchors(html: str, page) -> str:
    html = _NB_HEADING.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}{m.group(2)}{m.group(4)}", html)
    # nbconvert's "¶" after each heading, as the chapter pages' permalinks: material's
    # search leaves a "headerlink" out of a section's title (it put "¶" in every one).
    html = html.replace('<a class="anchor-link" href="#', '<a class="headerlink" title="Permanent link" href="#')
    ids = _NB_HEADING_ID.findall(html)
    entries, stack = [], list(reversed(list(page.toc or [])))
    while stack:  # the TOC in document order
        entry = stack.pop()
        entries.append(entry)
        stack.extend(reversed(entry.children))
    if len(entries) == len(ids):  # one TOC entry per heading, in the same order
        for entry, anchor in zip(entries, ids):
            entry.id = anchor
    return html


# Captured stdout is often a table (the profiler's): scroll it sideways, as the chapter
# page's output blocks do, instead of nbconvert's wrapping.
_NOTEBOOK_STYLE = ("<style>.jupyter-wrapper .jp-OutputArea .jp-OutputArea-output pre"
                   "{white-space:pre;word-break:normal;word-wrap:normal;overflow-x:auto}</style>\n")


def chapter_base(page, chapter: str, config) -> str:
    """From the page's URL to the chapter page's: '' on the chapter page itself."""
    src = PurePosixPath(getattr(page.file, "norm_src_uri", None) or page.file.src_uri)
    folder = src.parent if src.stem in ("index", "README") or not config.use_directory_urls else src.parent / src.stem
    rel = posixpath.relpath(chapter, folder.as_posix() or ".")
    return "" if rel == "." else rel + "/"


