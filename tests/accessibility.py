"""What the accessibility tests share: the built site's pages, one sweep of them in the browser, WCAG's contrast.

axe-core is the copy axe-playwright-python carries (its ``axe.min.js``), injected into each page
and run there; nothing is fetched. Which rules run where, and why, is :data:`PASSES`; known
false positives of ours go in :data:`EXCEPTED`, by rule and selector, with a reason.

:func:`sweep` loads each page once and makes every browser check of it in turn: axe in each
pass, the code tokens' contrast, the figures' colours in both palettes at both widths, and the
page at 200 % zoom with reduced motion. A page load is most of a check's cost, so the checks
share it; each test then asserts its own part of the :class:`Sweep`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

LANGS = ("ja", "en")
PALETTES = ("light", "dark")
WIDTHS = (1280, 375)
SCHEME = {"light": "default", "dark": "slate"}  # material's name for each palette (data-md-color-scheme)
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
BLOCKING = ("serious", "critical")
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
# Rules whose outcome depends on the viewport's width: what a phone's layout can break. (The
# viewport meta rules read one tag of the HTML, the same at every width: the first pass runs them.)
LAYOUT_RULES = ["scrollable-region-focusable", "target-size"]
# Code blocks hold thousands of one-token spans (Pygments): axe's colour check would take most of
# a minute a page on them. They are left to :func:`code_colours`, which checks each distinct pair of
# token colour and block background with the same formula, in a fraction of a second.
CODE_BOXES = [["pre"], [".highlight-ipynb"]]


@dataclass(frozen=True)
class Pass:
    """One axe run on a loaded page: in ``palette`` at ``width``, ``rules`` (None: every rule of TAGS
    but the colour rules; []: none of those), then the colour rules if ``colour`` (code boxes left
    out of them: :data:`CODE_BOXES`)."""

    palette: str
    width: int
    rules: list[str] | None
    colour: bool


# What axe runs on every page, one load of it, in this order. Every rule at the desktop's width in
# the light palette. A palette changes colours and nothing else (the same HTML; material switches
# custom properties on <body>), so the dark palette runs the colour rules. A phone's width changes
# the layout, not the HTML, names, roles, languages or colours: it runs the rules a layout can
# break (:data:`LAYOUT_RULES`), which no palette changes, so once. What only a phone shows in
# colour (the narrow drawings) is the figures' own contrast check, which :func:`sweep` makes at both widths.
PASSES = (
    Pass("light", 1280, None, True),
    Pass("dark", 1280, [], True),
    Pass("dark", 375, LAYOUT_RULES, False),
)


# (rule id, a regular expression its node's selector matches) -> why it is not a violation here.
EXCEPTED: dict[tuple[str, str], str] = {}


# What material's palette toggle does (its palette component): the chosen option's scheme, primary and
# accent colours on <body>. A page of the site loads in the emulated prefers-color-scheme (each palette
# entry of mkdocs.yml has a media query) but does not follow a later change of it: set it as the toggle does.
SWITCH = """s => {
  const option = document.querySelector(`input[data-md-color-scheme="${s}"]`);
  if (!option) return false;
  option.checked = true;  // material's own state: which option its toggle (and a later media change) starts from
  for (const k of ["scheme", "primary", "accent"])
    document.body.setAttribute("data-md-color-" + k, option.getAttribute("data-md-color-" + k));
  return true;
}"""


def show(page, palette: str, width: int) -> None:
    """``page`` in ``palette`` (emulated, and switched as material's toggle does) at ``width``, with reduced
    motion: material's colours change through 125-ms transitions, which kernelbook.css cuts for a reader
    who asks for less motion; without it axe would read a colour half-way."""
    page.emulate_media(color_scheme=palette, reduced_motion="reduce")
    page.set_viewport_size({"width": width, "height": 900})
    if page.url != "about:blank":  # a crafted page without material's toggle has nothing to switch
        frames = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        page.evaluate(frames)  # material's own answer to the media change first, then the switch
        page.evaluate(SWITCH, SCHEME[palette])
        page.evaluate(frames)


def pages(site: Path, lang: str | None = None) -> list[str]:
    """Every page of the built site (its path under the site's root), or only those in ``lang``: found, not listed."""
    found = []
    for html in sorted(site.rglob("*.html")):
        rel = html.relative_to(site)
        if rel.parts[0] == "assets":
            continue
        if rel.name == "index.html":
            path = "/" if rel.parent == Path(".") else f"/{rel.parent.as_posix()}/"
        else:
            path = f"/{rel.as_posix()}"
        if lang is None or ("en" if rel.parts[0] == "en" else "ja") == lang:
            found.append(path)
    return found


def page_file(site: Path, path: str) -> Path:
    """The file of the built site that serves ``path`` (as :func:`pages` names it)."""
    return site / path.lstrip("/") / "index.html" if path.endswith("/") else site / path.lstrip("/")


@functools.cache
def axe_source() -> str:
    from axe_playwright_python.sync_playwright import Axe

    return Axe().axe_script


def axe_version() -> str:
    m = re.search(r"axe v(\d+\.\d+\.\d+)", axe_source())
    return m.group(1) if m else "unknown"


def run_axe(page, chosen: Pass) -> list[dict]:
    """axe's violations on ``page`` (loaded, in ``chosen``'s palette and width), one dict per rule as axe reports them."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_source())
    script = "([c, o]) => axe.run(c || document, o).then(r => r.violations)"
    violations: list[dict] = []
    if chosen.rules != []:
        options: dict = {"resultTypes": ["violations"], "rules": {r: {"enabled": False} for r in COLOUR_RULES}}
        options["runOnly"] = {"type": "rule", "values": chosen.rules} if chosen.rules else {"type": "tag", "values": TAGS}
        violations += page.evaluate(script, [None, options])
    if chosen.colour:
        options = {"resultTypes": ["violations"], "runOnly": {"type": "rule", "values": COLOUR_RULES}}
        violations += page.evaluate(script, [{"exclude": CODE_BOXES}, options])
    return violations


@dataclass(frozen=True)
class Found:
    """One node that violates one rule, on one page."""

    rule: str
    impact: str
    page: str
    target: str
    summary: str


def findings(violations: Iterable[dict], page: str) -> list[Found]:
    """axe's violations, node by node, less those :data:`EXCEPTED`."""
    out = []
    for v in violations:
        for node in v["nodes"]:
            target = " ".join(str(t) for t in node["target"])
            if any(rule == v["id"] and re.search(where, target) for rule, where in EXCEPTED):
                continue
            summary = " ".join((node.get("failureSummary") or v["help"]).split())
            out.append(Found(v["id"], node.get("impact") or v.get("impact") or "minor", page, target, summary[:300]))
    return out


# ---------------------------------------------------------------- contrast (WCAG 2.x relative luminance)

def parse_colour(css: str) -> tuple[float, float, float, float]:
    """``rgb(...)``/``rgba(...)``/``#rrggbb[aa]`` as (r, g, b, alpha), channels 0-255."""
    css = css.strip()
    if css.startswith("#"):
        h = css[1:]
        if len(h) in (3, 4):
            h = "".join(c * 2 for c in h)
        alpha = int(h[6:8], 16) / 255 if len(h) == 8 else 1.0
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), alpha
    m = re.fullmatch(r"rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)", css)
    if not m:
        raise ValueError(f"not a colour the test can read: {css!r}")
    a = m.group(4)
    alpha = 1.0 if a is None else float(a[:-1]) / 100 if a.endswith("%") else float(a)
    return float(m.group(1)), float(m.group(2)), float(m.group(3)), alpha


def over(fg: str, bg: str) -> tuple[float, float, float]:
    """``fg`` composited over the opaque ``bg``."""
    r, g, b, a = parse_colour(fg)
    br, bgg, bb, _ = parse_colour(bg)
    return r * a + br * (1 - a), g * a + bgg * (1 - a), b * a + bb * (1 - a)


def luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: str, bg: str) -> float:
    """WCAG's contrast ratio of ``fg`` (alpha composited) on the opaque ``bg``."""
    a, b = luminance(over(fg, bg)), luminance(over(bg, "#ffffff"))
    hi, lo = max(a, b), min(a, b)
    return (hi + 0.05) / (lo + 0.05)


# Every distinct (token colour, code box background) pair on the page, for code_colours.
CODE_PAIRS = """() => {
  const opaque = el => {
    for (let e = el; e; e = e.parentElement) {
      const bg = getComputedStyle(e).backgroundColor;
      if (bg && !/rgba\\(.*,\\s*0\\)$/.test(bg) && bg !== 'transparent') return bg;
    }
    return 'rgb(255, 255, 255)';
  };
  const seen = new Map();
  for (const box of document.querySelectorAll('pre, .highlight-ipynb')) {
    if (!box.getClientRects().length) continue;
    const bg = opaque(box);
    for (const span of box.querySelectorAll('span, code')) {
      if (!span.textContent.trim() || span.children.length) continue;
      const style = getComputedStyle(span);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      const key = style.color + '|' + bg;
      if (!seen.has(key)) seen.set(key, span.className || span.tagName.toLowerCase());
    }
  }
  return [...seen].map(([k, cls]) => [...k.split('|'), cls]);
}"""


def code_colours(page) -> list[tuple[str, str, str, float]]:
    """The code tokens on ``page`` under 4.5:1: (colour, background, a class that has it, ratio)."""
    out = []
    for fg, bg, cls in page.evaluate(CODE_PAIRS):
        ratio = contrast(fg, bg)
        if ratio < 4.5:
            out.append((fg, bg, cls, round(ratio, 2)))
    return out


# ---------------------------------------------------------------- the figures' colours, zoom and motion

# Every visible drawing's words, points, lines and bars against the page's ground: (what, colour, ground).
FIGURE_COLOURS = """() => {
  const ground = getComputedStyle(document.body).backgroundColor;
  const out = [];
  for (const svg of document.querySelectorAll('figure.kb-figure svg')) {
    if (!svg.getClientRects().length) continue;
    const name = svg.getAttribute('class');
    for (const t of svg.querySelectorAll('text')) if (t.textContent.trim()) out.push(['text', name + ' "' + t.textContent.slice(0, 30) + '"', getComputedStyle(t).fill, ground]);
    for (const m of svg.querySelectorAll('.kb-point, .kb-bar, .kb-kernel-bar, .kb-cpu-bar'))
      out.push(['graphic', name + ' .' + m.getAttribute('class'), getComputedStyle(m).fill, ground]);
    for (const l of svg.querySelectorAll('polyline')) out.push(['graphic', name + ' polyline', getComputedStyle(l).stroke, ground]);
  }
  return out;
}"""


def colour_problems(page) -> list[str]:
    """The figures' colours on ``page`` under 4.5:1 (text) or 3:1 (points, lines, bars) against the page."""
    problems = []
    for kind, what, colour, ground in page.evaluate(FIGURE_COLOURS):
        if colour in ("none", "") or "url(" in colour:
            continue
        need = 4.5 if kind == "text" else 3.0
        ratio = contrast(colour, ground)
        if ratio < need:
            problems.append(f"{what}: {colour} on {ground} is {ratio:.2f}:1, under {need}:1")
    return problems


# 200 % zoom of a 1280 x 900 window: a 640 x 450 layout (at twice the pixels, which changes no CSS pixel of it).
ZOOMED = {"width": 640, "height": 450}
MOVING = """() => [...document.querySelectorAll('.md-header, .md-sidebar, .md-nav__link, .md-typeset a, .md-top')]
  .filter(e => parseFloat(getComputedStyle(e).transitionDuration) > 0.001).length"""


def zoom_problems(page) -> list[str]:
    """``page`` (shown at :data:`ZOOMED`, reduced motion asked for) scrolling sideways, losing its heading,
    or still animating: what a reader at 200 % zoom who asked for less motion would meet."""
    problems = []
    wide = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
    if wide > 1:
        problems.append(f"scrolls sideways by {wide} px at 200 % zoom")
    if not page.locator("h1").first.is_visible():
        problems.append("its heading is not shown at 200 % zoom")
    moving = page.evaluate(MOVING)
    if moving:
        problems.append(f"{moving} element(s) still animate with reduced motion")
    if page.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "smooth":
        problems.append("scrolls smoothly with reduced motion")
    return problems


# ---------------------------------------------------------------- one sweep of the pages


# material's search box says it is getting ready until its index is built (or there is no search on the page)
SEARCH_READY = """() => { const m = document.querySelector('.md-search-result__meta');
  return !m || !/Initializing|初期化/.test(m.textContent); }"""


def quiet_search(context) -> None:
    """Hand material's search the site's own search settings with no page in them, in ``context``.

    Material builds a search index of the whole site in a web worker on every page load (here
    about 0.7 s of CPU a load, beside the checks). The sweep never searches: the page's DOM is the
    same with an empty index, in every palette and width (test_accessibility checks it), so axe's
    findings are too, and the CPU is left to the checks. A failed request would not do: material's
    later components, the code blocks' keyboard focus among them, would not start.
    """
    configs: dict[str, dict] = {}  # each language's index, by its address: read once

    def empty(route) -> None:
        url = route.request.url
        if url not in configs:
            configs[url] = json.loads(route.fetch().text())["config"]
        route.fulfill(json={"config": configs[url], "docs": []})

    context.route("**/search/search_index.json", empty)


@dataclass
class Sweep:
    """What one sweep of some pages found, each list naming page, palette and width."""

    axe: list[Found] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)  # code tokens under 4.5:1
    figures: list[str] = field(default_factory=list)  # figure colours under 4.5:1 / 3:1
    figure_views: int = 0  # (page, palette, width) views with a figure whose colours were read
    zoom: list[str] = field(default_factory=list)  # at 200 % zoom, with reduced motion


def sweep(page, url: str, paths: list[str], chosen: tuple[Pass, ...] = PASSES) -> Sweep:
    """Every page of ``paths`` on ``url``, loaded once: axe through ``chosen`` in turn (with the code
    tokens' contrast in each colour pass), the figures' colours in both palettes at both widths, then
    the page at 200 % zoom with reduced motion."""
    found = Sweep()
    for path in paths:
        show(page, chosen[0].palette, chosen[0].width)
        page.goto(url + path, wait_until="load")
        page.wait_for_function(SEARCH_READY)  # the page test_accessibility compares with and without quiet_search
        figures = page.locator("figure.kb-figure").count() > 0
        views = set()
        for one in chosen:
            show(page, one.palette, one.width)
            where = f"{path} ({one.palette}, {one.width} px)"
            found.axe += findings(run_axe(page, one), where)
            if one.colour:
                found.tokens += [f"{where}: code token .{cls} {fg} on {bg}: {ratio}:1 (needs 4.5:1)" for fg, bg, cls, ratio in code_colours(page)]
            if figures:
                found.figures += [f"{where}: {p}" for p in colour_problems(page)]
                views.add((one.palette, one.width))
        for palette in PALETTES if figures else ():
            for width in WIDTHS:
                if (palette, width) not in views:
                    show(page, palette, width)
                    found.figures += [f"{path} ({palette}, {width} px): {p}" for p in colour_problems(page)]
                    views.add((palette, width))
        found.figure_views += len(views)
        show(page, "light", ZOOMED["width"])
        page.set_viewport_size(ZOOMED)
        found.zoom += [f"{path}: {p}" for p in zoom_problems(page)]
    return found
