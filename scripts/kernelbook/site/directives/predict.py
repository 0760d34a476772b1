"""``[[kb:predict SNIPPET KIND [ARGS] [@cuda|@cpu] OP VALUE]]``: an exercise whose answer a run gives.

    [[kb:predict ch01/ex_sigmoid#0 launches == 3]]
        The question, Markdown, indented four spaces.
        ---
        Optionally, after a line that is exactly `---`, the explanation of the answer.

The question shows in a ``question`` admonition; inside it, a collapsed ``??? success``
answer (pymdownx.details: no JavaScript) holds the captured value, the explanation and the
capture's provenance. The expected answer ``OP VALUE`` is a claim of KIND
(``site/prose/claims.py``) and is checked like one: unscoped on every fresh capture, scoped
only on its device's (none: unchecked, and the answer says which run it waits for). A
failing check fails the build naming the page and the question.
"""

from __future__ import annotations

import dataclasses

from ..prose import claims, predictions
from ..prose.escape import inert
from ..prose.labels import label
from .claims import evaluate, needs_capture
from .context import Context
from .notebook_render import render_notebook
from .page_render import render_page
from .registry import Directive, block
from .run import indent, provenance_text


def claim_of(d: Directive) -> claims.Claim:
    """The claim a prediction makes: ``SNIPPET KIND REST`` read as ``[[kb:KIND SNIPPET REST]]``."""
    words = d.arg.split(None, 2)
    if len(words) < 2 or words[1] not in claims.KINDS or not claims.KINDS[words[1]].checks:
        checkable = ", ".join(k for k, spec in claims.KINDS.items() if spec.checks)
        raise claims.ClaimError(f"{d.text}: write [[kb:predict SNIPPET KIND [ARGS] [@cuda|@cpu] OP VALUE]], KIND one of {checkable}")
    claim = claims.parse(words[1], " ".join([words[0]] + words[2:]), d.text)
    if claim.op is None:
        raise claims.ClaimError(f"{d.text}: a prediction needs the expected answer, `OP VALUE` (e.g. `launches == 2`), "
                                "which the capture must bear out")
    return claim


def _asked(d: Directive, ctx: Context, render) -> tuple[str, str, claims.Reading, int] | str:
    """The question and its explanation, each rendered by ``render`` (their directives too), the
    claim's reading and the question's number; or what the page shows instead."""
    try:
        claim = claim_of(d)
    except claims.ClaimError as exc:
        return ctx.error(d.text, str(exc).removeprefix(d.text + ": "), line=d.line)
    question, explanation, after = split_body(d.body)
    if not question:
        return ctx.error(d.text, "the question goes below it, indented four spaces", line=d.line)
    reading = evaluate(claim, ctx)
    if reading is None:
        return ""
    n = ctx.next("question")
    at = d.body_line - 1 if d.body_line else 0  # the body's lines, as the page numbers them
    question = render(question, dataclasses.replace(ctx, first_line=at))
    if explanation:
        explanation = render(explanation, dataclasses.replace(ctx, first_line=at + after if at else 0))
    return question, explanation, reading, n


def predict_notebook(d: Directive, ctx: Context) -> str:
    """The question, then the answer in a closed ``<details>`` (Jupyter, Colab and GitHub open it on a click)."""
    found = _asked(d, ctx, render_notebook)
    if isinstance(found, str):
        return found
    question, explanation, reading, n = found
    answer = ["\n".join(line for line in _answer(reading, ctx.lang) if not line.startswith("{:"))]  # no attribute lists
    if explanation:
        answer += [explanation]
    if reading.capture is not None:
        answer.append(f"<sub>{provenance_text(reading.capture, ctx.lang)}</sub>")
    return "\n\n".join([f'**{label("question", ctx.lang, n=n)}**', question,
                         f'<details>\n<summary>{label("answer", ctx.lang)}</summary>', *answer, "</details>"]) + "\n"


@block("predict", notebook=predict_notebook, body=True)
def predict(d: Directive, ctx: Context) -> str:
    found = _asked(d, ctx, render_page)
    if isinstance(found, str):
        return found
    question, explanation, reading, n = found
    answer = _answer(reading, ctx.lang)
    if explanation:
        answer += ["", explanation]
    if reading.capture is not None:  # Markdown with attributes: raw HTML is not read as a block in here
        answer += ["", provenance_text(reading.capture, ctx.lang), f'{{: .kb-provenance data-device="{reading.capture.device}" }}']
    inner = [f'??? success "{label("answer", ctx.lang)}"', "", indent("\n".join(answer))]
    body = [question, ""] + inner
    return "\n".join([f'!!! question kb-predict "{label("question", ctx.lang, n=n)}"', "", indent("\n".join(body)), ""])


def split_body(body: str) -> tuple[str, str, int]:
    """The question, the explanation after a line that is exactly ``---`` (if any), and how many
    lines of the body come before the explanation's first."""
    lines = body.splitlines()
    if "---" in lines:
        cut = lines.index("---")
        rest = lines[cut + 1:]
        blank = next((i for i, line in enumerate(rest) if line.strip()), len(rest))
        return "\n".join(lines[:cut]).strip(), "\n".join(rest).strip(), cut + 1 + blank
    return body.strip(), "", 0


def _answer(reading: claims.Reading, lang: str) -> list[str]:
    """The answer's first lines: what the run gave (or which capture it waits for), its attribute list beside it."""
    claim = reading.claim
    if reading.capture is None:  # the expected answer, as the prediction it still is (predictions.py)
        device = label("device_cpu" if claim.scope == "cpu" else "device_gpu", lang)
        said = predictions.predicted_text(claim, lang)
        return [label("answer_predicted", lang, value=f"**{said}**") if said else f"**{needs_capture(claim.scope, lang)}**",
                "{: .kb-answer .kb-predicted }" if said else "{: .kb-answer .kb-needs-capture }", "",
                label("answer_waits", lang, device=device)]
    value = claims.format_value(claim, reading.value, lang)
    where = ""
    if claims.KINDS[claim.kind].sessions and len(reading.capture.sessions) > 1 and not claim.is_range:
        index = claim.session if claim.session is not None else -1
        where = label("answer_session", lang, i=range(len(reading.capture.sessions))[index] + 1, n=len(reading.capture.sessions))
    shown = f"<code>{inert(value)}</code>" if claims.KINDS[claim.kind].code or isinstance(reading.value, str) else f"<strong>{inert(value)}</strong>"
    return [label("answer_value", lang, value=shown) + inert(where), f'{{: .kb-answer data-device="{reading.capture.device}" }}']
