"""The site half's commands, ``kernelbook build`` and ``notebooks``: MkDocs' Python API, in-process.

The config is loaded as ``mkdocs build`` loads it, so the plugin's options can be set on
it (``read_only`` for ``build --no-capture``) instead of passed through the environment.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..safety import locks
from ..safety.errors import KernelbookError
from .notebooks import chapter as notebooks
from .book import load_book
from .settings import load


SITE_MODE = 0o755  # what `mkdocs build` gives site/ under the usual umask


def build(root: Path, site_dir: Path, *, plugin: dict | None = None) -> int:
    """``mkdocs build --strict`` of the book at ``root`` into ``site_dir``: 0 built, 1 not, 2 bad input.

    Built into a temporary folder beside it and swapped into place only on success: a
    failing build leaves the previous ``site_dir`` as it was. ``plugin``: kernelbook
    options over mkdocs.yml's, e.g. ``{"read_only": True}``.
    """
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # material prints a banner otherwise
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.exceptions import Abort, ConfigurationError

    from .plugin import BadInput

    # beside site_dir, on its file system, so that the swap is two renames
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}-building-", dir=site_dir.parent))
    building.chmod(SITE_MODE)  # mkdtemp makes it 0700: the swapped-in site/ must be readable by a web server
    try:
        with _mkdocs_log():
            try:
                config, _ = load(root, plugin=plugin, site_dir=str(building), strict=True)
                config.plugins.on_startup(command="build", dirty=False)
                try:
                    mkdocs_build(config)
                finally:
                    config.plugins.on_shutdown()
            except (Abort, ConfigurationError) as exc:
                cause = exc.__context__
                if isinstance(cause, BadInput):
                    print(str(cause), file=sys.stderr)
                    return 2
                print(f"kernelbook: the build failed: {exc}; {site_dir} is as it was", file=sys.stderr)
                return 1
        _swap(building, site_dir)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return 0


def _swap(new: Path, site_dir: Path) -> None:
    """``new`` becomes ``site_dir``; the old one is moved aside first, then removed."""
    old = None
    if site_dir.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}-old-", dir=site_dir.parent))
        os.replace(site_dir, old / "site")
    os.replace(new, site_dir)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def check_glossary(root: Path) -> None:
    """The book's glossary readable and sound: else its first problem (file:line) as a one-line KernelbookError."""
    from .glossary.terms import GlossaryError

    with _mkdocs_log():
        _, settings = load(root)
    try:
        notebooks.book_glossary(settings)
    except GlossaryError as exc:
        more = len(exc.problems) - 1
        raise KernelbookError(exc.problems[0] + (f" (and {more} more problem(s) in the glossary)" if more else "")) from None


def notebooks_check(root: Path) -> list[Path]:
    """Notebooks that differ from their chapter, snippets and captures; writes nothing (but the figure cache)."""
    with _mkdocs_log():
        _, settings = load(root)
    with _book_lock(settings.root, "kernelbook notebooks --check"):
        return notebooks.stale(settings)


def notebooks_write(root: Path) -> list[Path]:
    """Rewrite the notebooks that changed; the paths written. A book with a problem a
    notebook would show (a missing capture, a run of an unknown snippet) writes nothing."""
    with _mkdocs_log():
        _, settings = load(root)
    with _book_lock(settings.root, "kernelbook notebooks"):
        book = load_book(settings.root, settings.snippets_dir)
        problems = notebooks.problems(settings, book)
        if problems:
            raise KernelbookError(f"not writing notebooks: {len(problems)} problem(s); the first: {problems[0]}")
        return notebooks.generate_all(settings, book)


def render(root: Path, out: Path) -> int:
    """``kernelbook render OUT``: 0 written, 1 a problem in the book (nothing written); KernelbookError: bad input."""
    from .editions import history as editions
    from . import plain_tree

    with _mkdocs_log():
        _, settings = load(root)
    for own in (settings.docs_dir, settings.root / settings.snippets_dir, settings.root / "scripts"):
        own = own.resolve()  # the book's own sources: replacing OUT's language folders would delete them
        if out == own or own in out.parents or out in own.parents:
            raise KernelbookError(f"kernelbook render {out}: that folder holds or is inside the book's {own.name}/; "
                                  "name a folder of its own (e.g. build/plain)")
    try:
        editions.current()  # an edition name that is not one (MIKE_DOCS_VERSION): bad input, one line
    except ValueError as exc:
        raise KernelbookError(f"kernelbook render: {exc}") from None
    with _book_lock(settings.root, "kernelbook render"):
        tree = plain_tree.render_book(root)
    for note in tree.unchecked:  # not failures: the instructors' page lists them too
        print(f"kernelbook: {note}", file=sys.stderr)
    for problem in tree.problems:
        print(f"ERROR: {problem}", file=sys.stderr)
    if tree.problems:
        print(f"kernelbook render: {len(tree.problems)} problem(s) in the book, listed above; nothing written to {out}", file=sys.stderr)
        return 1
    plain_tree.write(tree, out)
    builds = " && ".join(f"mkdocs build -f {out / f'mkdocs.{lang}.yml'}" for lang in tree.languages)
    print(f"kernelbook render: wrote {len(tree.files)} files to {out}; build the site (into {out / 'site'}) with: {builds}", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _book_lock(root: Path, who: str) -> Iterator[None]:
    """The book's lock, shared (``locks``): no capture writes captures or runs a snippet while the cache is used."""
    fd = locks.acquire(root, False, who, lambda holder: print(f"waiting for {holder} to finish", file=sys.stderr, flush=True))
    try:
        yield
    finally:
        locks.release(fd)


class _mkdocs_log:
    """MkDocs' messages on stderr while inside, as ``mkdocs build`` prints them ("ERROR   -  ...")."""

    def __enter__(self):
        self.logger = logging.getLogger("mkdocs")
        self.handler = logging.StreamHandler(sys.stderr)
        self.handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
        self.level = self.logger.level
        self.logger.addHandler(self.handler)
        self.logger.setLevel(logging.INFO)
        return self

    def __exit__(self, *exc) -> None:
        self.logger.removeHandler(self.handler)
        self.logger.setLevel(self.level)
