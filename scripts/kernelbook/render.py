"""Captures -> Markdown/HTML fragments for a page, in its language. Pure.

Block directives, each alone on a line:
  [[kb:run SNIPPET]]        code (included from the file), output, kernels, provenance
  [[kb:figure NAME]]        a picture drawn from the captures (traffic, timeline, sweep)
  [[kb:notebook CHAPTER]]   links to the chapter's notebook (view, download, Colab)
  [[kb:environment]]        which device / torch / date every capture came from
  [[kb:sections]]           every page and section of this language with its stable URL
Inline directives are in claims.py. Everything a capture says is HTML-escaped here.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field, replace
from typing import Callable

from . import claims
from .book import Entry
from .kernels import short_name
from .labels import label
from .page_text import FENCE
from .records import Capture

BLOCK = re.compile(r"^\[\[kb:(run|figure|notebook|environment|sections)(?:[ \t]+([^\]\n]*?))?[ \t]*\]\][ \t]*$", re.MULTILINE)


LEFTOVER = re.compile(r"\[\[kb:[^\]\n]*\]\]")


@dataclass(frozen=True)
class Context:
    """What a page render needs besides its Markdown."""

    lang: str
    page: str  # docs-relative path, for messages
    book: dict[str, Entry]
    figure: Callable[[str, str], str] = lambda name, lang: ""  # name, lang -> HTML
    notebook: Callable[[str, str], str] = lambda chapter, lang: ""  # chapter, lang -> Markdown
    sections: Callable[[str], str] = lambda lang: ""  # lang -> the section index
    errors: list[str] = field(default_factory=list)
    said: set[str] = field(default_factory=set)  # notices already given in full on this page

    def with_figure(self, figure: Callable[[str, str], str]) -> "Context":
        return replace(self, figure=figure)

    def error(self, where: str, message: str) -> str:
        self.errors.append(f"{self.page}: {where}: {message}")
        return f'<span class="kb-error">{html.escape(where).replace("[", "&#91;")}</span>'


def render_page(markdown: str, ctx: Context) -> str:
    out, last = [], 0
    for code in FENCE.finditer(markdown):  # code blocks show directives as written
        out += [_render_prose(markdown[last:code.start()], ctx), code.group(0)]
        last = code.end()
    return "".join(out + [_render_prose(markdown[last:], ctx)])


def _render_prose(markdown: str, ctx: Context) -> str:
    markdown = BLOCK.sub(lambda m: _block(m.group(1), (m.group(2) or "").strip(), m.group(0), ctx), markdown)
    markdown = claims.INLINE.sub(lambda m: _inline(claims.parse(m.group(1), m.group(2), m.group(0)), ctx), markdown)
    for leftover in LEFTOVER.finditer(markdown):
        ctx.error(leftover.group(0), "not a directive kernelbook knows (block directives stand alone on their line)")
    return markdown


def _entry(snippet: str, where: str, ctx: Context) -> Entry | None:
    entry = ctx.book.get(snippet)
    if entry is None:
        ctx.error(where, f"no snippet {snippet!r} (expected snippets/{snippet}.py)")
        return None
    for problem in entry.problems:
        ctx.error(where, problem)
    return entry if entry.shown else None


def _block(kind: str, arg: str, where: str, ctx: Context) -> str:
    if kind == "run":
        entry = _entry(arg, where, ctx)
        return example(entry, ctx) if entry else ""
    if kind == "figure":
        return ctx.figure(arg, ctx.lang)
    if kind == "notebook":
        return ctx.notebook(arg, ctx.lang)
    if kind == "sections":
        return ctx.sections(ctx.lang)
    return environment(ctx.book, ctx.lang)


def _inline(claim: claims.Claim, ctx: Context) -> str:
    entry = _entry(claim.snippet, claim.text, ctx)
    if entry is None:
        return ""
    try:
        for capture in entry.fresh:  # a check must hold on every fresh capture
            claims.check(claim, capture)
        got = claims.value(claim, entry.shown)
    except claims.ClaimError as exc:
        return ctx.error(claim.text, str(exc).removeprefix(claim.text + ": "))
    except (TypeError, ValueError, KeyError) as exc:  # a claim that does not fit the data: name it, never crash
        return ctx.error(claim.text, f"cannot evaluate it ({type(exc).__name__}: {exc})")
    text = html.escape(claims.format_value(claim, got, ctx.lang))
    if claim.kind == "kernel":
        return f'<code class="kb-kernel" title="{html.escape(got)}">{text}</code>'
    return f'<span class="kb-value" title="{html.escape(entry.shown.device)}">{text}</span>'


# ---------------------------------------------------------------- one executed example


def example(entry: Entry, ctx: Context) -> str:
    lang = ctx.lang
    code = entry.snippet.path.read_text(encoding="utf-8")
    parts = [f'<div class="kb-example" id="kb-{_slug(entry.snippet.id)}" markdown>', "",
             fence(code, f'python title="snippets/{entry.snippet.id}.py"'), ""]
    for capture in entry.fresh:
        if capture.last_session is not None and capture.last_session.launches == 0:
            ctx.error(f"[[kb:run {entry.snippet.id}]]", f"the {capture.device} capture opened a profiler but recorded no kernel: did the code under the profiler run?")
    if entry.cuda is None:
        # The full explanation once per page; later examples say it again briefly.
        notice = label("cpu_again" if "cpu" in ctx.said else "cpu_body", lang)
        notice += " " + label("cuda_stale", lang) if entry.notes else ""
        ctx.said.add("cpu")
        parts += [f'!!! warning "{label("cpu_title", lang)}"', "", "    " + notice, ""]
    if entry.cuda and entry.cpu:
        for name, capture in (("CUDA", entry.cuda), ("CPU", entry.cpu)):
            parts += [f'=== "{name}"', "", _indent(captured(capture, lang)), ""]
    else:
        parts += [captured(entry.shown, lang), ""]
    parts += ["</div>", ""]
    return "\n".join(parts)


def captured(capture: Capture, lang: str) -> str:
    """Output, kernels and provenance of one capture."""
    out = capture.stdout.rstrip("\n")
    if out:
        parts = [f'<p class="kb-label">{label("output", lang)}</p>', "", fence(out, "text"), ""]
    else:  # said beside the output, not inside it: it is not something the program printed
        parts = [f'<p class="kb-label">{label("output", lang)} {label("no_output", lang)}</p>', ""]
    if capture.sessions:
        parts += [kernel_table(capture, lang), ""]
    parts.append(provenance(capture, lang))
    return "\n".join(parts)


def kernel_table(capture: Capture, lang: str) -> str:
    session = capture.sessions[-1]
    caption = f'{label("kernels", lang)} ({capture.device.upper()})'
    if len(capture.sessions) > 1:
        caption += " — " + label("session", lang, i=len(capture.sessions), n=len(capture.sessions))
    rows = []
    for k in session.kernels:
        name = html.escape(k.name)
        short = html.escape(short_name(k.name))
        cell = short if short == name else (
            f'<details><summary><code>{short}</code></summary><code class="kb-fullname" title="{html.escape(label("full_name", lang))}">{name}</code></details>'
        )
        if short == name:
            cell = f"<code>{short}</code>"
        rows.append(f"<tr><td>{cell}</td><td>{k.count}</td><td>{claims.format_seconds(k.time_us * 1e-6)}</td></tr>")
    rows.append(
        f'<tr class="kb-total"><td>{label("total", lang)}</td><td>{session.launches}</td>'
        f"<td>{claims.format_seconds(session.kernel_time_us * 1e-6)}</td></tr>"
    )
    head = f'<tr><th>{label("kernel", lang)}</th><th>{label("launches", lang)}</th><th>{label("time", lang)}</th></tr>'
    return (f'<div class="kb-kernels"><table><caption>{caption}</caption><thead>{head}</thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def provenance(capture: Capture, lang: str) -> str:
    env = capture.environment
    bits = [html.escape(env.device_name)]
    if env.compute_capability:
        bits.append(f"sm {html.escape(env.compute_capability)}")
    bits.append(f"torch {html.escape(env.torch)}")
    if env.cuda:
        bits.append(f"CUDA {html.escape(env.cuda)}")
    bits.append(html.escape(env.captured_at.replace("T", " ").replace("Z", " UTC")))
    bits.append(f'{label("wall", lang)} {claims.format_seconds(capture.wall_time_s)}')
    if env.git_commit:
        bits.append(f'{label("commit", lang)} <code>{html.escape(env.git_commit)}</code>')
    return f'<p class="kb-provenance" data-device="{capture.device}">{label("ran_on", lang)}: {" · ".join(bits)}</p>'


def environment(book: dict[str, Entry], lang: str) -> str:
    head = "".join(f"<th>{label(k, lang)}</th>" for k in ("env_snippet", "env_device", "env_torch", "env_when"))
    rows = []
    for entry in book.values():
        for capture in entry.fresh:
            env = capture.environment
            rows.append(
                f"<tr><td><code>{html.escape(entry.snippet.id)}</code></td><td>{html.escape(env.device_name)}</td>"
                f"<td>{html.escape(env.torch)}</td><td>{html.escape(env.captured_at.replace('T', ' ').replace('Z', ''))}</td></tr>"
            )
    n = len(book)
    summary = label("env_summary", lang, n=n, cuda=sum(1 for e in book.values() if e.cuda), cpu=sum(1 for e in book.values() if e.cpu))
    return f'<p class="kb-env-summary">{summary}</p>\n\n<div class="kb-environment"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>\n'


# ---------------------------------------------------------------- helpers


def fence(text: str, info: str) -> str:
    """A fenced block longer than any backtick run inside, so output can't close it."""
    longest = max((len(m.group(0)) for m in re.finditer(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}"


def _indent(text: str) -> str:
    return "\n".join(("    " + line) if line.strip() else "" for line in text.splitlines())


def _slug(snippet_id: str) -> str:
    return snippet_id.replace("/", "-").replace("_", "-")
