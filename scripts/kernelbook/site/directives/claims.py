"""The inline claims: each claim kind of ``site/claims.py`` as an inline directive.

A claim's value comes from the capture the page shows; its check (``OP X``) must hold
for every fresh capture. A new kind is one ``@kind`` function in ``site/claims.py``.
"""

from __future__ import annotations

from .. import claims
from ..escape import inert
from .context import Context
from .registry import REGISTRY, Directive


def render(d: Directive, ctx: Context) -> str:
    try:
        claim = claims.parse(d.name, d.arg, d.text)
    except claims.ClaimError as exc:
        return ctx.error(d.text, str(exc).removeprefix(d.text + ": "))
    entry = ctx.entry(claim.snippet, claim.text)
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
    text = inert(claims.format_value(claim, got, ctx.lang))
    if claims.KINDS[claim.kind].code:
        return f'<code class="kb-kernel" title="{inert(got)}">{text}</code>'
    return f'<span class="kb-value" title="{inert(entry.shown.device)}">{text}</span>'


for _name in claims.KINDS:
    REGISTRY.inline(_name)(render)
