"""Every built page audited by axe-core (WCAG 2.2 AA and best practice) in the real Chromium.

Every page the site has (found in the build, not listed: a new chapter is audited as it
appears), in both languages, in the light and dark palettes, at a desktop's 1280 px and a
phone's 375 px: each page is loaded once and audited in turn as ``accessibility.PASSES``
says, which rules each palette and width can change and why. The site is served under its
own base path (mkdocs.yml's site_url: /kernelbook/), so the 404 page, whose links are
absolute, is audited with its styles too. No violation of impact
serious or critical passes; moderate and minor ones are listed in the test's output (as a
warning) to be fixed where they are ours. A page deliberately broken (a nameless figure, a
low-contrast colour) fails the same check.
"""

from __future__ import annotations

import collections
import re
import warnings

import pytest

from accessibility import BLOCKING, LANGS, PASSES, SCHEME, Found, Pass, code_colours, findings, pages, run_axe, show
from conftest import CHROMIUM, ROOT, serving

SHARDS = 2  # each language's pages in two tests, so that `make test`'s two workers share them

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH (Debian: apt-get install chromium); never `playwright install`")


class ModerateViolations(UserWarning):
    """axe's moderate and minor findings: listed, not failed."""


def audit(context, url: str, paths: list[str], chosen: tuple[Pass, ...] = PASSES) -> tuple[list[Found], list[str]]:
    """Every page of ``paths`` on ``url``, each loaded once and audited through ``chosen`` in turn:
    axe's findings, and the code tokens under 4.5:1."""
    page = context.new_page()
    page.set_default_timeout(60_000)
    found: list[Found] = []
    tokens: list[str] = []
    try:
        for path in paths:
            show(page, chosen[0].palette, chosen[0].width)
            page.goto(url + path, wait_until="load")
            for one in chosen:
                show(page, one.palette, one.width)
                where = f"{path} ({one.palette}, {one.width} px)"
                found += findings(run_axe(page, one), where)
                if one.colour:
                    tokens += [f"{where}: code token .{cls} {fg} on {bg}: {ratio}:1 (needs 4.5:1)" for fg, bg, cls, ratio in code_colours(page)]
    finally:
        page.close()
    return found, tokens


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


@pytest.mark.parametrize("shard", range(SHARDS))
@pytest.mark.parametrize("lang", LANGS)
def test_every_page_passes_axe(browser, built_site, based_url, lang, shard):
    paths = pages(built_site, lang)
    assert paths, f"the built site has no page in {lang}"
    context = browser.new_context()
    try:
        found, tokens = audit(context, based_url, paths[shard::SHARDS])
    finally:
        context.close()
    report(found, tokens)


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
<h1>A deliberately broken page</h1>
<p style="color:#aaaaaa;background:#ffffff">Grey text on white: 2.3:1.</p>
<figure class="kb-figure"><svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 10 10" width="100"><rect width="10" height="10"/></svg></figure>
<pre><code><span style="color:#b0b0b0">a pale comment</span></code></pre>
</main></body></html>"""


def test_a_broken_page_fails_the_audit(browser, tmp_path):
    (tmp_path / "index.html").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "kernelbook.css").write_bytes((ROOT / "docs" / "assets" / "kernelbook.css").read_bytes())
    context = browser.new_context(color_scheme="light")
    try:
        with serving(tmp_path) as url:
            found, tokens = audit(context, url, ["/"], (Pass("light", 1280, None, True),))
    finally:
        context.close()
    rules = {f.rule for f in found if f.impact in BLOCKING}
    assert {"color-contrast", "svg-img-alt"} <= rules, rules
    assert tokens and re.search(r"rgb\(176, 176, 176\) on rgb\(255, 255, 255\): 2\.1\d:1", tokens[0]), tokens
    with pytest.raises(AssertionError, match="color-contrast"):
        report(found, tokens)
