"""``[[kb:environment]]``: the device, torch and date behind every capture in the book."""

from __future__ import annotations

from collections.abc import Mapping

from ..book import Entry
from ..prose.escape import inert
from ..prose.labels import label
from .context import Context
from .registry import Directive, block


def render(d: Directive, ctx: Context) -> str:
    return environment(ctx.book, ctx.lang)


block("environment", notebook=render)(render)  # a plain HTML table: a notebook shows it as the page does


def environment(book: Mapping[str, Entry], lang: str) -> str:
    head = "".join(f"<th>{label(k, lang)}</th>" for k in ("env_snippet", "env_device", "env_torch", "env_when"))
    rows = []
    for entry in book.values():
        for capture in entry.fresh:
            env = capture.environment
            rows.append(
                f"<tr><td><code>{inert(entry.snippet.id)}</code></td><td>{inert(env.device_name)}</td>"
                f"<td>{inert(env.torch)}</td><td>{inert(env.captured_at.replace('T', ' ').replace('Z', ''))}</td></tr>"
            )
    n = len(book)
    summary = label("env_summary", lang, n=n, cuda=sum(1 for e in book.values() if e.cuda), cpu=sum(1 for e in book.values() if e.cpu))
    return f'<p class="kb-env-summary">{summary}</p>\n\n<div class="kb-environment"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>\n'
