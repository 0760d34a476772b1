"""mkdocs hook: thin glue from pages to the renderer. Never executes a snippet.

Registered in mkdocs.yml (``hooks:``). Every problem (a missing or stale capture, a
claim the captures contradict, twins that differ) is logged naming the page and the
directive, and the build then fails.
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
from dataclasses import replace
from pathlib import Path, PurePosixPath

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from kernelbook import notebook_pages, notebooks, twins
from kernelbook.book import load_book
from kernelbook.labels import label
from kernelbook.figure_cache import figure_html
from kernelbook.render import Context, render_page
from kernelbook.sections import section_index

log = logging.getLogger("mkdocs.plugins.kernelbook")
_problems: list[str] = []
_notes: set[str] = set()


def _root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_config(config):
    _problems.clear()
    for problem in twins.check_tree(Path(config.docs_dir)):
        _report(problem)
    return config


def on_pre_build(config):
    """(Re)write each chapter's notebook, only where a snippet, heading or capture changed.

    Before MkDocs lists the files, so a new notebook is a page of this very build; and
    without touching unchanged files, so ``mkdocs serve`` does not rebuild in a loop.
    """
    root = _root(config)
    if os.environ.get("KERNELBOOK_READ_ONLY"):  # `kernelbook build --no-capture`: render what is committed
        for path in notebooks.stale(root):
            _report(f"{path.relative_to(root)} is out of date with its page or captures; run `kernelbook notebooks` and commit it")
        return
    for path in notebooks.generate_all(root):
        log.info("kernelbook: wrote %s", path.relative_to(root))


def on_page_markdown(markdown, page, config, files):
    if notebook_pages.is_notebook(page.file):
        return markdown  # mkdocs-jupyter renders it from the .ipynb: no page Markdown here
    lang = getattr(page.file, "locale", None) or "ja"
    root = _root(config)
    ctx = Context(
        lang=lang,
        page=page.file.src_uri,
        book=load_book(root),
        sections=lambda lang: section_index(Path(config.docs_dir), lang, config.site_url or "/"),
    )
    ctx = ctx.with_figure(lambda name, lang: _figure(root, name, lang, ctx))
    ctx = replace(ctx, notebook=lambda chapter, lang: _notebook_links(config, page, chapter, lang, ctx))
    rendered = render_page(markdown, ctx)
    for problem in ctx.errors:
        _report(problem)
    for entry in ctx.book.values():  # not errors, but a maintainer should hear of them
        for note in entry.notes:
            if note not in _notes:
                _notes.add(note)
                log.info("kernelbook: %s: %s", entry.snippet.id, note)
    return rendered


def _figure(root: Path, name: str, lang: str, ctx: Context) -> str:
    try:
        return figure_html(root, name, lang, ctx.book)
    except (ImportError, KeyError, ValueError) as exc:
        return ctx.error(f"[[kb:figure {name}]]", f"cannot draw it: {exc}")


def _notebook_links(config, page, chapter: str, lang: str, ctx: Context) -> str:
    where = f"[[kb:notebook {chapter}]]"
    if not (Path(config.docs_dir) / lang / chapter / notebooks.NAME).is_file():
        return ctx.error(where, f"no notebook docs/{lang}/{chapter}/{notebooks.NAME}: is there a docs/{lang}/{chapter}/index.md that runs snippets?")
    settings = notebook_pages.settings(config)
    return notebooks.notebook_links(chapter, lang, settings["repository"], settings["branch"], base=_base(page, chapter, config))


def _base(page, chapter: str, config) -> str:
    """From the page's URL to the chapter page's: '' on the chapter page itself."""
    src = PurePosixPath(getattr(page.file, "norm_src_uri", None) or page.file.src_uri)
    folder = src.parent if src.stem in ("index", "README") or not config.use_directory_urls else src.parent / src.stem
    rel = posixpath.relpath(chapter, folder.as_posix() or ".")
    return "" if rel == "." else rel + "/"


@event_priority(-200)  # after mkdocs-static-i18n (-100): see notebook_pages.py
def on_files(files, config):
    return notebook_pages.make_pages(files, config)


def on_page_content(html, page, config, files):
    lang = getattr(page.file, "locale", None) or "ja"
    if notebook_pages.is_notebook(page.file):
        html = notebook_pages.page_html(html, page, config, lang)
    return html.replace('title="Permanent link"', f'title="{label("permalink", lang)}"')


# static-i18n writes per-page <link rel="alternate" hreflang> tags; material's JS takes
# each as a language root and fetches "<that page>/sitemap.xml", a 404 on every load.
# The header switcher already links the same page in the other language.
_HEAD_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[a-z]{2}">')


def on_post_page(output, page, config):
    download = getattr(page.file, "download", None)
    if download is not None:  # a notebook page: its .ipynb beside the chapter page, for the download link
        download.copy_file()
    return _HEAD_ALTERNATE.sub("", output)


def on_post_build(config):
    if _problems:
        raise PluginError(f"kernelbook: {len(_problems)} problem(s) in the book, listed above; the first: {_problems[0]}")


def _report(problem: str) -> None:
    if problem not in _problems:
        _problems.append(problem)
        log.error(problem)
