"""``[[kb:spec GPU FIELD]]``: a figure from the vendor specifications (``docs/gpu_specs.yml``), or one computed from them.

FIELD is one of the file's figures or a figure the build computes from it, never typed:

* ``memory``, ``l2``, ``sms``, ``fp32``, ``tf32``, ``bf16``: the file's figures ("4.8 TB/s", "67 TFLOP/s")
* ``ridge_fp32``, ``ridge_tf32``, ``ridge_bf16``: the ridge point, peak FLOP/s / memory bandwidth (FLOP/byte)
* ``instructions_per_element``: the instructions the GPU can issue per element in the time its
  memory moves one float32 in and one out (8 bytes). Each SM issues one instruction per FP32 lane
  per clock, and the FP32 peak counts an FMA as 2 FLOP, so that rate is FP32 peak / 2.
* ``crossover SNIPPET KEY``: ``instructions_per_element`` divided by the per-element instruction
  count a capture stored at KEY: how many such operations fit in before arithmetic, not memory,
  takes longer (an estimate from the spec and compiled code, not a measurement).

A null figure, an unknown GPU or field, or a bad file fails the build naming the file and field.
"""

from __future__ import annotations

from ..prose import claims
from ..figures import gpu_specs
from ..prose.escape import inert
from ..prose.units import format_number, format_specified_bandwidth
from .context import Context
from .registry import Directive, inline

FIGURES = {"memory": "memory_tb_per_s", "l2": "l2_mb", "sms": "sms", "fp32": "fp32_tflops", "tf32": "tf32_tflops",
           "bf16": "bf16_tflops"}
RIDGES = {"ridge_fp32": "fp32", "ridge_tf32": "tf32", "ridge_bf16": "bf16"}
BYTES_PER_ELEMENT = 8  # one float32 read, one written


def instructions_per_element(gpu: gpu_specs.Gpu) -> float | None:
    """Instructions issued per element while memory moves its 8 bytes: (FP32 peak / 2) × 8 / bandwidth."""
    peak, bandwidth = gpu.flop_per_s("fp32"), gpu.memory_bytes_per_s
    return None if peak is None or bandwidth is None else peak / 2 * BYTES_PER_ELEMENT / bandwidth


def spec_text(d: Directive, ctx: Context) -> tuple[str, gpu_specs.Gpu] | str:
    """The figure as text and its GPU; or an error marker."""
    words = d.arg.split()
    usage = ("write [[kb:spec GPU FIELD]] (FIELD: " + ", ".join([*FIGURES, *RIDGES, "instructions_per_element"])
             + ") or [[kb:spec GPU crossover SNIPPET KEY]]")
    if len(words) not in (2, 4) or (len(words) == 4) != (words[1] == "crossover"):
        return ctx.error(d.text, usage, line=d.line)
    try:
        specs = gpu_specs.book_specs()
        gpu = specs.get(words[0])
    except gpu_specs.SpecError as exc:
        return ctx.error(d.text, str(exc), line=d.line)
    field = words[1]
    where = f"{specs.source}: gpus.{gpu.id}"
    if field in FIGURES:
        value = getattr(gpu, FIGURES[field])
        if value is None:
            return ctx.error(d.text, f"{where}.{FIGURES[field]} is null: {dict(gpu.notes)[FIGURES[field]]}", line=d.line)
        return _figure(field, value), gpu
    if field in RIDGES:
        ridge = gpu.ridge(RIDGES[field])
        if ridge is None:
            return ctx.error(d.text, f"{where}: no ridge point: its memory bandwidth or {RIDGES[field]} peak is null", line=d.line)
        return format_number(ridge), gpu
    if field not in ("instructions_per_element", "crossover"):
        return ctx.error(d.text, f"unknown field {field!r}: {usage}", line=d.line)
    budget = instructions_per_element(gpu)
    if budget is None:
        return ctx.error(d.text, f"{where}: its memory bandwidth or fp32 peak is null", line=d.line)
    if field == "instructions_per_element":
        return format_number(budget), gpu
    per_element = _captured(words[2], words[3], d, ctx)
    return per_element if isinstance(per_element, str) else (format_number(budget / per_element), gpu)


def _figure(field: str, value: float) -> str:
    if field == "memory":
        return format_specified_bandwidth(value * 1e12)
    if field == "l2":
        return f"{value:g} MB"
    if field == "sms":
        return f"{value:g}"
    return f"{value:,g} TFLOP/s"


def _captured(snippet: str, key: str, d: Directive, ctx: Context) -> float | str:
    """A positive number the shown capture of ``snippet`` stored at ``key``; or an error marker."""
    entry = ctx.entry(snippet, d.text)
    if entry is None:
        return ""
    capture = entry.shown
    try:
        got = claims.lookup(capture.data, key, claims.Claim("value", snippet, key, text=d.text), capture)
    except claims.ClaimError as exc:
        return ctx.error(d.text, str(exc).removeprefix(d.text + ": "), line=d.line)
    if isinstance(got, bool) or not isinstance(got, (int, float)) or not got > 0:
        return ctx.error(d.text, f"{key} in {claims.capture_file(capture)} is {got!r}, not a positive number", line=d.line)
    return float(got)


def spec_notebook(d: Directive, ctx: Context) -> str:
    found = spec_text(d, ctx)
    return found if isinstance(found, str) else inert(found[0])


@inline("spec", notebook=spec_notebook)
def spec(d: Directive, ctx: Context) -> str:
    found = spec_text(d, ctx)
    if isinstance(found, str):
        return found
    text, gpu = found
    return f'<span class="kb-value kb-spec" title="{inert(gpu.name)}: {inert(gpu.vendor_url)}">{inert(text)}</span>'
