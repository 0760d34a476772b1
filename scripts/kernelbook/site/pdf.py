"""``kernelbook pdf``: the book as one PDF per language (``kernelbook-ja.pdf``, ``kernelbook-en.pdf``).

Printed from a built site (``site.printing``: the pages assembled into one document per
language, printed once by Chromium). Without ``--site`` the book is built first, read-only,
into a temporary folder, so a book that does not build stops here with the build's own error.
An edition's build (``kernelbook edition publish`` sets ``KERNELBOOK_PDF``, which mkdocs.yml
reads as the plugin's ``pdf``) prints its PDFs into its own folder, so each edition serves its own.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from ..safety.errors import KernelbookError
from .editions.history import current as current_edition
from .printing import chromium
from .printing.book import Printed, print_site


def make(root: Path, out: Path, paper: str = "a4", site: Path | None = None) -> list[Printed]:
    """Both PDFs into ``out``: from ``site`` when given, else from a read-only build made here."""
    chromium.executable()  # no Chromium: one line now, not after a build
    if site is not None:
        return _print_built(root, site, out, paper)
    from .commands import build

    with tempfile.TemporaryDirectory(prefix="kernelbook-pdf-") as work:
        try:
            failed = build(root, Path(work) / "site", plugin={"read_only": True, "pdf": False})
        except KernelbookError as exc:  # its config: one line saying what to change
            raise KernelbookError(f"{exc}; the book did not build: no PDF written") from None
        if failed:
            raise KernelbookError("the book did not build (the build's error is above): no PDF written")
        return _print_built(root, Path(work) / "site", out, paper)


def _print_built(root: Path, site: Path, out: Path, paper: str) -> list[Printed]:
    from .settings import load

    config, settings = load(root)  # a config MkDocs refuses: a KernelbookError naming mkdocs.yml
    return print_site(site, out, settings, config["site_name"], paper, current_edition())


def report(printed: list[Printed], seconds: float) -> str:
    return "".join(f"wrote {p.path} ({p.size / 1e6:.1f} MB)\n" for p in printed) + f"printed in {seconds:.1f} s\n"


def timed(root: Path, out: Path, paper: str, site: Path | None) -> str:
    """``kernelbook pdf``'s whole output: what was written, how big, how long it took."""
    start = time.monotonic()
    printed = make(root, out, paper, site)
    return report(printed, time.monotonic() - start)
