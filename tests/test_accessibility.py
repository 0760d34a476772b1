"""Every built page in the real Chromium: axe-core (WCAG 2.2 AA and best practice), the figures' colours, 200 % zoom.

Every page the site has (found in the build, not listed: a new chapter is audited as it
appears), in both languages, in the light and dark palettes, at a desktop's 1280 px and a
phone's 375 px: each page is loaded once and swept (``accessibility.sweep``): audited in turn
as ``accessibility.PASSES`` says, which rules each palette and width can change and why, its
figures' colours read in both palettes at both widths, then shown at 200 % zoom with reduced
motion. Each test asserts its own part of the sweep of its pages; the tests of one group of
pages run on one worker and share it. The site is served under its own base path (mkdocs.yml's
site_url: /kernelbook/), so the 404 page, whose links are absolute, is audited with its styles
too. No axe violation of impact serious or critical passes; moderate and minor ones are listed
in the test's output (as a warning) to be fixed where they are ours. A page deliberately broken
(a nameless figure, a low-contrast colour, a box wider than the window) fails the same checks.
"""

from __future__ import annotations

import collections
import re
import warnings

import pytest

from accessibility import (BLOCKING, LANGS, PASSES, SCHEME, SEARCH_READY, Found, Pass, Sweep, page_file, pages, quiet_search,
                           show, sweep)
from conftest import CHROMIUM, ROOT, serving

SHARDS = 2  # each language's pages in two groups, so that `make test`'s two workers share them

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH (Debian: apt-get install chromium); never `playwright install`")

# (lang, shard): the pages of one group, each test of the group on the same worker (pytest-xdist's loadgroup)
GROUPS = [pytest.param(lang, shard, marks=pytest.mark.xdist_group(f"a11y-{lang}-{shard}"), id=f"{lang}-{shard}")
          for lang in LANGS for shard in range(SHARDS)]
_swept: dict[tuple[str, int], Sweep | Exception] = {}


def swept(browser, built_site, url: str, lang: str, shard: int) -> Sweep:
    """The sweep of one group's pages, made by the first of its tests to ask on this worker (run alone,
    with ``-k``, a test still makes the whole sweep); a sweep that failed fails the others of its group
    without being made again."""
    if (lang, shard) not in _swept:
        paths = pages(built_site, lang)[shard::SHARDS]
        context = browser.new_context()
        quiet_search(context)
        try:
            assert paths, f"the built site has no page in {lang}"
            page = context.new_page()
            page.set_default_timeout(60_000)
            _swept[lang, shard] = sweep(page, url, paths)
        except Exception as exc:  # kept, so that the group's other tests say the same
            _swept[lang, shard] = exc
        finally:
            context.close()
    found = _swept[lang, shard]
    if isinstance(found, Exception):
        raise AssertionError(f"the sweep of {lang} pages, group {shard}, failed: {found!r}") from found
    return found


class ModerateViolations(UserWarning):
    """axe's moderate and minor findings: listed, not failed."""


def report(found: list[Found], tokens: list[str]) -> None:
    """Fail on any serious or critical finding (or a code token under 4.5:1); warn with the rest."""
    blocking = [f for f in found if f.impact in BLOCKING]
    rest = [f for f in found if f.impact not in BLOCKING]
    if rest:
        counts = collections.Counter((f.rule, f.impact) for f in rest)
        lines = [f"{rule} ({impact}): {n} node(s), e.g. {next(f for f in rest if f.rule == rule).page} "
                 f"{next(f for f in rest if f.rule == rule).target}" for (rule, impact), n in counts.most_common()]
        warnings.warn(ModerateViolations("axe, not blocking:\n" + "\n".join(lines)), stacklevel=2)
    problems = [f"{f.rule} ({f.impact}) on {f.page} at {f.target}: {f.summary}" for f in blocking[:40]] + tokens[:40]
    assert not problems, (f"{len(blocking)} serious or critical axe finding(s), {len(tokens)} code token(s) under 4.5:1:\n"
                          + "\n".join(problems))


@pytest.mark.parametrize(("lang", "shard"), GROUPS)
def test_every_page_passes_axe(browser, built_site, based_url, lang, shard):
    found = swept(browser, built_site, based_url, lang, shard)
    report(found.axe, found.tokens)


@pytest.mark.parametrize(("lang", "shard"), GROUPS)
def test_the_figures_colours_meet_wcag_in_both_palettes_at_both_widths(browser, built_site, based_url, lang, shard):
    """Every drawing's words at 4.5:1 and its points, lines and bars at 3:1 against the page, light and dark, 1280 and 375 px."""
    found = swept(browser, built_site, based_url, lang, shard)
    with_figures = [p for p in pages(built_site, lang)[shard::SHARDS] if 'class="kb-figure"' in page_file(built_site, p).read_text(encoding="utf-8")]
    assert found.figure_views == 4 * len(with_figures), (found.figure_views, with_figures)
    assert not found.figures, "\n".join(found.figures[:40])


@pytest.mark.parametrize(("lang", "shard"), GROUPS)
def test_every_page_reflows_at_200_percent_zoom_and_honours_reduced_motion(browser, built_site, based_url, lang, shard):
    """200 % zoom of a 1280-px window is a 640-px layout: no page scrolls sideways, and the text is still there;
    with reduced motion, no transition or smooth scroll of ours or material's remains."""
    found = swept(browser, built_site, based_url, lang, shard)
    assert not found.zoom, "\n".join(found.zoom)


def test_the_figures_are_found_on_some_page(built_site):
    assert any('class="kb-figure"' in page_file(built_site, p).read_text(encoding="utf-8") for p in pages(built_site)), \
        "no figure on any page: the colour test checks nothing"


def test_an_empty_search_index_changes_nothing_the_sweep_reads(browser, based_url):
    """quiet_search's promise: with its empty index a page is the same page, once material's search is ready and
    after each of the sweep's palette and width changes (a page whose search failed to load would differ: its code
    blocks would not be made focusable)."""
    seen = []
    for quiet in (False, True):
        context = browser.new_context()
        if quiet:
            quiet_search(context)
        try:
            page = context.new_page()
            page.set_default_timeout(60_000)
            show(page, "light", 1280)
            page.goto(based_url + "/ch01/", wait_until="load")
            page.wait_for_function(SEARCH_READY)
            bodies = []
            for one in PASSES:
                show(page, one.palette, one.width)
                bodies.append(page.evaluate("document.body.outerHTML"))
            seen.append(bodies)
        finally:
            context.close()
    assert len(seen[0][0]) > 100_000
    for one, real, quiet in zip(PASSES, *seen):
        at = next((i for i, (a, b) in enumerate(zip(real, quiet)) if a != b), min(len(real), len(quiet)))
        assert real == quiet, f"after {one}: the DOM differs at offset {at}: {real[at - 80:at + 80]!r} / {quiet[at - 80:at + 80]!r}"


def test_the_palette_the_audit_asks_for_is_the_one_the_page_shows(browser, based_url):
    """material follows prefers-color-scheme until a reader toggles it: the emulated scheme is the palette audited,
    whether the page loads in it or switches to it, and its colours are the scheme's."""
    context = browser.new_context()
    try:
        page = context.new_page()
        show(page, "dark", 1280)
        page.goto(based_url + "/")
        for palette in ("dark", "light", "dark"):
            show(page, palette, 1280)
            assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == SCHEME[palette]
            bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert (bg == "rgb(255, 255, 255)") == (palette == "light"), (palette, bg)
    finally:
        context.close()


# ---------------------------------------------------------------- a broken page fails

BROKEN = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>broken</title>
<link rel="stylesheet" href="kernelbook.css"></head><body><main>
<h1 hidden>A deliberately broken page</h1>
<p style="color:#aaaaaa;background:#ffffff">Grey text on white: 2.3:1.</p>
<figure class="kb-figure"><svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 50 20" width="100"><rect width="10" height="10"/>
<text x="1" y="10" style="fill:#aaaaaa">pale words</text><circle class="kb-point" cx="40" cy="10" r="4" style="fill:#dddddd"/></svg></figure>
<pre><code><span style="color:#b0b0b0">a pale comment</span></code></pre>
<div style="width:1000px">A box wider than a zoomed window.</div>
<nav class="md-top" style="transition:opacity 1s !important">a moving button</nav>
</main></body></html>"""


def test_a_broken_page_fails_the_audit(browser, tmp_path):
    (tmp_path / "index.html").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "kernelbook.css").write_bytes((ROOT / "docs" / "assets" / "kernelbook.css").read_bytes())
    context = browser.new_context(color_scheme="light")
    try:
        with serving(tmp_path) as url:
            page = context.new_page()
            found = sweep(page, url, ["/"], (Pass("light", 1280, None, True),))
    finally:
        context.close()
    rules = {f.rule for f in found.axe if f.impact in BLOCKING}
    assert {"color-contrast", "svg-img-alt"} <= rules, rules
    assert found.tokens and re.search(r"rgb\(176, 176, 176\) on rgb\(255, 255, 255\): 2\.1\d:1", found.tokens[0]), found.tokens
    with pytest.raises(AssertionError, match="color-contrast"):
        report(found.axe, found.tokens)
    assert any("pale words" in p and "4.5:1" in p for p in found.figures), found.figures
    assert any("kb-point" in p and "3.0:1" in p for p in found.figures), found.figures
    assert found.figure_views == 4
    zoom = [z.split(": ", 1)[1] for z in found.zoom]
    assert len(zoom) == 3 and re.fullmatch(r"scrolls sideways by \d+ px at 200 % zoom", zoom[0]), found.zoom
    assert zoom[1:] == ["its heading is not shown at 200 % zoom", "1 element(s) still animate with reduced motion"], found.zoom
