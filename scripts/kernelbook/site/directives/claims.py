"""The inline claims: each claim kind of ``site/prose/claims.py`` as an inline directive.

An unscoped claim's value comes from the capture the page shows, and its check
(``OP X``) must hold for every fresh capture. A scoped claim (``@cuda`` / ``@cpu``) is
checked and shown only from its device's fresh capture; without one the page says which
capture it needs and the build lists it as unchecked. A new kind is one ``@kind``
function in ``site/prose/claims.py``.
"""

from __future__ import annotations

from ..prose import claims, predictions
from ..prose.escape import inert
from ..prose.labels import label
from .context import Context
from .registry import REGISTRY, Directive


def read(d: Directive, ctx: Context) -> claims.Reading | str:
    """The inline claim parsed, checked and read; or what the page shows instead (an error marker, or nothing)."""
    try:
        claim = claims.parse(d.name, d.arg, d.text)
    except claims.ClaimError as exc:  # it does not parse: the page and the line
        return ctx.error(d.text, str(exc).removeprefix(d.text + ": "), line=d.line)
    reading = evaluate(claim, ctx)
    return "" if reading is None else reading


def render(d: Directive, ctx: Context) -> str:
    reading = read(d, ctx)
    return reading if isinstance(reading, str) else inline_value(reading, ctx)


def evaluate(claim: claims.Claim, ctx: Context) -> claims.Reading | None:
    """The claim checked on the captures it speaks for, and read; problems and unchecked claims reported."""
    entry = ctx.entry(claim.snippet, claim.text)
    if entry is None:
        return None
    try:
        reading = claims.read(claim, entry.fresh, entry.shown, entry.reference)
    except claims.ClaimError as exc:
        ctx.error(claim.text, str(exc).removeprefix(claim.text + ": "))
        return None
    except (TypeError, ValueError, KeyError) as exc:  # a claim that does not fit the data: name it, never crash
        ctx.error(claim.text, f"cannot evaluate it ({type(exc).__name__}: {exc})")
        return None
    if reading.unchecked_on:
        hole = "" if predictions.words(claim, ctx.lang) is not None else f"; {HOLE}"
        ctx.unchecked.append(f"{ctx.page}: {claim.text}: unchecked on {reading.unchecked_on} "
                             f"(no fresh {reading.unchecked_on} capture of {claim.snippet}){hole}")
    return reading


# the build's note on a scoped claim that predicts nothing (build_report counts these)
HOLE = "no comparison to show as a prediction: the page shows the bare placeholder"


def needs_capture(device: str, lang: str) -> str:
    """What a scoped claim shows while its device has no fresh capture: "GPU capture needed"."""
    return label("needs_cpu" if device == "cpu" else "needs_cuda", lang)


def inline_value(reading: claims.Reading, ctx: Context) -> str:
    """The claim's value as inline HTML: code for kernel names and strings; its prediction while its
    device has no fresh capture (``predictions.py``), or the placeholder when it makes none."""
    claim = reading.claim
    if reading.capture is None:
        predicted = predictions.predicted_html(claim, ctx.lang, ctx.gpu_door)
        if predicted is not None:
            return predicted
        return f'<span class="kb-value kb-needs-capture" title="{claim.scope}">{inert(needs_capture(claim.scope, ctx.lang))}</span>'
    got = reading.value
    text = inert(claims.format_value(claim, got, ctx.lang))  # what a capture says is never markup: escape.py
    device = inert(reading.capture.device)
    if claims.KINDS[claim.kind].code:
        return f'<code class="kb-kernel" title="{inert(got)}">{text}</code>'
    if isinstance(got, str) and claim.kind == "value":  # a string the snippet stored: code, as written
        return f'<code class="kb-value" title="{device}">{text}</code>'
    return f'<span class="kb-value" title="{device}">{text}</span>'


def render_notebook(d: Directive, ctx: Context) -> str:
    """The claim's value as a notebook shows it: code for kernel names and strings, the placeholder set apart
    (in italics; in Japanese, which has no italics, in 「」)."""
    reading = read(d, ctx)
    if isinstance(reading, str):
        return reading
    claim = reading.claim
    if reading.capture is None:
        predicted = predictions.predicted_text(claim, ctx.lang)
        if predicted is not None:
            return predicted
        needed = inert(needs_capture(claim.scope, ctx.lang))
        return f"「{needed}」" if ctx.lang == "ja" else f"*{needed}*"
    text = inert(claims.format_value(claim, reading.value, ctx.lang))
    code = claims.KINDS[claim.kind].code or (isinstance(reading.value, str) and claim.kind == "value")
    return f"<code>{text}</code>" if code else text


for _name in claims.KINDS:
    REGISTRY.inline(_name, notebook=render_notebook)(render)
