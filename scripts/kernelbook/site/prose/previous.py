"""Beside each example, on demand: how its capture changed from the one it replaced. Pure.

A capture that replaced another records it in brief (``previous``, ``kernelbook.common.changes``):
where it ran, and per profiling session its kernels by short name, launch counts and total
kernel time. That record, not git history (a shallow CI clone has none), is what this
block compares with the capture shown: a ``<details>`` element, closed until a reader
opens it, no script. A capture with no ``previous`` (a first capture, or one committed
before captures recorded it) shows nothing. Everything from a capture goes through
``escape.inert``.
"""

from __future__ import annotations

from ...common.changes import ENVIRONMENT_LABELS, THRESHOLD, KernelCount, Moved, SessionChange, compare, summarize
from ...common.records import Capture
from .escape import inert
from .labels import label
from .units import format_ratio, format_seconds


def previous_block(capture: Capture, lang: str) -> str:
    """The closed ``<details>`` block, one line of HTML; "" when the capture records no previous one."""
    before = capture.previous
    if before is None:
        return ""
    change = compare(before, summarize(capture), THRESHOLD)
    pct = f"{THRESHOLD * 100:.0f}"
    when = before.captured_at.replace("T", " ").replace("Z", " UTC")
    items = [f'{label("previous_ran", lang)}: {inert(before.device_name)} · torch {inert(before.torch)} · {inert(when)}']
    items += [_environment(m, lang) for m in change.environment]
    if change.session_count[0] != change.session_count[1]:
        items.append(f'{label("previous_sessions", lang)}: {change.session_count[0]} → {change.session_count[1]}')
    several = max(change.session_count) > 1
    for session in change.sessions:
        if session.changed:
            items += _session(session, lang, pct, several)
    if not change.changed:
        items.append(label("previous_same", lang, pct=pct))
    body = "".join(f"<li>{item}</li>" for item in items)
    return f'<details class="kb-previous"><summary>{label("previous_title", lang)}</summary><ul>{body}</ul></details>'


def _environment(m: Moved, lang: str) -> str:
    name = label("env_device", lang) if m.what == "device_name" else ENVIRONMENT_LABELS[m.what]
    return f"{name}: {_code(m.old)} → {_code(m.new)}"


def _session(s: SessionChange, lang: str, pct: str, several: bool) -> list[str]:
    where = f' ({label("previous_session", lang, i=s.index + 1)})' if several else ""
    lines = []
    if s.added:
        lines.append(f'{label("previous_added", lang)}{where}: {_kernels(s.added)}')
    if s.removed:
        lines.append(f'{label("previous_removed", lang)}{where}: {_kernels(s.removed)}')
    if s.counts:
        lines.append(f'{label("previous_counts", lang)}{where}: ' + ", ".join(f"{_code(m.what)} {m.old} → {m.new}" for m in s.counts))
    if s.launches[0] != s.launches[1]:
        lines.append(f'{label("previous_launches", lang)}{where}: {s.launches[0]} → {s.launches[1]}')
    old, new = s.time_us
    times = f"{format_seconds(old * 1e-6)} → {format_seconds(new * 1e-6)}"
    if s.time_moved and old:
        lines.append(f'{label("previous_time", lang)}{where}: {times} ({format_ratio(new / old, lang)})')
    elif s.time_moved:
        lines.append(f'{label("previous_time", lang)}{where}: {times}')
    else:
        lines.append(f'{label("previous_time_same", lang, pct=pct)}{where}: {times}')
    return lines


def _kernels(kernels: tuple[KernelCount, ...]) -> str:
    return ", ".join(f"{_code(k.name)} ×{k.count}" for k in kernels)


def _code(value: object) -> str:
    return f"<code>{inert(value)}</code>"
