"""``[[kb:run SNIPPET]]``: an executed example. Everything a capture says is made inert here (``escape.inert``).

The snippet's code (included from its file), its output, the kernels its last profiling
session launched, and where and when it ran; CUDA and CPU tabs when both captures are fresh,
a notice when only the CPU's is.
"""

from __future__ import annotations

import html
import re
from typing import Callable

from ...common.kernel_names import TRITON_RANGE, short_name
from ...common.records import Capture
from ...common.snippets import read_source
from ..book import Entry
from ...safety.errors import visible
from ..prose.escape import inert
from ..prose.labels import label
from ..prose.previous import previous_block
from ..prose.units import format_seconds
from .context import CodeCell, Context
from .registry import Directive, block


def run_notebook(d: Directive, ctx: Context) -> str:
    """A code cell (the snippet's source, the shown capture's output), then its kernels and provenance."""
    ctx.entry(d.arg, d.text)  # its problems reported, as on the page
    found = ctx.book.get(d.arg)
    if found is None:
        return ""
    capture = found.shown
    cell = ctx.code_cell(CodeCell(d.arg, read_source(found.snippet.path), visible(capture.stdout) if capture else ""))
    if capture is None:
        return cell
    parts = [kernel_markdown(capture, ctx.lang)] if capture.sessions else []
    return cell + "\n\n".join(parts + [f"<sub>{provenance_text(capture, ctx.lang)}</sub>"]) + "\n"


@block("run", notebook=run_notebook)
def run(d: Directive, ctx: Context) -> str:
    entry = ctx.entry(d.arg, d.text)
    return example(entry, ctx) if entry else ""


# ---------------------------------------------------------------- one executed example


def example(entry: Entry, ctx: Context) -> str:
    lang = ctx.lang
    code = read_source(entry.snippet.path)
    parts = [f'<div class="kb-example" id="kb-{_slug(entry.snippet.id)}" markdown>', "",
             fence(code, f'python title="snippets/{entry.snippet.id}.py"'), ""]
    for capture in entry.fresh:
        if capture.last_session is not None and capture.last_session.launches == 0:
            ctx.error(f"[[kb:run {entry.snippet.id}]]", f"the {capture.device} capture opened a profiler but recorded no kernel: did the code under the profiler run?")
    parts += cpu_notice(entry, ctx) + per_device(entry, lambda capture: captured(capture, lang), gpu_door(ctx)) + ["</div>", ""]
    return "\n".join(parts)


def gpu_door(ctx: Context) -> str:
    """The CUDA tab of an example no GPU has run yet: what will appear there, and the reader's
    way to a capture (the capture kit, its Colab link, how contributed captures are merged)."""
    lang, (kit, colab) = ctx.lang, ctx.kit
    links = []
    if kit:
        links.append(f'<a class="kb-kit" href="{html.escape(kit)}">{label("door_kit", lang)}</a>')
    if colab:
        links.append(f'<a class="kb-kit-colab" href="{html.escape(colab)}" target="_blank" rel="noopener">{label("nb_colab", lang)}</a>')
    if ctx.gpu_door:
        links.append(f'<a class="kb-door-how" href="{html.escape(ctx.gpu_door)}">{label("door_how", lang)}</a>')
    return (f'<section class="kb-gpu-door"><p class="kb-label">{label("door_title", lang)}</p>'
            f'<p>{label("door_body", lang)}</p><p>{label("door_kit_intro", lang)}</p>'
            f'<p class="kb-door-links">{" · ".join(links)}</p></section>')


def cpu_notice(entry: Entry, ctx: Context) -> list[str]:
    """The notice above a CPU capture shown where no CUDA one is fresh (each kind in full once per page).

    A capture whose Triton kernels ran in Triton's interpreter gets its own notice: they
    were interpreted, not compiled (see :func:`interpreted`).
    """
    if entry.cuda is not None or entry.cpu is None:
        return []
    target = compiled_for(entry.cpu)
    if target is not None:
        return compiled_notice(entry.cpu, target, ctx)
    kind = "cpu_interpreted" if interpreted(entry.cpu) else "cpu"
    notice = label(f"{kind}_again" if kind in ctx.said else f"{kind}_body", ctx.lang)
    notice += " " + label("cuda_stale", ctx.lang) if entry.notes else ""
    ctx.said.add(kind)
    return [f'!!! warning "{label("cpu_title", ctx.lang)}"', "", "    " + notice, ""]


# GPUs of a compute capability, as the compiled-for notice names them
GPUS = {"90": "H100/H200"}


def compiled_for(capture: Capture) -> str | None:
    """The GPU target a snippet compiled its kernels for without running them, or None.

    The snippet says so itself: its ``results`` hold ``"target": "cuda:NN"`` (what Triton
    compiled for). Its output is a compiler's, the same on any machine with that Triton.
    """
    data = capture.data
    target = data.get("target") if isinstance(data, dict) else None
    return target if isinstance(target, str) and target.startswith("cuda:") else None


def nvcc_version(capture: Capture) -> str | None:
    """The nvcc version a compile-only snippet compiled CUDA C++ with (``"compiler": "nvcc"``,
    ``"nvcc": "13.0.88"`` in its results), or None when Triton compiled its kernels."""
    data = capture.data
    if not isinstance(data, dict) or data.get("compiler") != "nvcc":
        return None
    version = data.get("nvcc")
    return version if isinstance(version, str) else "?"


def compiled_notice(capture: Capture, target: str, ctx: Context) -> list[str]:
    """The note above such a capture: compiled for sm_NN, not run (in full once per page)."""
    number = inert(target.removeprefix("cuda:"))  # from the capture: made inert like all it says
    nvcc = nvcc_version(capture)
    fields = {"arch": f"sm_{number}", "gpus": GPUS.get(number, "NVIDIA GPU"), "triton": inert(capture.environment.triton or "?"),
              "nvcc": inert(nvcc or "?")}
    kind = "compiled_nvcc" if nvcc else "compiled"  # who compiled: nvcc (CUDA C++) or Triton
    notice = label(f"{kind}_again" if kind in ctx.said else f"{kind}_body", ctx.lang, **fields)
    ctx.said.add(kind)
    return [f'!!! note "{label("compiled_title", ctx.lang, **fields)}"', "", "    " + notice, ""]


def interpreted(capture: Capture) -> bool:
    """A CPU capture whose Triton kernels Triton's interpreter ran instead of compiling them.

    Either the run left ``TRITON_INTERPRET`` switched on (the harness records it after
    the snippet ran), or a profiling session holds a ``triton: NAME`` launch range (a
    launch the CPU rule counts; see ``capture/kernels.py``).
    """
    if capture.device != "cpu":
        return False
    setting = capture.environment.settings.get("TRITON_INTERPRET")
    if setting is not None and str(setting).strip().lower() not in ("", "0", "false", "off", "no"):
        return True
    return any(e.kind == "op" and e.name.startswith(TRITON_RANGE) for s in capture.sessions for e in s.events)


def per_device(entry: Entry, render: Callable[[Capture], str], waiting: str = "") -> list[str]:
    """What ``render`` makes of each fresh capture: a tab each when there are several, else the one shown.

    ``waiting``: what a CUDA tab shows while no GPU capture of the snippet is fresh, after
    the CPU's tab (the CPU's run stays what the reader sees first)."""
    tabs: list[tuple[str, Capture | None]] = list(device_tabs(entry))
    if waiting and entry.cpu is not None and not any(c.device == "cuda" for _, c in tabs):
        tabs.append(("CUDA", None))
    if len(tabs) > 1:
        parts = []
        for name, capture in tabs:
            parts += [f'=== "{name}"', "", indent(in_tab(render(capture)) if capture is not None else waiting), ""]
        return parts
    return [render(entry.shown), ""]


_LABEL = re.compile(r'^<p class="kb-label">(.*)</p>$', re.MULTILINE)


def in_tab(markdown: str) -> str:
    """A capture's Markdown as a tab holds it: indented, a raw ``<p>`` is not a block to Python-Markdown
    but text in a paragraph (``<p><p class="kb-label">``, which a browser splits round an empty one),
    so each label is a paragraph with its class in an attribute list instead."""
    return _LABEL.sub(lambda m: m.group(1) + "\n{: .kb-label }", markdown)


# The blocks of a capture that stay raw HTML in a tab (no Markdown form carries their element)
_WRAPPED = re.compile(r'<p>(<(p|section|details) class="kb-(?:provenance|kernels|previous|gpu-door)"[^>]*>(?:(?!</\2>).)*</\2>)</p>', re.S)


def unwrapped(html: str) -> str:
    """A converted page without the ``<p>`` Python-Markdown puts round each raw block of a tab
    (a provenance line, a kernel panel, the changes since the previous capture, the GPU door):
    a browser closes that ``<p>`` at the block and makes an empty paragraph of its ``</p>``.
    None of these blocks holds another of its own element: its first end tag is its own, and only a
    wrapper closed right after it is taken away."""
    return _WRAPPED.sub(r"\1", html)


def device_tabs(entry: Entry) -> list[tuple[str, Capture]]:
    """The tabs of an example: the reference GPU, the other GPUs, then the CPU rehearsal.

    With one GPU its tab is "CUDA"; with several each is named after its GPU key ("A100 80GB",
    "T4"). Material's linked tabs (``content.tabs.link``) switch every tab of the same name on
    the page together, so a reader's choice of GPU (or CPU) holds across the page.
    """
    many = len(entry.gpus) > 1
    tabs = [(gpu_label(key) if many else "CUDA", c) for key, c in entry.gpus] or ([("CUDA", entry.cuda)] if entry.cuda else [])
    return tabs + ([("CPU", entry.cpu)] if entry.cpu else [])


def gpu_label(key: str) -> str:
    """``a100_80gb`` -> ``A100 80GB``: a GPU's tab."""
    return key.upper().replace("_", " ")


def captured(capture: Capture, lang: str) -> str:
    """Output, kernels and provenance of one capture."""
    out = visible(capture.stdout).rstrip("\n")  # shown in a fence as it was printed, its control characters as escapes
    if out:
        parts = [f'<p class="kb-label">{label("output", lang)}</p>', "", fence(out, "text"), ""]
    else:  # said beside the output, not inside it: it is not something the program printed
        parts = [f'<p class="kb-label">{label("output", lang)} {label("no_output", lang)}</p>', ""]
    if capture.sessions:
        parts += [kernel_table(capture, lang), ""]
    parts.append(provenance(capture, lang))
    changed = previous_block(capture, lang)  # how it changed from the capture it replaced, when it recorded one
    if changed:
        parts += ["", changed]
    return "\n".join(parts)


def kernel_table(capture: Capture, lang: str) -> str:
    session = capture.sessions[-1]
    caption = f'{label("kernels", lang)} ({capture.device.upper()})'
    if len(capture.sessions) > 1:
        caption += " — " + label("session", lang, i=len(capture.sessions), n=len(capture.sessions))
    return kernels_html(session.kernels, session.launches, caption, lang)


def kernels_html(kernels, launches: int, caption: str, lang: str) -> str:
    """A kernel panel: each kernel's short name (the full one a click away), launches and time, and the total."""
    rows = []
    for k in kernels:
        name = inert(k.name)
        short = inert(short_name(k.name))
        cell = short if short == name else (
            f'<details><summary><code>{short}</code></summary><code class="kb-fullname" title="{html.escape(label("full_name", lang))}">{name}</code></details>'
        )
        if short == name:
            cell = f"<code>{short}</code>"
        rows.append(f"<tr><td>{cell}</td><td>{k.count}</td><td>{format_seconds(k.time_us * 1e-6)}</td></tr>")
    rows.append(
        f'<tr class="kb-total"><td>{label("total", lang)}</td><td>{launches}</td>'
        f"<td>{format_seconds(sum(k.time_us for k in kernels) * 1e-6)}</td></tr>"
    )
    head = f'<tr><th>{label("kernel", lang)}</th><th>{label("launches", lang)}</th><th>{label("time", lang)}</th></tr>'
    # a <section>, not a <div>: inside a tab (indented) md_in_html would take its </div> for the example's own
    return (f'<section class="kb-kernels"><table><caption>{caption}</caption><thead>{head}</thead>'
            f'<tbody>{"".join(rows)}</tbody></table></section>')


def kernel_markdown(capture: Capture, lang: str) -> str:
    """The kernel panel as a Markdown table, for a notebook: short names, the full one as each name's title."""
    session = capture.sessions[-1]
    caption = f'{label("kernels", lang)} ({capture.device.upper()})'
    if len(capture.sessions) > 1:
        caption += " — " + label("session", lang, i=len(capture.sessions), n=len(capture.sessions))
    rows = [f'| {label("kernel", lang)} | {label("launches", lang)} | {label("time", lang)} |', "| --- | ---: | ---: |"]
    for k in session.kernels:
        name, short = _cell(k.name), _cell(short_name(k.name))
        rows.append(f'| <code title="{name}">{short}</code> | {k.count} | {format_seconds(k.time_us * 1e-6)} |')
    rows.append(f'| **{label("total", lang)}** | **{session.launches}** | **{format_seconds(session.kernel_time_us * 1e-6)}** |')
    return f"**{caption}**\n\n" + "\n".join(rows)


def _cell(text: str) -> str:
    return inert(text).replace("|", "&#124;")


def provenance(capture: Capture, lang: str) -> str:
    """Where and when a capture ran, as an HTML paragraph."""
    return f'<p class="kb-provenance" data-device="{capture.device}">{provenance_text(capture, lang)}</p>'


def provenance_text(capture: Capture, lang: str) -> str:
    """The provenance line's text: escaped for HTML and for Markdown, so it can sit in either."""
    env = capture.environment
    bits = [inert(env.device_name)]
    if env.compute_capability:
        bits.append(f"sm {inert(env.compute_capability)}")
    bits.append(f"torch {inert(env.torch)}")
    nvcc = nvcc_version(capture) if compiled_for(capture) else None
    if nvcc:  # the compiler's version decides what it produced
        bits.append(f"nvcc {inert(nvcc)}")
    elif compiled_for(capture) and env.triton:
        bits.append(f"triton {inert(env.triton)}")
    if env.cuda:
        bits.append(f"CUDA {inert(env.cuda)}")
    bits.append(inert(env.captured_at.replace("T", " ").replace("Z", " UTC")))
    bits.append(f'{label("wall", lang)} {format_seconds(capture.wall_time_s)}')
    together = env.settings.get("snippets_at_a_time")
    if isinstance(together, int) and together > 1:
        bits.append(label("side_by_side", lang, n=together))
    if env.git_commit:
        bits.append(f'{label("commit", lang)} <code>{inert(env.git_commit)}</code>')
    return f'{label("ran_on", lang)}: {" · ".join(bits)}'



# ---------------------------------------------------------------- helpers


def fence(text: str, info: str) -> str:
    """A fenced block longer than any backtick run inside, so output can't close it."""
    longest = max((len(m.group(0)) for m in re.finditer(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}"


def indent(text: str) -> str:
    return "\n".join(("    " + line) if line.strip() else "" for line in text.splitlines())


def _slug(snippet_id: str) -> str:
    return snippet_id.replace("/", "-").replace("_", "-")
