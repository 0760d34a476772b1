"""The site half's commands, ``kernelbook build`` and ``notebooks``: MkDocs' Python API, in-process.

The config is loaded as ``mkdocs build`` loads it, so the plugin's options can be set on
it (``read_only`` for ``build --no-capture``) instead of passed through the environment.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from . import notebooks
from .settings import load


def build(root: Path, site_dir: Path, *, plugin: dict | None = None) -> int:
    """``mkdocs build --strict`` of the book at ``root`` into ``site_dir``: 0 built, 1 not.

    ``plugin``: kernelbook options over mkdocs.yml's, e.g. ``{"read_only": True}``.
    """
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # material prints a banner otherwise
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.exceptions import Abort, ConfigurationError

    with _mkdocs_log():
        try:
            config, _ = load(root, plugin=plugin, site_dir=str(site_dir), strict=True)
            config.plugins.on_startup(command="build", dirty=False)
            try:
                mkdocs_build(config)
            finally:
                config.plugins.on_shutdown()
        except (Abort, ConfigurationError) as exc:
            print(f"kernelbook: the build failed: {exc}", file=sys.stderr)
            return 1
    return 0


def notebooks_check(root: Path) -> list[Path]:
    """Notebooks that differ from their chapter, snippets and captures; writes nothing."""
    with _mkdocs_log():
        _, settings = load(root)
    return notebooks.stale(settings)


def notebooks_write(root: Path) -> list[Path]:
    """Rewrite the notebooks that changed; the paths written."""
    with _mkdocs_log():
        _, settings = load(root)
    return notebooks.generate_all(settings)


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
