"""A figure's values as text: what a reader who cannot see the drawing reads instead. Pure.

Every mark a figure draws from data (a point, a bar, a transfer) carries its own ``<title>``
(its tooltip: "100 elements: 2.27 µs"). :func:`rows` reads them back out of the drawing, in
drawing order, each with the part of the figure it is in (the nearest heading drawn before
it, a ``kb-bold`` text of the drawing or of a ``g.kb-chart``) and its series (the legend's name for the class of the group it is
in: ``g.kb-eager`` is what the legend's ``g.kb-eager`` says). The page shows them as a table
under the figure, closed until opened (``caches/figures.page_html``). :func:`check` is the
rule every figure is drawn under: a name and a text alternative in its language, and a
drawing whose data can be read as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from xml.etree import ElementTree

NS = "{http://www.w3.org/2000/svg}"
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")  # kana and kanji
CONTAINERS = {"kb-chart", "kb-group", "kb-small"}  # groups that hold a part of a figure, not a label
MIN_ALT = 40  # characters: a sentence that says what the figure shows, not a label

WORDS = {
    "ja": {"summary": "図のデータ (表)", "part": "図の部分", "series": "系列", "value": "値"},
    "en": {"summary": "The figure's data (table)", "part": "Part", "series": "Series", "value": "Value"},
}


@dataclass(frozen=True)
class Row:
    part: str  # the heading the mark is drawn under ("(a) time per call"), or ""
    series: str  # the legend's name for its series ("torch.compile"), or ""
    value: str  # its title: "100 elements: 2.27 µs"


def _tag(element: ElementTree.Element) -> str:
    return element.tag.removeprefix(NS) if isinstance(element.tag, str) else ""


def _classes(element: ElementTree.Element) -> list[str]:
    return element.get("class", "").split()


def _text(element: ElementTree.Element) -> str:
    return " ".join("".join(element.itertext()).split())


def _own_title(element: ElementTree.Element) -> str | None:
    first = next(iter(element), None)
    return _text(first) if first is not None and _tag(first) == "title" else None


def rows(svg: str) -> list[Row]:
    """Every mark of ``svg`` that has a ``<title>`` of its own, as a row; the root's title (the alt text) is not one."""
    root = ElementTree.fromstring(svg)
    parents = {child: parent for parent in root.iter() for child in parent}
    titled = {el for el in root.iter() if el is not root and _own_title(el) is not None}

    def inside_mark(element: ElementTree.Element) -> bool:
        while element in parents:
            element = parents[element]
            if element in titled:
                return True
        return False

    legend: dict[str, str] = {}  # a series' class -> its name, from legend groups (a group with text, no titled marks)
    for group in root.iter(NS + "g"):
        names = [t for t in group.iter(NS + "text")]
        if names and not any(el in titled for el in group.iter()):
            for cls in _classes(group):
                if cls.startswith("kb-") and cls not in legend:
                    legend[cls] = _text(names[-1])

    def heading(element: ElementTree.Element) -> bool:  # a kb-bold text of the drawing or a chart, not a label inside one
        while element in parents:
            element = parents[element]
            if element is not root and (element in titled or set(_classes(element)) - CONTAINERS):
                return False
        return True

    out: list[Row] = []
    part = lane = ""
    for element in root.iter():
        classes = set(_classes(element))
        if _tag(element) == "text" and "kb-bold" in classes and classes <= {"kb-bold", "kb-big"} and heading(element):
            part, lane = _text(element), ""
        elif _tag(element) == "text" and "kb-lane-label" in classes:
            lane = _text(element)  # a timeline's lane ("CPU kernels"): the series of the bars in it
        elif element in titled and not inside_mark(element):
            series, up = "", element
            while up in parents and not series:
                series = next((legend[c] for c in _classes(up) if c in legend), "")
                up = parents[up]
            out.append(Row(part, series or lane, _own_title(element) or ""))
    return out


def check(name: str, lang: str, alt: str, svg: str, *, placeholder: bool) -> None:
    """Raise ValueError unless figure ``name`` is accessible: an alt text in ``lang`` that is a sentence, and
    (unless it is a placeholder, which draws no data) marks whose values can be read as text."""
    where = f"figure {name!r} ({lang})"
    if len(alt.strip()) < MIN_ALT:
        raise ValueError(f"{where}: its alt text {alt!r} is shorter than {MIN_ALT} characters; say what it shows: "
                         "its axes and the point it makes (guide/authors.md, 'Figures')")
    if (lang == "ja") != bool(JAPANESE.search(alt)):
        raise ValueError(f"{where}: its alt text is not in the page's language: {alt[:80]!r}")
    root = ElementTree.fromstring(svg)
    if root.get("role") != "img" or not root.get("aria-labelledby") or _own_title(root) != " ".join(alt.split()):
        raise ValueError(f"{where}: its <svg> is not named by its alt text (role=\"img\", aria-labelledby, a first <title>); "
                         "draw it with svg.document")
    if not placeholder and not rows(svg):
        raise ValueError(f"{where}: no mark of the drawing has a <title>, so its data cannot be read as text; give every "
                         "point, bar or arrow drawn from data a title (svg.title) saying its value (guide/authors.md)")


def table(svg: str, lang: str) -> str:
    """The rows of ``svg`` as a closed ``<details>`` holding a table in ``lang``; "" when it has none."""
    found = rows(svg)
    if not found:
        return ""
    words = WORDS[lang]
    columns = [c for c in ("part", "series", "value") if any(getattr(r, c) for r in found)]
    esc = lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")  # noqa: E731
    head = "".join(f'<th scope="col">{words[c]}</th>' for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{esc(getattr(r, c))}</td>" for c in columns) + "</tr>" for r in found)
    return (f'<details class="kb-figure-data"><summary>{words["summary"]}</summary>\n'
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></details>\n")
