"""Kernels of a trace recorded elsewhere (``kernelbook/common/recorded.py``), shown for what they are.

* ``[[kb:recorded NAME]]``: a box saying plainly whose trace it is (the project, the GPU, the
  licence, from ``source.json``: not this book's snippets), and its kernel table, drawn as the
  examples' tables are.
* ``[[kb:recorded-launches NAME [~ TEXT] OP N]]``: how many kernels it launched (those whose name
  contains TEXT), checked: ``OP N`` must hold or the build fails.
* ``[[kb:recorded-kernel NAME ~ TEXT]]``: the kernel whose name contains TEXT, as code; none: the build fails.

NAME is ``FOLDER/TRACE`` under the snippets folder's ``recorded/`` (``hta-a100/triton_example``),
read from the record ``TRACE.kernels.json``.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from ...common import recorded
from ...common.kernel_names import short_name
from ..prose.claims import OPS
from ..prose.escape import inert
from ..prose.labels import label
from .context import Context
from .registry import Directive, block, inline
from .run import kernels_html

_NAME = re.compile(r"[A-Za-z0-9_-]+/[A-Za-z0-9_.-]+")
_CHECK = re.compile(r'^(?:~\s*(?P<needle>"[^"]*"|\S+)\s*)?(?P<op>==|!=|>=|<=|>|<)\s*(?P<value>\S+)$')


def _record(name: str, d: Directive, ctx: Context) -> recorded.Record | str:
    """The record NAME names, or the page's error marker."""
    if not _NAME.fullmatch(name) or ".." in name:
        return ctx.error(d.text, f"names {name!r}: write FOLDER/TRACE, a record under {ctx.recorded_dir or 'snippets/recorded'}/", line=d.line)
    try:
        return recorded.load(Path(ctx.recorded_dir) / f"{name}.kernels.json")
    except recorded.RecordError as exc:
        return ctx.error(d.text, str(exc), line=d.line)


def box(d: Directive, ctx: Context) -> str:
    found = _record(d.arg.strip(), d, ctx)
    if isinstance(found, str):
        return found
    source, lang = found.source, ctx.lang
    fields = {"project": f'<a href="{html.escape(source.url)}">{inert(source.project)}</a>', "gpu": inert(source.gpu),
              "licence": inert(source.licence), "copyright": inert(source.copyright), "trace": f"<code>{inert(found.trace)}</code>"}
    caption = label("recorded_caption", lang, gpu=inert(source.gpu))
    title = label("recorded_title", lang, gpu=inert(source.gpu)).replace('"', "&quot;")
    return "\n".join([f'!!! abstract kb-recorded "{title}"', "", "    " + label("recorded_body", lang, **fields), "",
                      "    " + kernels_html(found.kernels, found.launches, caption, lang), ""])


def box_notebook(d: Directive, ctx: Context) -> str:
    found = _record(d.arg.strip(), d, ctx)
    if isinstance(found, str):
        return found
    source = found.source
    fields = {"project": f"[{inert(source.project)}]({source.url})", "gpu": inert(source.gpu), "licence": inert(source.licence),
              "copyright": inert(source.copyright), "trace": f"`{inert(found.trace)}`"}
    rows = [f'| {label("kernel", ctx.lang)} | {label("launches", ctx.lang)} |', "| --- | ---: |"]
    rows += [f"| <code>{inert(short_name(k.name))}</code> | {k.count} |" for k in found.kernels]
    return (f'**{label("recorded_title", ctx.lang, gpu=inert(source.gpu))}**\n\n{label("recorded_body", ctx.lang, **fields)}\n\n'
            + "\n".join(rows) + "\n")


block("recorded", notebook=box_notebook)(box)


def _launches(d: Directive, ctx: Context) -> str:
    name, _, rest = d.arg.strip().partition(" ")
    check = _CHECK.match(rest.strip())
    if check is None:
        return ctx.error(d.text, "write [[kb:recorded-launches NAME [~ TEXT] OP N]]: a check that can fail", line=d.line)
    found = _record(name, d, ctx)
    if isinstance(found, str):
        return found
    needle = (check.group("needle") or "").strip('"')
    got = sum(k.count for k in found.kernels if needle in k.name) if needle else found.launches
    try:
        expected = int(check.group("value"))
    except ValueError:
        return ctx.error(d.text, f"{check.group('value')!r} is not a whole number of launches", line=d.line)
    if not OPS[check.group("op")](got, expected):
        return ctx.error(d.text, f"the trace {found.trace} ({found.source.gpu}) launched {got}"
                         + (f" kernel(s) whose name contains {needle!r}" if needle else " kernel(s)"), line=d.line)
    return f'<span class="kb-value kb-recorded-value" title="{inert(found.source.gpu)}">{got:,}</span>'


def _kernel(d: Directive, ctx: Context) -> str:
    name, _, rest = d.arg.strip().partition(" ")
    needle = rest.strip().removeprefix("~").strip().strip('"')
    if not rest.strip().startswith("~") or not needle:
        return ctx.error(d.text, "write [[kb:recorded-kernel NAME ~ TEXT]], TEXT what the kernel's name contains", line=d.line)
    found = _record(name, d, ctx)
    if isinstance(found, str):
        return found
    names = [k.name for k in found.kernels if needle in k.name]
    if not names:
        launched = ", ".join(short_name(k.name) for k in found.kernels) or "none"
        return ctx.error(d.text, f"no kernel containing {needle!r} in the trace {found.trace} (launched: {launched})", line=d.line)
    return f'<code class="kb-kernel" title="{inert(names[0])}">{inert(short_name(names[0]))}</code>'


inline("recorded-launches", notebook=_launches)(_launches)  # the same HTML sits in a notebook's Markdown
inline("recorded-kernel", notebook=_kernel)(_kernel)
