"""mkdocs hook: thin glue from pages to the renderer. Never executes a snippet.

Registered in mkdocs.yml (``hooks:``). Every problem (a missing or stale capture, a
claim the captures contradict, twins that differ) is logged naming the page and the
directive, and the build then fails.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.exceptions import PluginError

from kernelbook import twins
from kernelbook.book import load_book
from kernelbook.labels import label
from kernelbook.pictures import figure_html
from kernelbook.render import Context, render_page

log = logging.getLogger("mkdocs.plugins.kernelbook")
_problems: list[str] = []


def _root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_config(config):
    _problems.clear()
    for problem in twins.check_tree(Path(config.docs_dir)):
        _report(problem)
    return config


def on_page_markdown(markdown, page, config, files):
    lang = getattr(page.file, "locale", None) or "ja"
    root = _root(config)
    ctx = Context(
        lang=lang,
        page=page.file.src_uri,
        book=load_book(root),
    )
    ctx = ctx.with_figure(lambda name, lang: _figure(root, name, lang, ctx))
    rendered = render_page(markdown, ctx)
    for problem in ctx.errors:
        _report(problem)
    return rendered


def _figure(root: Path, name: str, lang: str, ctx: Context) -> str:
    try:
        return figure_html(root, name, lang, ctx.book)
    except (ImportError, KeyError, ValueError) as exc:
        return ctx.error(f"[[kb:figure {name}]]", f"cannot draw it: {exc}")


def on_page_content(html, page, config, files):
    lang = getattr(page.file, "locale", None) or "ja"
    return html.replace('title="Permanent link"', f'title="{label("permalink", lang)}"')


def on_post_build(config):
    if _problems:
        raise PluginError(f"kernelbook: {len(_problems)} problem(s) in the book, listed above; the first: {_problems[0]}")


def _report(problem: str) -> None:
    if problem not in _problems:
        _problems.append(problem)
        log.error(problem)
