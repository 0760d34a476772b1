"""The print document to PDF, by Debian's Chromium driven by Playwright (never ``playwright install``).

Chromium makes the PDF's outline (bookmarks) from the headings and tags it (``tagged``), embeds
the subset of each font it used, and keeps links and figures (inline SVG) as vector graphics.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ...safety.errors import KernelbookError

# as the browser tests launch it: no sandbox (containers, root), no GPU, nothing fetched in the background
ARGS = ("--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update")
NO_CHROMIUM = ("no `chromium` on PATH: kernelbook pdf prints through Debian's Chromium "
               "(apt-get install chromium fonts-ipaexfont-gothic); never `playwright install`")
NO_PLAYWRIGHT = "kernelbook pdf needs Playwright and Beautiful Soup: pip install -e '.[pdf]'"


def executable() -> str:
    """Chromium's path, or one line saying how to get it."""
    found = shutil.which("chromium")
    if found is None:
        raise KernelbookError(NO_CHROMIUM)
    return found


def print_documents(jobs: list[tuple[Path, Path]], timeout_ms: float = 300_000) -> None:
    """Print each (document, pdf) pair with one browser; each PDF is written whole or not at all."""
    chromium = executable()
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        raise KernelbookError(NO_PLAYWRIGHT) from None
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=chromium, args=list(ARGS))
        except Error as exc:
            raise KernelbookError(f"{chromium} did not start: {str(exc).splitlines()[0]}") from None
        try:
            for doc, pdf in jobs:
                page = browser.new_page()
                page.set_default_timeout(timeout_ms)
                page.goto(doc.resolve().as_uri(), wait_until="load")
                part = pdf.with_name(pdf.name + ".part")
                page.pdf(path=part, prefer_css_page_size=True, print_background=True, outline=True, tagged=True)
                page.close()
                part.replace(pdf)
        finally:
            browser.close()
