"""A comparison written out: plain text (a terminal), Markdown (a pull request body, a job summary) or JSON.

Text and Markdown say the same lines; they differ in how a string from a capture is
written. In Markdown each one is a code span (a fence longer than any backtick run in
it), so a kernel name, a device name or a value in ``results`` is never read as markup,
a link or a mention; on a terminal, control characters are shown escaped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from ..common.changes import ENVIRONMENT_LABELS, KernelCount, Moved, SessionChange, SessionSummary, Summary
from ..safety.errors import printable
from ..site.prose.units import by_key, format_seconds
from .compare import ClaimChange, Diff, SnippetDiff

MAX_RESULTS = 12  # results listed per snippet in text and Markdown; JSON has them all


@dataclass(frozen=True)
class Style:
    code: Callable[[str], str]  # a string from a capture or the prose
    bold: Callable[[str], str]


def code_span(text: str) -> str:
    """``text`` as one Markdown code span: on one line, fenced by more backticks than any run inside."""
    text = printable(text)
    longest = max((len(run) for run in _runs(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _runs(text: str) -> list[str]:
    runs, current = [], ""
    for ch in text:
        if ch == "`":
            current += ch
        elif current:
            runs.append(current)
            current = ""
    return runs + ([current] if current else [])


TEXT = Style(code=lambda s: f"`{printable(s)}`", bold=lambda s: s)
MARKDOWN = Style(code=code_span, bold=lambda s: f"**{s}**")


# ---------------------------------------------------------------- the lines both formats share


def plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def ratio(old: float, new: float) -> str:
    return f"{new / old:.2f}×" if old else "new"


def _time(us: float) -> str:
    return format_seconds(us * 1e-6)


def _names(kernels: tuple[KernelCount, ...], style: Style) -> str:
    return ", ".join(style.code(k.name) for k in kernels)


def kernel_change(s: SessionChange, style: Style) -> str:
    """``a`` → ``b``, or + ``b``, or − ``a``: the kernels one side has and the other has not."""
    if s.removed and s.added:
        return f"{_names(s.removed, style)} → {_names(s.added, style)}"
    if s.added:
        return f"+ {_names(s.added, style)}"
    if s.removed:
        return f"− {_names(s.removed, style)}"
    return ""


def session_line(s: SessionChange, threshold: float, style: Style) -> str:
    old, new = s.time_us
    time = f"time {ratio(old, new)}" if s.time_moved else f"time unchanged ({ratio(old, new)}, within ±{threshold:.0%})"
    parts = [kernel_change(s, style), f"{s.launches[0]} → {s.launches[1]} {plural(s.launches[1], 'launch', 'launches')}", time]
    return ", ".join(p for p in parts if p)


def _value(key: str, value: Any, style: Style) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return by_key(key.rsplit(".", 1)[-1], value)
    return style.code(json.dumps(value, ensure_ascii=False))


def result_line(m: Moved, style: Style) -> str:
    if m.old is None:
        return f"{style.code(m.what)} added: {_value(m.what, m.new, style)}"
    if m.new is None:
        return f"{style.code(m.what)} removed (was {_value(m.what, m.old, style)})"
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (m.old, m.new))
    times = f" ({ratio(float(m.old), float(m.new))})" if numbers and m.old else ""
    return f"{style.code(m.what)} {_value(m.what, m.old, style)} → {_value(m.what, m.new, style)}{times}"


def claim_line(c: ClaimChange, style: Style) -> str:
    where = ", ".join(c.pages)
    old = c.old_shown if c.old_shown is not None else "no value"
    new = c.new_shown if c.new_shown is not None else "no value"
    line = f"claim {style.code(c.text)} ({where}): {style.code(old)} → {style.code(new)}"
    if c.fails:
        line += f", {style.bold('now fails' if not c.failed_before else 'fails (as before)')}: {style.code(c.fails)}"
    return line


def _totals(summary: Summary) -> str:
    launches = sum(s.launches for s in summary.sessions)
    kernels = len({k.name for s in summary.sessions for k in s.kernels})
    time = sum(s.kernel_time_us for s in summary.sessions)
    n = len(summary.sessions)
    sessions = f"{n} profiling {plural(n, 'session', 'sessions')}" + (f", {launches} {plural(launches, 'launch', 'launches')} of "
                                                                      f"{kernels} {plural(kernels, 'kernel', 'kernels')}, time {_time(time)}" if n else "")
    return f"{sessions}; {summary.device_name}, torch {summary.torch}"


def snippet_lines(d: SnippetDiff, threshold: float, style: Style) -> tuple[str, list[str]]:
    """The headline and the detail lines of one snippet × device that differs."""
    name = f"{style.bold(d.snippet)} ({d.device})"
    if d.status == "removed":
        return f"{name}: removed (it had {_totals(d.old)})", []
    if d.status == "added":
        return f"{name}: added ({_totals(d.new)})", [claim_line(c, style) for c in d.claims]
    change = d.change
    details: list[str] = []
    one = change.session_count == (1, 1)
    old_n, new_n = change.session_count
    if one:
        head = session_line(change.sessions[0], threshold, style)
    elif old_n != new_n:
        head = f"{old_n} → {new_n} profiling sessions"
    else:
        changed = sum(1 for s in change.sessions if s.changed)
        head = (f"{changed} of {new_n} profiling sessions changed" if changed else
                f"kernels unchanged in {new_n} profiling {plural(new_n, 'session', 'sessions')}" if new_n else "results or claims changed (no profiling session)")
    for s in change.sessions:
        if s.counts:
            details.append(("" if one else f"session #{s.index} ") + "launch counts: "
                           + ", ".join(f"{style.code(m.what)} {m.old} → {m.new}" for m in s.counts))
        if not one and s.changed:
            details.append(f"session #{s.index}: {session_line(s, threshold, style)}")
    if change.environment:
        details.append("environment: " + "; ".join(f"{ENVIRONMENT_LABELS[m.what]} {style.code(str(m.old))} → {style.code(str(m.new))}"
                                                  for m in change.environment))
    if d.results:
        shown = [result_line(m, style) for m in d.results[:MAX_RESULTS]]
        more = f"; and {len(d.results) - MAX_RESULTS} more (--json lists them all)" if len(d.results) > MAX_RESULTS else ""
        details.append("results: " + "; ".join(shown) + more)
    details += [claim_line(c, style) for c in d.claims]
    return f"{name}: {head}", details


def counts(diff: Diff) -> str:
    by = {status: sum(1 for s in diff.snippets if s.status == status) for status in ("changed", "added", "removed", "unchanged")}
    total = len(diff.snippets)
    if not diff.differs:
        return f"no difference: {total} capture(s) compared, timings within ±{diff.threshold:.0%} count as unchanged"
    return (f"{total - by['unchanged']} of {total} capture(s) differ: {by['changed']} changed, {by['added']} added, "
            f"{by['removed']} removed; {by['unchanged']} unchanged (timings within ±{diff.threshold:.0%} count as unchanged)")


def text(diff: Diff) -> str:
    lines = [f"kernelbook diff: {printable(diff.old)} → {printable(diff.new)}" + (" (full kernel names)" if diff.full else "")]
    for d in diff.snippets:
        if d.differs:
            head, details = snippet_lines(d, diff.threshold, TEXT)
            lines.append(head)
            lines += [f"    {line}" for line in details]
    lines.append(counts(diff))
    return "\n".join(lines) + "\n"


def markdown(diff: Diff) -> str:
    lines = [f"### Captures: {code_span(diff.old)} → {code_span(diff.new)}", "", counts(diff) + ".", ""]
    for d in diff.snippets:
        if d.differs:
            head, details = snippet_lines(d, diff.threshold, MARKDOWN)
            lines.append(f"- {head}")
            lines += [f"  - {line}" for line in details]
    lines.append("")
    lines.append("<sub>`kernelbook diff --format markdown`: kernels by short name, launches and total kernel time per "
                 "profiling session, `results`, the prose's claims and the environment, per snippet × device.</sub>")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- JSON


def _summary(s: Summary | None) -> dict | None:
    if s is None:
        return None
    env = {name: getattr(s, name) for name in ("device_name", "compute_capability", "driver", "cuda", "torch", "triton", "captured_at", "git_commit")}
    return {**env, "sessions": [_session_summary(x) for x in s.sessions]}


def _session_summary(s: SessionSummary) -> dict:
    return {"launches": s.launches, "kernel_time_us": s.kernel_time_us, "kernels": [{"name": k.name, "count": k.count} for k in s.kernels]}


def _session(s: SessionChange) -> dict:
    return {"index": s.index, "changed": s.changed,
            "kernels_added": [{"name": k.name, "count": k.count} for k in s.added],
            "kernels_removed": [{"name": k.name, "count": k.count} for k in s.removed],
            "launch_counts": [{"kernel": m.what, "old": m.old, "new": m.new} for m in s.counts],
            "launches": {"old": s.launches[0], "new": s.launches[1]},
            "time_us": {"old": s.time_us[0], "new": s.time_us[1], "ratio": s.ratio, "moved": s.time_moved}}


def as_json(diff: Diff) -> str:
    out = {"old": diff.old, "new": diff.new, "threshold": diff.threshold, "full_names": diff.full, "differs": diff.differs,
           "snippets": []}
    for d in diff.snippets:
        item: dict[str, Any] = {"snippet": d.snippet, "device": d.device, "status": d.status,
                                "old": _summary(d.old), "new": _summary(d.new)}
        if d.change is not None:
            item["sessions"] = {"old": d.change.session_count[0], "new": d.change.session_count[1]}
            item["session_changes"] = [_session(s) for s in d.change.sessions]
            item["environment"] = [{"field": m.what, "old": m.old, "new": m.new} for m in d.change.environment]
        item["results"] = [{"key": m.what, "old": m.old, "new": m.new} for m in d.results]
        item["claims"] = [{"claim": c.text, "pages": list(c.pages), "old": c.old, "new": c.new, "fails": c.fails,
                           "failed_before": c.failed_before} for c in d.claims]
        out["snippets"].append(item)
    return json.dumps(out, ensure_ascii=False, indent=1) + "\n"
