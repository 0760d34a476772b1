"""Editions: which edition a build is, the one before it, and what changed between them.

An edition is a frozen build of the book for a course's term, published by mike under its
name (``2026.12``) from the git tag ``edition-2026.12``; ``main`` is published as ``latest``.
mike says which edition it builds through ``MIKE_DOCS_VERSION``; a
local build is no edition (``None``).

What changed since the previous edition (the newest tagged edition older than this one) is
read from git, never from a checkout: its pages at the tag, its captures at the tag
(``review.trees.at_ref``, as ``kernelbook diff`` reads them), compared with this tree's.
Per section: whether its prose changed, and which sentences; per captured number and claim
the pages show: old → new.
"""

from __future__ import annotations

import difflib
import html
import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ...safety.errors import KernelbookError
from ...review import compare, trees
from ..prose.escape import html_text as _safe
from ..prose.text import PageText, headings, strip_code, title

if TYPE_CHECKING:
    from ..settings import BookSettings

EDITION_ENV = "MIKE_DOCS_VERSION"  # mike sets it for each build it deploys
TAG_PREFIX = "edition-"
LATEST = "latest"
NAME = re.compile(r"\d{4}\.(0[1-9]|1[0-2])")  # 2026.12: a term's year and month, sorting as text
# Pages that are about the editions themselves, not the book's content.
SKIP = frozenset({"instructors.md", "changes.md"})


def edition_name(text: str) -> str:
    """``latest`` or ``YYYY.MM``; ValueError saying what is expected otherwise."""
    if text == LATEST or NAME.fullmatch(text):
        return text
    raise ValueError(f"{text!r} is not an edition: name one YYYY.MM (e.g. 2026.12, from the tag edition-2026.12) or {LATEST}")


def current(environ: dict[str, str] | None = None) -> str | None:
    """The edition this build publishes (``MIKE_DOCS_VERSION``, set by mike), or None for a local build."""
    value = (os.environ if environ is None else environ).get(EDITION_ENV, "").strip()
    try:
        return edition_name(value) if value else None
    except ValueError as exc:
        raise ValueError(f"{EDITION_ENV}: {exc}") from None


def tagged(root: Path) -> list[str]:
    """Every edition tagged in the repository at ``root``, oldest first; [] outside git."""
    try:
        done = subprocess.run(["git", "-C", str(root), "tag", "--list", TAG_PREFIX + "*"],
                              capture_output=True, text=True, timeout=60)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return []
    if done.returncode != 0:
        return []
    names = (line.strip().removeprefix(TAG_PREFIX) for line in done.stdout.splitlines())
    return sorted(n for n in names if NAME.fullmatch(n))


def previous(editions: list[str], edition: str | None) -> str | None:
    """The newest of ``editions`` older than ``edition`` (any of them for latest or a local build)."""
    older = [e for e in editions if edition in (None, LATEST) or e < edition]
    return older[-1] if older else None


# ---------------------------------------------------------------- sections and sentences


@dataclass(frozen=True)
class Section:
    page: str  # relative to the language's folder: "ch01/index.md"
    anchor: str | None  # None: the page's top, above its first section
    heading: str
    prose: str  # whitespace collapsed


def sections(rel: str, markdown: str) -> list[Section]:
    """The page's top and each ``##``/``###`` section with an anchor, with its prose."""
    marks = [h for h in headings(markdown) if h.level in (2, 3) and h.anchor]
    bounds = [0] + [h.offset for h in marks] + [len(markdown)]
    names = [(None, title(markdown) or rel)] + [(h.anchor, h.text) for h in marks]
    out = []
    for (anchor, heading), start, end in zip(names, bounds, bounds[1:]):
        body = markdown[start:end]
        if anchor is not None:
            body = body.split("\n", 1)[1] if "\n" in body else ""
        out.append(Section(rel, anchor, heading, " ".join(body.split())))
    return out


_SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])\s+(?=\S)")


def sentences(prose: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(prose) if s and s.strip()]


@dataclass(frozen=True)
class SectionChange:
    page: str
    anchor: str | None
    heading: str
    status: str  # "changed" | "unchanged" | "added" | "removed"
    before: tuple[str, ...] = ()  # sentences only the old edition has
    after: tuple[str, ...] = ()  # sentences only this one has


def section_changes(old_pages: dict[str, str], new_pages: dict[str, str]) -> list[SectionChange]:
    """Every section of either side, in this edition's page order, old ones that are gone after."""
    old = {(s.page, s.anchor): s for rel, text in old_pages.items() for s in sections(rel, text)}
    out, seen = [], set()
    for rel, text in new_pages.items():
        for s in sections(rel, text):
            seen.add((s.page, s.anchor))
            before = old.get((s.page, s.anchor))
            if before is None:
                out.append(SectionChange(s.page, s.anchor, s.heading, "added"))
            elif before.prose == s.prose:
                out.append(SectionChange(s.page, s.anchor, s.heading, "unchanged"))
            else:
                a, b = sentences(before.prose), sentences(s.prose)
                gone, new = [], []
                for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
                    if op != "equal":
                        gone += a[i1:i2]
                        new += b[j1:j2]
                out.append(SectionChange(s.page, s.anchor, s.heading, "changed", tuple(gone), tuple(new)))
    out += [SectionChange(s.page, s.anchor, s.heading, "removed") for key, s in old.items() if key not in seen]
    return out


# ---------------------------------------------------------------- numbers and claims


@dataclass(frozen=True)
class NumberChange:
    snippet: str
    device: str
    what: str  # a claim as written, or "results.<key>", or "launches"
    old: str
    new: str
    claim: bool  # a claim the prose makes (else a number the example's run shows)


def _shown(value: Any) -> str:
    return "—" if value is None else str(value)


def number_changes(diff: compare.Diff) -> list[NumberChange]:
    out = []
    for s in diff.snippets:
        if s.status == "unchanged":
            continue
        for c in s.claims:
            out.append(NumberChange(s.snippet, s.device, c.text, _shown(c.old_shown), _shown(c.new_shown), True))
        for m in s.results:
            out.append(NumberChange(s.snippet, s.device, f"results.{m.what}", _shown(m.old), _shown(m.new), False))
        if s.change is not None:
            for session in s.change.sessions:
                if session.launches[0] != session.launches[1]:
                    out.append(NumberChange(s.snippet, s.device, "launches", str(session.launches[0]),
                                            str(session.launches[1]), False))
        if s.status in ("added", "removed"):
            out.append(NumberChange(s.snippet, s.device, "capture", "—" if s.status == "added" else s.device,
                                    s.device if s.status == "added" else "—", False))
    return out


# ---------------------------------------------------------------- reading an edition from git


def pages_at(root: Path, ref: str, folder: str) -> dict[str, str]:
    """The Markdown pages under ``folder`` (``docs/en``) at ``ref``, by path relative to it."""
    files = trees.files_at(root, ref, folder, ".md")
    return {path.removeprefix(folder.rstrip("/") + "/"): data.decode("utf-8", "replace") for path, data in files.items()
            if path.removeprefix(folder.rstrip("/") + "/") not in SKIP}


def pages_now(folder: Path) -> dict[str, str]:
    found = sorted(folder.rglob("*.md"), key=lambda p: (p.parent != folder, p.as_posix()))
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8") for p in found
            if p.relative_to(folder).as_posix() not in SKIP}


@dataclass(frozen=True)
class EditionChanges:
    edition: str | None  # this build's edition (None: a local build)
    since: str | None  # the edition compared with (None: there is none before this one)
    sections: tuple[SectionChange, ...] = ()
    numbers: tuple[NumberChange, ...] = ()
    shown: dict[tuple[str, str, str], tuple[SectionChange, ...]] = field(default_factory=dict)  # where each number is shown


def changes(root: Path, docs_lang: Path, lang_folder: str, edition: str | None) -> EditionChanges:
    """What changed in one language since the previous edition. ``lang_folder``: ``docs/en`` as git names it."""
    since = previous(tagged(root), edition)
    if since is None:
        return EditionChanges(edition, None)
    ref = TAG_PREFIX + since
    old_side, new_side = trees.at_ref(root, ref), trees.working_tree(root)
    diff = compare.compare(old_side, new_side, compare.page_claims(root))
    now = pages_now(docs_lang)
    numbers = tuple(number_changes(diff))
    return EditionChanges(edition, since, tuple(section_changes(pages_at(root, ref, lang_folder), now)), numbers,
                          showing(now, numbers))


def published_base(settings: "BookSettings", edition: str | None, lang: str) -> str:
    """Where ``lang``'s pages are published (``site_url``, the edition's folder, the language's), or "" without site_url."""
    if not settings.site_url:
        return ""
    return settings.site_url.rstrip("/") + "/" + (f"{edition}/" if edition else "") + settings.url_prefix(lang)


def page(settings: "BookSettings", edition: str | None, lang: str, pages: list[PageText], report: Callable[[str], None]) -> str:
    """The changes page's HTML in ``lang``, linked as ``pages`` (this language's, from the page rendered) are."""
    folder = settings.pages(lang)
    try:
        found = changes(settings.root, folder, settings.rel(folder), edition)
    except KernelbookError as exc:
        report(f"the changes since the previous edition: {exc}")
        found = EditionChanges(edition, None)
    urls = {p.rel: p.url for p in pages}
    return render(found, lang, urls.get)


PDF_NAME = "kernelbook-{lang}.pdf"  # beside the edition's pages, at its root (site/pdf.py prints them)
PDF_LABELS = {
    "ja": {"pdfs": "版 {edition} の PDF です。表紙に版とコミットを記しています：",
           "no_pdfs": "このサイトは版として公開されたものではないので、PDF はありません。手元では `kernelbook pdf` で作れます。"},
    "en": {"pdfs": "The PDFs of edition {edition}; each names its edition and commit on its title page:",
           "no_pdfs": "This site is not a published edition, so it has no PDFs; `kernelbook pdf` makes them from a checkout."},
}
OWN_NAMES = {"ja": "日本語", "en": "English"}  # each language by its own name, on either language's page


def pdfs(settings: "BookSettings", edition: str | None, lang: str) -> str:
    """The edition's PDFs, linked from a page one folder below the language's home (``changes/``); a local build has none."""
    words = PDF_LABELS.get(lang, PDF_LABELS["en"])
    if not edition:
        said = html.escape(words["no_pdfs"]).replace("`kernelbook pdf`", "<code>kernelbook pdf</code>")
        return f'<p class="kb-edition-pdfs">{said}</p>\n'
    up = "../" * (settings.url_prefix(lang).count("/") + 1)
    items = "".join(f'<li><a href="{up}{PDF_NAME.format(lang=other)}" type="application/pdf">'
                    f'{html.escape(OWN_NAMES.get(other, other))} ({PDF_NAME.format(lang=other)})</a></li>' for other in settings.languages)
    return f'<p class="kb-edition-pdfs">{html.escape(words["pdfs"].format(edition=edition))}</p>\n<ul class="kb-edition-pdfs">{items}</ul>\n'


# ---------------------------------------------------------------- the page

LABELS = {
    "ja": {
        "first": "これは最初の版です。比べる前の版はありません。",
        "local": "このサイトは版として公開されたものではありません（ローカルのビルド）。",
        "intro": "版 {since} から版 {edition} までに変わったこと：節ごとに本文が変わったかどうか、変わった文、そしてページに示す実行結果の数値と主張の旧 → 新です。",
        "this": "この版",
        "sections": "節ごとの本文",
        "numbers": "実行結果の数値と主張",
        "section": "節", "status": "本文", "sentences": "変わった文",
        "changed": "変更あり", "unchanged": "変更なし", "added": "新しい節", "removed": "削除された節",
        "before": "前の版", "after": "この版",
        "snippet": "例", "what": "値", "old": "前の版", "new": "この版", "where": "示している節",
        "no_numbers": "ページに示す数値と主張は、前の版から変わっていません。",
        "summary": "{changed} 節の本文が変わり、{same} 節は変わっていません。",
    },
    "en": {
        "first": "This is the first edition: there is no earlier edition to compare with.",
        "local": "This site is not a published edition (a local build).",
        "intro": "What changed from edition {since} to edition {edition}: for each section, whether its prose changed and which sentences, and for every captured number and claim the pages show, old → new.",
        "this": "this edition",
        "sections": "Prose, section by section",
        "numbers": "Captured numbers and claims",
        "section": "Section", "status": "Prose", "sentences": "Sentences that changed",
        "changed": "changed", "unchanged": "unchanged", "added": "new section", "removed": "removed",
        "before": "before", "after": "now",
        "snippet": "Example", "what": "Value", "old": "previous edition", "new": "this edition", "where": "Shown in",
        "no_numbers": "No number or claim the pages show changed since the previous edition.",
        "summary": "{changed} section(s) changed in prose, {same} unchanged.",
    },
}


def _t(lang: str, key: str, **values: str) -> str:
    return html.escape(LABELS.get(lang, LABELS["en"])[key].format(**values))


def render(found: EditionChanges, lang: str, url_of: Callable[[str], str | None]) -> str:
    """HTML for the changes page. ``url_of(rel)``: how this page links to a page of its language."""
    if found.since is None:
        return f'<p class="kb-edition-first">{_t(lang, "first" if found.edition else "local")}</p>\n'
    edition = found.edition or _t(lang, "this")

    def link(page: str, anchor: str | None, text: str) -> str:
        url = url_of(page)
        if url is None:
            return _safe(text)
        return f'<a href="{html.escape(url + ("#" + anchor if anchor else ""))}">{_safe(text)}</a>'

    changed = [s for s in found.sections if s.status != "unchanged"]
    out = [f'<p class="kb-edition-intro">{_t(lang, "intro", since=found.since, edition=edition)}</p>',
           f'<h2 id="edition-prose">{_t(lang, "sections")}</h2>',
           f'<p>{_t(lang, "summary", changed=str(len(changed)), same=str(len(found.sections) - len(changed)))}</p>']
    rows = []
    for s in found.sections:
        where = link(s.page, s.anchor, s.heading) if s.status != "removed" else _safe(s.heading)
        said = "".join(f'<del>{_t(lang, "before")}: {_safe(x)}</del><br>' for x in s.before)
        said += "".join(f'<ins>{_t(lang, "after")}: {_safe(x)}</ins><br>' for x in s.after)
        rows.append(f'<tr data-status="{s.status}"><td>{where}</td><td>{_t(lang, s.status)}</td><td>{said}</td></tr>')
    head = "".join(f"<th>{_t(lang, k)}</th>" for k in ("section", "status", "sentences"))
    out.append(f'<div class="kb-edition-sections"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    out.append(f'<h2 id="edition-numbers">{_t(lang, "numbers")}</h2>')
    if not found.numbers:
        out.append(f'<p>{_t(lang, "no_numbers")}</p>')
    else:
        rows = []
        for n in found.numbers:
            shown_in = [link(s.page, s.anchor, s.heading) for s in found.shown.get((n.snippet, n.what, n.device), ())]
            rows.append(f'<tr><td><code>{_safe(n.snippet)}</code> ({_safe(n.device.upper() if n.device == "cpu" else "CUDA")})</td>'
                        f'<td><code>{_safe(n.what)}</code></td><td class="kb-old">{_safe(n.old)}</td>'
                        f'<td class="kb-new">{_safe(n.new)}</td><td>{", ".join(shown_in)}</td></tr>')
        head = "".join(f"<th>{_t(lang, k)}</th>" for k in ("snippet", "what", "old", "new", "where"))
        out.append(f'<div class="kb-edition-numbers"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    return "\n\n".join(out) + "\n"


def showing(pages: dict[str, str], numbers: tuple[NumberChange, ...]) -> dict[tuple[str, str, str], tuple[SectionChange, ...]]:
    """For each number, the sections of ``pages`` that show it: the claim as written, or the snippet's run."""
    found: dict[tuple[str, str, str], tuple[SectionChange, ...]] = {}
    for n in numbers:
        needle = n.what if n.claim else f"[[kb:run {n.snippet}]]"
        hits = []
        for rel, text in pages.items():
            plain = strip_code(text)
            marks = [h for h in headings(text) if h.level in (2, 3) and h.anchor]
            at = plain.find(needle)
            while at >= 0:
                above = [h for h in marks if h.offset < at]
                hits.append(SectionChange(rel, above[-1].anchor if above else None,
                                          above[-1].text if above else (title(text) or rel), "shown"))
                at = plain.find(needle, at + 1)
        found[(n.snippet, n.what, n.device)] = tuple(dict.fromkeys(hits))
    return found


# ---------------------------------------------------------------- the published page

_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S)


def mark_page(output: str, edition: str | None, root: str, lang_prefix: str) -> str:
    """The edition and its root (relative to the page) in a meta tag for kernelbook.js; a local build's page as it is.

    A page in another language's folder (``lang_prefix``: ``en/``) is where Material's
    selector would read versions.json from that folder (a 404): its ``extra.version`` is
    taken out of the page's config and kernelbook.js draws the selector from the edition's
    root instead.
    """
    if not edition:
        return output
    own_selector = bool(lang_prefix)
    meta = (f'<meta name="kb-edition" content="{html.escape(edition)}" data-root="{html.escape(root)}"'
            f' data-lang-prefix="{html.escape(lang_prefix)}"'
            f'{" data-selector" if own_selector else ""}>')
    head = output.find("</head>")
    if head >= 0:
        output = output[:head] + meta + output[head:]
    if own_selector:
        def drop(m: re.Match[str]) -> str:
            try:
                config = json.loads(m.group(2))
            except json.JSONDecodeError:
                return m.group(0)
            config.pop("version", None)
            return m.group(1) + json.dumps(config, ensure_ascii=False) + m.group(3)
        output = _CONFIG.sub(drop, output, count=1)
    return output
