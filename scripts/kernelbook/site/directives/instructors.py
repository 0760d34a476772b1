"""Directives for the instructors' page, read from every page of the language.

* ``[[kb:objectives]]``: each chapter's learning objectives, linked to the chapter.
* ``[[kb:device-checks]]``: every claim and question scoped to one device (``@cuda`` /
  ``@cpu``, ``@reference``, ``@smNN``), where it stands, and one row per GPU (or CPU) capture
  that checks it now: the claim × GPU table, each with its prediction (``predictions.py``) and
  its state: predicted, measured on a GPU (the value), or failed there.
* ``[[kb:capture-kit]]``: the capture kit's links (GitHub, Colab), from the plugin's ``repository``.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from ...common import gpus
from ..prose import claims, objectives, predictions
from ..prose.escape import html_text as _safe, inert
from ..prose.labels import label
from ..prose.text import PageText, headings, strip_code, title
from .context import Context
from .registry import REGISTRY, Directive, block
from .predict import claim_of


def objectives_index(d: Directive, ctx: Context) -> str:
    out = []
    for page in ctx.pages(ctx.lang):
        try:
            items = objectives.of_page(page.text)
        except ValueError as exc:
            ctx.error(d.text, f"{page.rel}: {exc}")
            continue
        if items:
            link = f'<a href="{html.escape(page.url)}">{_safe(title(page.text) or page.rel)}</a>'
            out.append(f'<p class="kb-objectives-page">{link}</p>\n\n' + "\n".join(f"- {item}" for item in items))
    return "\n\n".join(out) + "\n"


# The page's rendering serves a notebook too: HTML and Markdown lists whose links are
# ctx.pages' URLs, which are absolute in a notebook.
block("objectives", notebook=objectives_index)(objectives_index)


@dataclass(frozen=True)
class Scoped:
    """A device-scoped claim or question on a page."""

    page: PageText
    anchor: str | None  # the section it sits in
    section: str
    claim: claims.Claim


def scoped(page: PageText) -> list[Scoped]:
    """Every claim and question of ``page`` scoped to one device, in page order."""
    text = strip_code(page.text)
    found = []
    for m in claims.pattern().finditer(text):
        try:
            found.append((m.start(), claims.parse(m.group(1), m.group(2), m.group(0))))
        except claims.ClaimError:
            continue  # the page's own render reports it
    for m in REGISTRY.block_pattern().finditer(text):
        d = REGISTRY.read_block(m)
        if d.name == "predict":
            try:
                found.append((m.start(), claim_of(d)))
            except claims.ClaimError:
                continue
    marks = headings(page.text)
    out = []
    for offset, claim in sorted(found, key=lambda item: item[0]):
        if claim.scope is None:
            continue
        above = [h for h in marks if h.offset < offset]
        out.append(Scoped(page, above[-1].anchor if above else None, above[-1].text if above else "", claim))
    return out


def state(claim: claims.Claim, capture, lang: str) -> str:
    """Where a scoped claim stands on one fresh capture: measured (its value), or failed (what the capture says)."""
    env = capture.environment
    try:
        got = claims.check(claim, capture)
    except claims.ClaimError as exc:
        said = str(exc).removeprefix(claim.text + ": ")
        return label("dc_failed", lang, device=inert(env.device_name), why=_safe(said))
    except (TypeError, ValueError, KeyError) as exc:
        return label("dc_failed", lang, device=inert(env.device_name), why=_safe(f"{type(exc).__name__}: {exc}"))
    return label("dc_measured", lang, device=inert(env.device_name), value=inert(claims.format_value(claim, got, lang)),
                 torch=inert(env.torch), date=inert(env.captured_at[:10]))


def device_checks(d: Directive, ctx: Context) -> str:
    rows, checked, claimed = [], 0, 0
    for page in ctx.pages(ctx.lang):
        for item in scoped(page):
            entry = ctx.book.get(item.claim.snippet)
            scope = item.claim.scope
            # one row per GPU (or CPU) capture the claim is checked on: the claim × GPU table
            captures = [c for c in entry.fresh if gpus.in_scope(scope, c, entry.reference)] if entry is not None else []
            device = {"cpu": "CPU", "cuda": "CUDA"}.get(scope, scope)
            url = item.page.url + (f"#{item.anchor}" if item.anchor else "")
            where = f'<a href="{html.escape(url)}">{_safe(title(item.page.text) or item.page.rel)}: {_safe(item.section)}</a>'
            said = predictions.words(item.claim, ctx.lang)
            prediction = said.replace("[", "&#91;") if said is not None else label("dc_no_prediction", ctx.lang)  # inline HTML
            claimed, checked = claimed + 1, checked + bool(captures)  # the summary counts claims; the rows, claim × GPU
            for capture in captures or [None]:
                if capture is not None:
                    status = state(item.claim, capture, ctx.lang)
                    gpu = gpus.gpu_key(capture.environment.device_name, capture.environment.compute_capability) if capture.device == "cuda" else "cpu"
                else:
                    status = label("dc_predicted" if said is not None else "dc_unchecked", ctx.lang, device=device)
                    gpu = ""
                rows.append(f'<tr data-checked="{str(capture is not None).lower()}" data-gpu="{inert(gpu or "")}"><td>{where}</td>'
                            f"<td><code>{_safe(item.claim.text)}</code></td><td>{prediction}</td><td>{status}</td></tr>")
    if not rows:
        return f"<p>{label('dc_none', ctx.lang)}</p>\n"
    head = "".join(f"<th>{label(k, ctx.lang)}</th>" for k in ("dc_where", "dc_claim", "dc_prediction", "dc_status"))
    summary = label("dc_summary", ctx.lang, n=claimed, checked=checked)
    return (f'<p class="kb-dc-summary">{summary}</p>\n\n<div class="kb-device-checks"><table><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>\n')


block("device-checks", notebook=device_checks)(device_checks)  # as for the objectives: the same table, links from ctx.pages


def capture_kit(d: Directive, ctx: Context) -> str:
    """``[[kb:capture-kit]]``: the capture kit of the page's language, on GitHub and in Colab."""
    kit, colab = ctx.kit
    if not kit:
        return f"<p>{label('kit_none', ctx.lang)}</p>\n"
    return (f'<p class="kb-door-links"><a class="kb-kit" href="{html.escape(kit)}">{label("door_kit", ctx.lang)}</a> · '
            f'<a class="kb-kit-colab" href="{html.escape(colab)}" target="_blank" rel="noopener">{label("nb_colab", ctx.lang)}</a></p>\n')


block("capture-kit", notebook=capture_kit)(capture_kit)
