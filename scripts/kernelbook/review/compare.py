"""Two sides' captures compared, snippet × device: what a reviewer of a capture refresh needs to know.

Kernels, launches, total kernel time and environment come from ``changes.compare``;
here are added the snippet's ``results`` (values that moved by more than the threshold)
and the prose's claims (every claim in ``docs/`` whose value changed or whose check now
fails). Numbers: integers (counts, sizes) change when they differ at all; other numbers
(timings, rates) only when they move by more than the threshold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..common.changes import THRESHOLD, Change, Moved, Summary, compare as compare_summaries, summarize, within
from ..common import gpus
from ..common.records import Capture
from ..site.prose import claims
from .trees import Key, Side

_PREDICT = re.compile(r"\[\[kb:predict\s+([^\]]*?)\s*\]\]")


@dataclass(frozen=True)
class ClaimChange:
    """One claim of the prose, on one snippet × device: its value old → new, and why it fails now."""

    text: str  # as written, e.g. [[kb:launches ch01/eager_profile == 2]]
    pages: tuple[str, ...]  # where it is written, relative to the book
    old: Any  # None: the old capture gave no value
    new: Any
    old_shown: str | None  # as the page writes it
    new_shown: str | None
    fails: str | None  # the check's message when the new capture contradicts the claim
    failed_before: bool


@dataclass(frozen=True)
class SnippetDiff:
    snippet: str
    device: str
    status: str  # "added" | "removed" | "changed" | "unchanged"
    old: Summary | None
    new: Summary | None
    change: Change | None  # both sides present
    results: tuple[Moved, ...] = ()
    claims: tuple[ClaimChange, ...] = ()

    @property
    def differs(self) -> bool:
        return self.status != "unchanged"


@dataclass(frozen=True)
class Diff:
    old: str
    new: str
    threshold: float
    full: bool
    snippets: tuple[SnippetDiff, ...]

    @property
    def differs(self) -> bool:
        return any(s.differs for s in self.snippets)


# ---------------------------------------------------------------- the prose's claims


@dataclass(frozen=True)
class Written:
    claim: claims.Claim
    pages: tuple[str, ...]


def page_claims(root: Path | None) -> list[Written]:
    """Every claim (and prediction) in the book's Markdown under ``docs/``; one per text, with its pages."""
    found: dict[str, tuple[claims.Claim, list[str]]] = {}
    docs = root / "docs" if root else None
    for page in sorted(docs.rglob("*.md")) if docs and docs.is_dir() else []:
        try:
            markdown = page.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # the build names a page it cannot read; a diff is about captures
        for claim in _claims_in(markdown):
            found.setdefault(claim.text, (claim, []))[1].append(page.relative_to(root).as_posix())
    return [Written(claim, tuple(pages)) for claim, pages in found.values()]


def _claims_in(markdown: str) -> list[claims.Claim]:
    out = []
    for match in claims.pattern().finditer(markdown):
        out += _parsed(match.group(1), match.group(2), match.group(0))
    for match in _PREDICT.finditer(markdown):  # [[kb:predict SNIPPET KIND REST]] is the claim [[kb:KIND SNIPPET REST]]
        words = match.group(1).split()
        if len(words) >= 2:
            out += _parsed(words[1], " ".join([words[0]] + words[2:]), match.group(0))
    return out


def _parsed(kind: str, rest: str, text: str) -> list[claims.Claim]:
    try:
        return [claims.parse(kind, rest, text)]
    except claims.ClaimError:
        return []  # a claim that cannot be read fails the build, which says so; nothing to compare


def _claim_changes(written: list[Written], key: Key, old: Capture | None, new: Capture, threshold: float,
                   full: bool) -> tuple[ClaimChange, ...]:
    snippet, device = key
    changes = []
    for item in written:
        claim = item.claim
        if claim.snippet != snippet or not gpus.in_scope(claim.scope, new):
            continue
        old_value, old_shown, failed_before = _reading(claim, old)
        new_value, new_shown, _ = _reading(claim, new)
        try:
            claims.check(claim, new)
            fails = None
        except claims.ClaimError as exc:
            fails = str(exc)
        # news: a check that fails now and did not before, or a value that moved (a claim broken all along is the build's to report)
        moved = old is not None and not (same(old_value, new_value, threshold) if full or _numeric(old_value)
                                         else old_shown == new_shown)  # a kernel name as the page shows it: short
        if (fails and not failed_before) or moved:
            changes.append(ClaimChange(claim.text, item.pages, old_value, new_value, old_shown, new_shown, fails, failed_before))
    return tuple(changes)


def _numeric(value: Any) -> bool:
    return _number(value) or (isinstance(value, list) and all(_number(v) for v in value))


def _reading(claim: claims.Claim, capture: Capture | None) -> tuple[Any, str | None, bool]:
    """(value, as the English page writes it, whether its check fails) on ``capture``."""
    if capture is None:
        return None, None, False
    try:
        got = claims.value(claim, capture)
    except claims.ClaimError:
        return None, None, True
    try:
        claims.check(claim, capture)
        failed = False
    except claims.ClaimError:
        failed = True
    return got, claims.format_value(claim, got, "en"), failed


# ---------------------------------------------------------------- results


def flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    """``results`` as dotted paths, the way claims name them (``rows.0.eager_s``)."""
    if isinstance(data, dict):
        items = ((str(k), v) for k, v in data.items())
    elif isinstance(data, list):
        items = ((str(i), v) for i, v in enumerate(data))
    else:
        return {prefix or "results": data} if data is not None or prefix else {}
    out: dict[str, Any] = {}
    for key, value in items:
        out.update(flatten(value, f"{prefix}.{key}" if prefix else key))
    return out


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def same(old: Any, new: Any, threshold: float) -> bool:
    """No news: equal, or numbers within the threshold (integers, which count things, only when equal)."""
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(same(a, b, threshold) for a, b in zip(old, new))
    if _number(old) and _number(new):
        if isinstance(old, int) and isinstance(new, int):
            return old == new
        return within(float(old), float(new), threshold)
    return old == new


def results_moved(old: Any, new: Any, threshold: float) -> tuple[Moved, ...]:
    before, after = flatten(old), flatten(new)
    keys = list(after) + [k for k in before if k not in after]
    return tuple(Moved(k, before.get(k), after.get(k)) for k in keys
                 if k not in before or k not in after or not same(before[k], after[k], threshold))


# ---------------------------------------------------------------- the whole comparison


def compare(old: Side, new: Side, written: list[Written], threshold: float = THRESHOLD, full: bool = False) -> Diff:
    keys = sorted(set(old.captures) | set(new.captures))
    return Diff(old.label, new.label, threshold, full,
                tuple(_one(key, old.captures.get(key), new.captures.get(key), written, threshold, full) for key in keys))


def _one(key: Key, old: Capture | None, new: Capture | None, written: list[Written], threshold: float, full: bool) -> SnippetDiff:
    snippet, device = key
    if new is None:
        return SnippetDiff(snippet, device, "removed", summarize(old, full), None, None)
    summary = summarize(new, full)
    said = _claim_changes(written, key, old, new, threshold, full)
    if old is None:
        return SnippetDiff(snippet, device, "added", None, summary, None, claims=said)
    before = summarize(old, full)
    change = compare_summaries(before, summary, threshold)
    moved = results_moved(old.data, new.data, threshold)
    status = "changed" if change.changed or moved or said else "unchanged"
    return SnippetDiff(snippet, device, status, before, summary, change, moved, said)
