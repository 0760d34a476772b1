"""What a device-scoped claim says before its device's capture exists: its prediction, in words. Pure.

A claim such as ``[[kb:ratio ch01/size_sweep A / B @cuda >= 1.4]]`` states what the text
predicts (at least 1.4 times) and the build checks it on the first fresh GPU capture. Until
one exists the page shows the comparison itself, marked as a prediction not yet measured
("≥ 1.4× (predicted; not yet measured on a GPU)" / 「1.4 倍以上 (予想、GPU では未計測)」);
when the capture lands, the measured value takes its place with no edit to the page.

A scoped claim with no comparison (``[[kb:value X key @cuda]]``) predicts nothing: it is a
*hole*, shown as the bare placeholder, and the build lists it (:func:`holes`) so that its
sentence can be rewritten to stand without the number, or give a cited reference.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from . import claims
from .escape import inert
from .japanese import japanese
from .units import by_key, format_number

# where a reader learns how to capture on a GPU and how captures are merged: a section of this page
DOOR_PAGE, DOOR_ANCHOR = "instructors.md", "gpu-captures"
KIT = "kit/capture_kit.{lang}.ipynb"


def kit_links(repository: str, branch: str, lang: str) -> tuple[str, str]:
    """The capture kit of ``lang``: (its file on GitHub, its Colab link); ("", "") without a repository."""
    if not repository:
        return "", ""
    path = f"{repository}/blob/{branch}/" + KIT.format(lang=lang)
    return f"https://github.com/{path}", f"https://colab.research.google.com/github/{path}"


# the comparison before (en) or after (ja) the number: "≥ 1.4×" / "1.4 倍以上"
_EN = {">=": "≥ {x}", "<=": "≤ {x}", ">": "&gt; {x}", "<": "&lt; {x}", "==": "{x}", "!=": "≠ {x}"}  # inline HTML
_JA = {">=": "{x}{sp}以上", "<=": "{x}{sp}以下", ">": "{x}{sp}超", "<": "{x}{sp}未満", "==": "{x}", "!=": "{x}{sp}以外"}

NOTE = {"en": "predicted; not yet measured on a GPU", "ja": "予想、GPU では未計測"}
NOTE_CPU = {"en": "predicted; not yet measured on a CPU", "ja": "予想、CPU では未計測"}
WHY = {
    "en": "The text predicts this from the argument of this section; the build checks “{check}” against the first "
          "fresh {device} capture of {snippet} and shows the measured value here in its place. With a {device} you can "
          "check it yourself: run snippets/{snippet}.py (every snippet at once: the capture kit, linked from the "
          "instructors' page) and compare.",
    "ja": "この節の説明から導いた本文の予想です。ビルドは {snippet} の最初の新しい {device} でのキャプチャに照らして「{check}」を"
          "確かめ、ここには測った値が入ります。{device} があれば自分で確かめられます。snippets/{snippet}.py を実行して比べてください "
          "(すべてのスニペットをまとめて実行するキャプチャ用のキットへのリンクは、授業で使う方へのページにあります)。",
}
DEVICE = {"en": {"cpu": "CPU", "cuda": "GPU (CUDA)"}, "ja": {"cpu": "CPU", "cuda": "GPU (CUDA)"}}


def _number(claim: claims.Claim, text: str, lang: str) -> str:
    """The written VALUE as the kind writes its numbers ("33%" for a share, "2,048" for a count)."""
    try:
        number = float(text) if any(c in text.lower() for c in ".e") else int(text)
    except ValueError:
        return inert(text)
    if claim.kind == "ratio":
        digits = format_number(number) if isinstance(number, int) or float(number).is_integer() else text
        return f"{digits}×" if lang == "en" else f"{digits} 倍"
    if claim.kind == "value":
        return inert(by_key(claim.args, number))
    return inert(format_number(number))


def words(claim: claims.Claim, lang: str) -> str | None:
    """The claim's prediction as inline HTML without the "predicted" note, or None when it
    makes none (no comparison: a hole). A kernel claim's ``~ TEXT`` predicts a name."""
    if claim.kind == "kernel":
        needle = claim.args.lstrip("~").strip()
        return f"<code>…{inert(needle)}…</code>" if needle else None
    if claim.op is None or claim.is_range or str(claim.expected).startswith("#"):
        return None
    if claim.op == "~":
        return f"<code>{inert(str(claim.expected).strip())} …</code>"
    if claim.expected is None or "," in claim.expected:
        return None
    if claim.expected.lower() in ("true", "false"):
        return None
    x = _number(claim, claim.expected, lang)
    if lang != "ja":
        return _EN[claim.op].format(x=x)
    return _JA[claim.op].format(x=x, sp="" if japanese(x[-1]) else " ")  # "1.4 倍以上", "33% 未満"


def note(claim: claims.Claim, lang: str) -> str:
    return (NOTE_CPU if claim.scope == "cpu" else NOTE)[lang]


def why(claim: claims.Claim, lang: str) -> str:
    """The tooltip: why this is the prediction, and how a reader with the device checks it."""
    check = claim.text.removeprefix("[[kb:").removesuffix("]]")
    check = f"{claim.op} {claim.expected}" if claim.op else check
    device = DEVICE[lang]["cpu" if claim.scope == "cpu" else "cuda"]
    return WHY[lang].format(check=check, device=device, snippet=claim.snippet)


def predicted_html(claim: claims.Claim, lang: str, door: str = "") -> str | None:
    """The prediction as the page shows it: its words, then the note, which links to ``door``
    (where the page reaches the capture kit and how captures are merged); None for a hole."""
    said = words(claim, lang)
    if said is None:
        return None
    title = inert(why(claim, lang)).replace('"', "&quot;")
    marked = f"({inert(note(claim, lang))})"
    if door:
        marked = f'<a class="kb-predicted-note" href="{html.escape(door, quote=True)}">{marked}</a>'
    else:
        marked = f'<span class="kb-predicted-note">{marked}</span>'
    return f'<span class="kb-value kb-predicted" title="{title}">{said} {marked}</span>'


def predicted_text(claim: claims.Claim, lang: str) -> str | None:
    """The prediction as plain Markdown-safe text (a notebook): "≥ 1.4× (predicted; …)"."""
    said = words(claim, lang)
    return None if said is None else f"{said} ({inert(note(claim, lang))})"


# ---------------------------------------------------------------- holes: claims that predict nothing


@dataclass(frozen=True)
class Hole:
    line: int  # 1-based, in the page's Markdown as given
    claim: claims.Claim
    sentence: str  # the line (a sentence or a list item) the claim sits in, directives as written


def holes(markdown: str, first_line: int = 0) -> list[Hole]:
    """Every scoped claim of ``markdown`` (outside code) that makes no prediction: until its
    device's capture exists, the page shows the bare placeholder there."""
    from .text import strip_code

    text = strip_code(markdown)
    out = []
    for m in claims.pattern().finditer(text):
        try:
            claim = claims.parse(m.group(1), m.group(2), m.group(0))
        except claims.ClaimError:
            continue
        if claim.scope is None or words(claim, "en") is not None:
            continue
        line = text.count("\n", 0, m.start()) + 1
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        out.append(Hole(line + first_line, claim, text[start:None if end < 0 else end].strip()))
    return out

