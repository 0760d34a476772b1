"""Both PDFs of a built site: each language's pages assembled (``assemble``), printed (``chromium``).

Called by ``kernelbook pdf`` (``site/pdf.py``) and by the plugin after an edition's build, which
prints into the edition's own folder.
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ...safety.errors import KernelbookError
from ..editions.history import published_base
from . import chromium

try:
    from . import assemble
except ImportError:  # Beautiful Soup: the `pdf` extra, as Playwright is
    raise KernelbookError(chromium.NO_PLAYWRIGHT) from None

if TYPE_CHECKING:
    from ..settings import BookSettings

PAPERS = {"a4": "A4", "letter": "letter"}


@dataclass(frozen=True)
class Printed:
    path: Path
    size: int  # bytes


def print_site(site: Path, out: Path, settings: "BookSettings", title: str, paper: str = "a4", edition: str | None = None) -> list[Printed]:
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
