"""``kernelbook pdf``: the book as one PDF per language (``kernelbook-ja.pdf``, ``kernelbook-en.pdf``).

Printed from a built site (``site.printing``: the pages assembled into one document per
language, printed once by Chromium). Without ``--site`` the book is built first, read-only,
into a temporary folder, so a book that does not build stops here with the build's own error.
An edition's build (``mkdocs.editions.yml``, ``pdf: true``) prints its PDFs into its own
folder (the plugin's ``on_post_build``), so each published edition serves its own.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..safety.errors import KernelbookError
from .editions.history import current as current_edition, published_base
from .printing import chromium

try:
    from .printing import assemble
except ImportError:  # Beautiful Soup: the `pdf` extra, as Playwright is
    raise KernelbookError(chromium.NO_PLAYWRIGHT) from None

PAPERS = {"a4": "A4", "letter": "letter"}


@dataclass(frozen=True)
class Printed:
    path: Path
    size: int  # bytes


def make(root: Path, out: Path, paper: str = "a4", site: Path | None = None) -> list[Printed]:
    """Both PDFs into ``out``: from ``site`` when given, else from a read-only build made here."""
    chromium.executable()  # no Chromium: one line now, not after a build
    if site is not None:
        return _print_built(root, site, out, paper)
    from .commands import build

    with tempfile.TemporaryDirectory(prefix="kernelbook-pdf-") as work:
        if build(root, Path(work) / "site", plugin={"read_only": True, "pdf": False}):
            raise KernelbookError("the book did not build (the build's error is above): no PDF written")
        return _print_built(root, Path(work) / "site", out, paper)


def _print_built(root: Path, site: Path, out: Path, paper: str) -> list[Printed]:
    from mkdocs.exceptions import Abort, ConfigurationError

    from .settings import load

    try:
        config, settings = load(root)
    except (Abort, ConfigurationError) as exc:
        raise KernelbookError(f"{root / 'mkdocs.yml'}: {exc}") from None
    return print_site(site, out, settings, config["site_name"], paper, current_edition())


def print_site(site: Path, out: Path, settings, title: str, paper: str = "a4", edition: str | None = None) -> list[Printed]:
    """``out``/kernelbook-<lang>.pdf for each of the book's languages, printed from the built ``site``."""
    if paper not in PAPERS:
        raise KernelbookError(f"--paper {paper}: expected one of {', '.join(PAPERS)}")
    if "ja" in settings.languages:
        _check_japanese_font()
    out.mkdir(parents=True, exist_ok=True)
    commit, date = _commit(settings.root), datetime.now(timezone.utc).strftime("%Y-%m-%d")
    glossary = Path(settings.glossary_page).with_suffix("").as_posix() + "/"
    with tempfile.TemporaryDirectory(prefix="kernelbook-print-") as work:
        jobs = []
        for lang in settings.languages:
            prefix = settings.url_prefix(lang)
            home = site / prefix
            keys = assemble.printed_keys(assemble.nav_keys(home, prefix), glossary)
            pages = [assemble.read_page(home, key, prefix, set(keys)) for key in keys]
            sheets, licence = assemble.site_chrome(home)
            imprint = assemble.Imprint(lang, edition, commit, date, published_base(settings, edition, lang), PAPERS[paper])
            doc = Path(work) / f"kernelbook-{lang}.html"
            doc.write_text(assemble.document(pages, imprint, sheets, licence, title), encoding="utf-8")
            jobs.append((doc, out / f"kernelbook-{lang}.pdf"))
        chromium.print_documents(jobs)
    return [Printed(pdf, pdf.stat().st_size) for _, pdf in jobs]


def report(printed: list[Printed], seconds: float) -> str:
    return "".join(f"wrote {p.path} ({p.size / 1e6:.1f} MB)\n" for p in printed) + f"printed in {seconds:.1f} s\n"


def timed(root: Path, out: Path, paper: str, site: Path | None) -> str:
    """``kernelbook pdf``'s whole output: what was written, how big, how long it took."""
    start = time.monotonic()
    printed = make(root, out, paper, site)
    return report(printed, time.monotonic() - start)


def _commit(root: Path) -> str:
    try:
        done = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else "unknown (not a git checkout)"


def _check_japanese_font() -> None:
    """Without a Japanese font Chromium prints every Japanese glyph as a box: say so, print nothing."""
    try:
        fonts = subprocess.run(["fc-list", ":lang=ja", "family"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return  # no fontconfig tools to ask: Chromium's own fallback decides
    if not fonts.strip():
        raise KernelbookError("no Japanese font installed: the Japanese PDF would print boxes (apt-get install fonts-ipaexfont-gothic)")
