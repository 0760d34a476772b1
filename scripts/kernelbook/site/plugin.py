"""The kernelbook MkDocs plugin: thin glue from MkDocs' events to the book. Never executes a snippet.

Registered through the ``mkdocs.plugins`` entry point ``kernelbook`` (pyproject.toml) and
configured in mkdocs.yml under ``plugins: - kernelbook: {...}`` (``config.KernelbookConfig``).
Every problem (a missing or stale capture, a claim the captures contradict, twins that
differ) is logged naming the page and the directive, and the build then fails.

Each build (and each language build of mkdocs-static-i18n) starts from a fresh :class:`BuildRun`
in ``on_config``: nothing found by one build is seen by the next, so ``mkdocs serve`` rebuilds as
``mkdocs build`` would. What is worth keeping (drawn figures, notebook pages) is on disk, keyed by content.

A build changes nothing in ``docs/`` unless it succeeds: the chapter notebooks it makes are
rendered from copies staged in the cache (the committed ``.ipynb`` is left alone), and written
into ``docs/`` only at the very end of the build (every language built, no problem, no warning).
"""

from __future__ import annotations

import logging
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File

from ..safety import locks
from ..safety.errors import KernelbookError
from ..common.freshness import check_inputs
from ..common.records import write_atomic
from . import build_report, minify, search_index
from .editions import history as editions
from .glossary import build as glossary_site, terms as glossary_terms
from .prose import extensions as markdown_extensions, unrendered
from .notebooks import (ahead as notebook_ahead, assets as notebook_assets, links as notebook_links,
                        pages as notebook_pages, chapter as notebooks)
from .caches import notebooks as notebook_cache, pages as page_cache, search as search_cache
from .pages import figure_tabs, markdown as page_markdown, twins
from .book import Entry, load_book
from .config import KernelbookConfig
from .directives import Context, run as run_directive
from .prose import labels, language, sections, text
from .settings import BookSettings, from_config

log = logging.getLogger("mkdocs.plugins.kernelbook")


class BadInput(PluginError):
    """A file the book cannot use (a snippet's name, bytes that are not UTF-8): `kernelbook build` exits 2."""


@dataclass
class BuildRun:
    """Everything one build learns; replaced at the start of the next."""

    settings: BookSettings
    book: dict[str, Entry] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # scoped claims no fresh capture of their device checks
    counts: Counter = field(default_factory=Counter)
    notebooks: dict[Path, bytes] = field(default_factory=dict)  # every chapter notebook as this build makes it
    staged: dict[str, str] = field(default_factory=dict)  # docs/ path -> the staged copy rendered instead
    search: object | None = None  # material's search plugin, when each language gets its own index
    glossary: glossary_site.Glossary | None = None  # read once per build; None when the book has none or it is wrong (reported)
    edition: str | None = None  # the edition this build publishes (mike sets MIKE_DOCS_VERSION); None for a local build
    page_site: str | None = None  # page_cache.site_key of this build's files and settings

    @cached_property
    def renderers(self) -> dict[str, str | None]:
        return notebook_cache.versions()

    @cached_property
    def quoted(self) -> frozenset[str]:
        """What looks like a directive in the captures' own strings: shown as their text, never a leftover."""
        return unrendered.quoted(c for e in self.book.values() for c in e.fresh)


class KernelbookPlugin(BasePlugin[KernelbookConfig]):
    run: BuildRun | None = None
    depth = 0  # builds under way: mkdocs-static-i18n builds each other language inside the first's on_post_build

    held: int | None = None  # the book's lock, shared, while a build runs (locks.py): no capture writes meanwhile
    pending: list[str] = []  # every language's problems, until the outermost build ends: one build reports all
    # Under `mkdocs serve`, the notebooks the last good build changed are written into docs/ when it stops:
    # written after each rebuild, they would make the server build and reload the browser a second time.
    serving = False
    unwritten: dict[Path, bytes] = {}
    ahead: notebook_ahead.Ahead | None = None  # a child converting notebook pages beside the build (notebook_ahead.py)

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """Defined so that ``mkdocs serve`` keeps this instance; each build still starts afresh."""
        self.run = None
        self.depth = 0
        self.serving = command == "serve"
        self.unwritten = {}
        self.ahead = None
        self._unlock()

    def on_config(self, config):
        self.depth += 1
        try:
            settings = from_config(config, self.config)
            edition = editions.current()
        except ValueError as exc:
            raise PluginError(f"kernelbook: {exc}") from None
        self.run = BuildRun(settings, edition=edition)
        self.pending = [] if self.depth == 1 else self.pending  # the first build of a run starts the list
        if self.held is None:  # the first build of a run (i18n builds the other languages inside it)
            self.held = locks.acquire(settings.root, False, "mkdocs build", lambda holder: log.info(
                "kernelbook: waiting for %s to finish: it holds the lock on %s", holder, settings.root))
        page_cache.keep_highlights()  # both languages show the same code: highlighted once (before the child forks)
        missing = markdown_extensions.add_missing(config)
        if missing:
            log.info("kernelbook: added the Markdown extension(s) its pages are written with: %s", ", ".join(missing))
        if settings.language_folders:
            for problem in twins.check_tree(settings.docs_dir, settings.languages):
                self._report(problem)
            if len(settings.languages) > 1:
                self.run.search = search_index.material_search(config)
            if config.plugins.get("i18n") is not None:
                search_index.quicken_duplicates(config.plugins["i18n"], notebook_cache.versions(("mkdocs-static-i18n",))["mkdocs-static-i18n"])
        self.run.glossary = glossary_site.read(self.run.settings, self._report)
        return config

    def on_pre_build(self, config):
        """Read the captures once; make each chapter's notebook, staging those that changed.

        A changed notebook is rendered from a copy in the cache; ``docs/`` is written only
        once the whole build has succeeded (``_write_notebooks``).
        """
        run = self.run
        settings = run.settings
        jupyter, rendered = config.plugins.get("mkdocs-jupyter"), settings.cache_dir / "notebooks"
        if self.depth == 1 and jupyter is not None and self.ahead is None:  # notebook_ahead.py (serve: the first build's)
            self.ahead = notebook_cache.start_ahead(jupyter, config, rendered, run.renderers, close=(self.held,))
        notebook_cache.ask_ahead(self.ahead, notebooks.committed(settings), jupyter, rendered, run.renderers)
        search = search_index.material_search(config, quiet=True)  # each build's index is new (material's on_config)
        if search is not None and getattr(search, "search_index", None) is not None:
            search_cache.cache_entries(search.search_index, settings.cache_dir / "search", search_cache.versions(),
                                       lambda cached: run.counts.update(["search cached" if cached else "search parsed"]))
        try:
            check_inputs(settings.root, settings.snippets_dir)
            run.book = load_book(settings.root, settings.snippets_dir)
            planned = glossary_site.planned_notebooks(settings, run.book, run.glossary, report=self._report)
        except KernelbookError as exc:  # a snippet's name or bytes, a capture that cannot be read: one line
            raise BadInput(f"kernelbook: {exc}") from None
        for entry in run.book.values():  # not errors, but a maintainer should hear of them
            for note in entry.notes:
                log.info("kernelbook: %s: %s", entry.snippet.id, note)
        run.notebooks = {path: notebooks.dumps(nb).encode("utf-8") for path, nb in planned.items()}
        changed = [path for path, data in run.notebooks.items() if not notebook_cache.holds(path, data)]
        if settings.read_only:  # `kernelbook build --no-capture`: render what is committed
            for path in changed:
                self._report(f"{settings.rel(path)} is out of date with its page, captures or glossary; "
                             "run `kernelbook notebooks` and commit it")
            return
        for path in changed:
            run.staged[os.path.normpath(path)] = str(notebook_cache.stage(rendered / "staged", run.notebooks[path]))
        notebook_cache.ask_ahead(self.ahead, [Path(p) for p in run.staged.values()], jupyter, rendered, run.renderers)

    def on_serve(self, server, config, builder):
        snippets = self.run.settings.root / self.run.settings.snippets_dir if self.run else None
        if snippets is not None and snippets.is_dir():
            server.watch(str(snippets))  # a new capture or an edited snippet rebuilds the pages
        return server

    @event_priority(100)  # before mkdocs-jupyter and mkdocs-static-i18n see the files
    def _files_add_new_notebooks(self, files, config):
        """A chapter's first notebook, not in docs/ yet, is a file of this build (rendered from its staged copy)."""
        docs = Path(config.docs_dir)
        for path in self.run.notebooks:
            uri = path.relative_to(docs).as_posix()
            if os.path.normpath(path) in self.run.staged and not path.exists() and files.get_file_from_path(uri) is None:
                files.append(File(uri, config.docs_dir, config.site_dir, config.use_directory_urls))
        return files

    @event_priority(-200)  # after mkdocs-static-i18n (-100): see notebook_pages.py
    def _files_notebook_pages(self, files, config):
        files = notebook_pages.make_pages(glossary_site.without_data(files, self.run.settings), config, exists=lambda path: path.is_file() or path in self.run.notebooks)
        staged = self.run.staged
        for file in list(files):  # changed notebooks: rendered and offered from their staged copies
            for one in (file, getattr(file, "download", None)):
                if one is not None and one.abs_src_path and os.path.normpath(one.abs_src_path) in staged:
                    one.abs_src_path = staged[os.path.normpath(one.abs_src_path)]
        return files

    @event_priority(-300)  # last: on the files every other plugin has settled
    def _files_minify_assets(self, files, config):
        """The book's own CSS and JS are served without their comments and indentation (minify.py)."""
        names = {str(getattr(x, "path", x)) for x in (*config.extra_css, *config.extra_javascript)}
        try:
            minify.minify_files(files, names)
        except ValueError as exc:
            raise BadInput(f"kernelbook: {exc}") from None
        return files

    on_files = CombinedEvent(_files_add_new_notebooks, _files_notebook_pages, _files_minify_assets)

    def on_env(self, env, config, files):
        """The theme's templates compiled once, kept as bytecode (each build's environment would compile them again)."""
        return notebook_cache.with_bytecode(env, self.run.settings.cache_dir / "jinja")

    @event_priority(-150)  # after mkdocs-static-i18n (-100), which makes each language's navigation
    def on_nav(self, nav, config, files):
        notebook_pages.chain_chapters(nav.pages)
        return nav

    @event_priority(-50)  # after mkdocs-jupyter's on_pre_page, which sets the page's render
    def on_pre_page(self, page, config, files):
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None and notebook_pages.is_notebook(page.file) and "render" in vars(page):
            notebook_cache.cache_render(page, self.run.settings.cache_dir / "notebooks", dict(jupyter.config),
                                        self.run.renderers, self._rendered_notebook, self.ahead)
        elif not notebook_pages.is_notebook(page.file) and "render" not in vars(page):  # MkDocs' own render: a Markdown page
            if self.run.page_site is None:  # the same for every page of this build
                self.run.page_site = page_cache.site_key(config, files, page_cache.versions())
            page_cache.cache_render(page, self.run.settings.cache_dir / "pages", self.run.page_site,
                                    lambda cached: self.run.counts.update(["pages cached" if cached else "pages rendered"]))
        return page

    def on_page_markdown(self, markdown, page, config, files):
        if notebook_pages.is_notebook(page.file):
            return markdown  # mkdocs-jupyter renders it from the .ipynb: no page Markdown here
        run = self.run
        source = page_markdown.PageSource(
            lang=self._lang(page), src_uri=page.file.src_uri, url=page.url, meta=page.meta,
            first_line=text.lines_before(getattr(page.file, "content_string", "") or ""),
            link_uri=getattr(page.file, "norm_src_uri", None) or page.file.src_uri)
        done = page_markdown.render(markdown, source, page_markdown.BookState(run.settings, run.book, run.glossary, run.edition),
                                    figure=self._figure, notebook=lambda chapter, lang, ctx: self._notebook_links(page, chapter, lang, ctx, config),
                                    report=self._report)
        for problem in done.errors:
            self._report(problem)
        for note in done.unchecked:  # not a failure: listed here and on the instructors' page
            if note not in run.unchecked:
                run.unchecked.append(note)
                log.info("kernelbook: %s", note)
        return done.markdown

    def on_page_content(self, html, page, config, files):
        lang = self._lang(page)
        if notebook_pages.is_notebook(page.file):
            notebook_assets.write(getattr(page, "notebook_files", {}), Path(config.site_dir))
            html = notebook_pages.page_html(notebook_assets.at_page(html, page.url), page, lang, self.config.repository, self.config.branch)
        html = run_directive.unwrapped(html).replace('title="Permanent link"', f'title="{labels.label("permalink", lang)}"')
        return language.marked(html, lang)

    def on_post_page(self, output, page, config):
        if notebook_pages.is_notebook(page.file):  # its .ipynb beside the chapter page, for the download link
            notebook_pages.copy_download(page, config)
        for leftover in unrendered.in_html(output, self.run.quoted):  # whatever put it there, a reader would see it as written
            self._report(f"{page.file.src_uri}: {leftover}: reaches the built page as written (a directive outside code must render)")
        head = output.find("</head>")  # the tags are in the head: never scan the page's body
        if head >= 0:
            output = _HEAD_ALTERNATE.sub("", output[:head]) + output[head:]
        lang = self._lang(page)
        output = editions.mark_page(output, self.run.edition, sections.relative("", page.url), self.run.settings.url_prefix(lang))
        if self.run.search is not None and lang != self.run.settings.default_language:
            try:  # the page searches its own language's index (search_index.py)
                output = search_index.rebase(output, self.run.settings.url_prefix(lang))
            except ValueError as exc:
                self._report(f"{page.file.src_uri}: {exc}")
        if not notebook_pages.is_notebook(page.file):  # mkdocs-jupyter's HTML is left as it writes it
            # what no reader sees twice (kernelbook.js restores titles), kept by content like the pages
            output = minify.html_kept(glossary_terms.titles_once(output), self.run.settings.cache_dir / "served")
        return output

    def _check_build(self, config):
        run = self.run
        log.info("kernelbook: %s", build_report.summary(run.counts))
        if run.unchecked:
            log.info("kernelbook: %s", build_report.unchecked(run.unchecked))
        self.pending += [p for p in run.problems if p not in self.pending]  # this language's, kept for _fail_build

    @event_priority(-900)  # after mkdocs-static-i18n (-100) built the other languages: they are all reported, once
    def _fail_build(self, config):
        self.pending += [p for p in self.run.problems if p not in self.pending]
        if self.depth == 1 and self.pending:
            raise PluginError(f"kernelbook: {len(self.pending)} problem(s) in the book, listed above; the first: {self.pending[0]}")

    @event_priority(-110)  # after mkdocs-static-i18n (-100) has written every language into one index
    def _split_search(self, config):
        """One search index per language, beside that language's pages (see search_index.py).

        Also runs after each language's own build, when the search plugin holds that language's
        entries only: then only that language's index is written; the last run writes them all.
        """
        search = self.run.search
        if search is None:
            return
        settings = self.run.settings
        demoted = {Path(notebooks.NAME).stem} | ({Path(self.config.glossary_page).stem} if self.config.glossary else set())
        try:
            search_index.write_per_language(search.search_index, {lang: settings.url_prefix(lang) for lang in settings.languages},
                                            demoted, Path(config.site_dir))
        except ValueError as exc:
            raise PluginError(f"kernelbook: per-language search: {exc}") from None

    @event_priority(-1000)  # after every other plugin's, mkdocs-static-i18n's other-language builds included
    def _post_build_write(self, config):
        self.depth = max(0, self.depth - 1)
        if self.depth == 0 and not self.run.settings.read_only and not build_report.warned(config):
            changed = {path: data for path, data in self.run.notebooks.items() if not notebook_cache.holds(path, data)}
            if self.serving:
                self.unwritten = changed
                for path in changed:
                    log.info("kernelbook: %s changed: written when the server stops", self.run.settings.rel(path))
            else:
                self._write_notebooks(changed)
        if self.depth == 0 and self.config.pdf and not self.serving:  # an edition's own PDFs, in its folder (KERNELBOOK_PDF)
            from .printing.book import print_site
            try:  # the edition's pages are the PDFs' source and their folder
                print_site(Path(config.site_dir), Path(config.site_dir), self.run.settings, config.site_name, edition=self.run.edition)
            except KernelbookError as exc:
                raise PluginError(f"kernelbook: the PDFs: {exc}") from None
        if self.depth == 0:
            self._end_run(failed=False)

    def on_build_error(self, error):
        self.depth = max(0, self.depth - 1)  # a failed build writes nothing
        if self.depth == 0:
            self._end_run(failed=True)

    def _end_run(self, failed: bool) -> None:
        if self.ahead is not None and not self.serving:  # its work is done (every page built) or of no use
            self.ahead.finish(kill=failed)
            self.ahead = None
        self._unlock()

    def on_shutdown(self) -> None:
        self._unlock()
        if self.ahead is not None:  # the server's: what it still had to convert is of no use now
            self.ahead.finish(kill=True)
            self.ahead = None
        if self.unwritten and self.run is not None:
            self.held = locks.acquire(self.run.settings.root, False, "mkdocs serve", lambda holder: log.info(
                "kernelbook: waiting for %s to finish: it holds the lock on %s", holder, self.run.settings.root))
            try:
                self._write_notebooks({p: d for p, d in self.unwritten.items() if not notebook_cache.holds(p, d)})
                self.unwritten = {}
            finally:
                self._unlock()

    def _unlock(self) -> None:
        locks.release(self.held)
        self.held = None

    def _write_notebooks(self, changed: dict[Path, bytes]) -> None:
        """The whole build succeeded: the notebooks it rendered go into docs/, where they changed."""
        for path, data in changed.items():
            write_atomic(path, data)
            log.info("kernelbook: wrote %s", self.run.settings.rel(path))

    on_post_build = CombinedEvent(_check_build, _split_search, _fail_build, _post_build_write)

    # ------------------------------------------------------------ services for the directives

    def _figure(self, name: str, lang: str, ctx: Context) -> str:
        def heard(drawn: bool) -> None:
            self.run.counts["figures drawn" if drawn else "figures cached"] += 1
            if drawn:
                log.info("kernelbook: drew figure %s (%s)", name, lang)
        try:  # a tab per GPU (and the CPU) where its snippet has several fresh captures
            return figure_tabs.page_figure(self.run.settings.cache_dir, name, lang, self.run.book, heard)
        except (KeyError, ValueError) as exc:
            return ctx.error(f"[[kb:figure {name}]]", f"cannot draw it: {exc}")

    def _notebook_links(self, page, chapter: str, lang: str, ctx: Context, config) -> str:
        settings = self.run.settings
        folder = settings.pages(lang) / chapter
        if not (folder / notebooks.NAME).is_file() and folder / notebooks.NAME not in self.run.notebooks:
            where = settings.rel(folder)
            return ctx.error(f"[[kb:notebook {chapter}]]", f"no notebook {where}/{notebooks.NAME}: is there a "
                             f"{where}/index.md that runs snippets?")
        view = config.plugins.get("mkdocs-jupyter") is not None  # without it the notebook is a download only
        return notebook_links.notebook_links(chapter, lang, self.config.repository, self.config.branch,
                                             base=notebook_pages.chapter_base(page, chapter, config), view=view)

    def _rendered_notebook(self, source: str, rendered: bool) -> None:
        self.run.counts["notebooks rendered" if rendered else "notebooks cached"] += 1
        if rendered:
            log.info("kernelbook: rendered notebook page %s", source)

    def _lang(self, page) -> str:
        return getattr(page.file, "locale", None) or self.run.settings.default_language

    def _report(self, problem: str) -> None:
        if problem not in self.run.problems:
            self.run.problems.append(problem)
            log.error(problem)


# static-i18n writes per-page <link rel="alternate" hreflang> tags; material's JS takes
# each as a language root and fetches "<that page>/sitemap.xml", a 404 on every load.
# The header switcher already links the same page in the other language.
_HEAD_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[a-z]{2}">')
