"""``[[kb:data SNIPPET KEY LANG]]``: a string the snippet stored in ``results``, as a code block.

For text a snippet captured itself: the code ``torch.compile`` generated, a log. ``LANG``
is the block's language (``python``, ``cpp``, ``text``), or one per device:
``python@cuda,cpp@cpu`` (inductor writes Triton on a GPU and C++ on a CPU). CUDA and CPU
tabs when both captures are fresh, the CPU notice when only the CPU's is shown, as for
``[[kb:run]]``. A missing, null or non-string value fails the build, naming the key.
"""

from __future__ import annotations

from ...common.records import Capture
from ..prose import claims
from ..book import Entry
from ..prose.labels import label
from .context import Context
from .registry import Directive, block
from .run import cpu_notice, fence, per_device


def data_notebook(d: Directive, ctx: Context) -> str:
    """The shown capture's text as a code block, saying which device's capture it is."""
    found = _texts(d, ctx)
    if isinstance(found, str):
        return found
    entry, texts, by_device = found
    device = entry.shown.device
    emphasis = "**" if ctx.lang == "ja" else "*"  # Japanese has no italics (a fake slant): bold there
    return f'{emphasis}{label("nb_data_from", ctx.lang, device=device.upper())}{emphasis}\n\n' + fence(texts[id(entry.shown)], by_device[device])


@block("data", notebook=data_notebook)
def data(d: Directive, ctx: Context) -> str:
    found = _texts(d, ctx)
    if isinstance(found, str):
        return found
    entry, texts, by_device = found

    def block_of(capture: Capture) -> str:
        return fence(texts[id(capture)], by_device[capture.device])

    return "\n".join(cpu_notice(entry, ctx) + per_device(entry, block_of))


def _texts(d: Directive, ctx: Context) -> tuple[Entry, dict[int, str], dict[str, str]] | str:
    """The snippet's entry, the text of each fresh capture by device, and each device's code language;
    or what the page shows instead (an error marker, or nothing)."""
    words = d.arg.split()
    if len(words) != 3:
        return ctx.error(d.text, "write [[kb:data SNIPPET KEY LANG]] (LANG: python, cpp, text, ... or python@cuda,cpp@cpu)")
    snippet, key, langs = words
    try:
        by_device = languages(langs)
    except ValueError as exc:
        return ctx.error(d.text, str(exc))
    entry = ctx.entry(snippet, d.text)
    if entry is None:
        return ""
    texts: dict[int, str] = {}  # by capture (id): several GPUs' captures are all "cuda"
    for capture in entry.fresh:
        claim = claims.Claim("value", snippet, key, text=d.text)
        try:
            got = claims.lookup(capture.data, key, claim, capture)
        except claims.ClaimError as exc:
            return ctx.error(d.text, str(exc).removeprefix(d.text + ": "))
        if not isinstance(got, str):
            return ctx.error(d.text, f"{key} in the {capture.device} capture {claims.capture_file(capture)} is "
                             f"{type(got).__name__}, not text: [[kb:data]] shows a string the snippet stored")
        if capture.device not in by_device:
            return ctx.error(d.text, f"no code language for a {capture.device} capture: add @{capture.device} to {langs}")
        texts[id(capture)] = got
    return entry, texts, by_device


def languages(spec: str) -> dict[str, str]:
    """``python`` -> both devices; ``python@cuda,cpp@cpu`` -> one each."""
    if "@" not in spec:
        return {"cuda": spec, "cpu": spec}
    found = {}
    for part in spec.split(","):
        lang, _, device = part.partition("@")
        if not lang or device not in claims.DEVICES or device in found:
            raise ValueError(f"{spec!r}: write one language for both devices (python) or one per device (python@cuda,cpp@cpu)")
        found[device] = lang
    return found
