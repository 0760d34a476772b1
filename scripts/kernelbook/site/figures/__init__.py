"""Figures for the pages: inline SVG drawn from captures. Pure: standard library only.

``figure(name, lang, captures)`` draws the figure registered as ``name`` in one of
:data:`LANGS` from the captures the page shows (the caller picks CUDA when fresh, else
CPU; ``site/pages/figure_tabs.py`` draws it once per capture for a page's tabs), once per layout of :data:`LAYOUTS` (a desktop's, a phone's); ``data_key(name, captures)`` is a sha256 of exactly what that figure is drawn from,
plus the drawing code, so a build redraws a figure only when one of them changes.
Same input, byte-identical SVG.

The package: ``svg`` (elements, text, colours, styles, layouts and panels), ``axes`` (log–log plot areas,
ticks), ``strings`` (words shared by figures), ``base`` (the Figure record and the
registry), then one module per figure, each calling ``register(FigureKind(...))``:

* ``traffic``: the memory traffic of eager ``(a + b).relu()`` against the fused kernel.
* ``timeline``: one profiled call of each version on a shared time axis.
* ``sweep``: time per call and effective bandwidth against tensor length.
* ``copy_roof``: a plain copy's bandwidth against the bytes it moves, the cache marked.
* ``roofline``: FLOP/s against arithmetic intensity, the roofs and the points measured in one run.
* ``cos_chain``: kernels launched and time per call of ``x.cos()`` applied k times, eager and compiled.
* ``regions``: a graph break's compiled regions, graph calls and the Python between them.
* ``overhead``: time per call eager, compiled and replayed as a CUDA graph (GPU only).
* ``bandwidth``: achieved bandwidth against size, one line per version (chapter 4's
  ``add_relu_bandwidth`` and ``softmax_bandwidth``; GPU only).
* ``block_size_sweep``: a Triton kernel's bandwidth at each BLOCK_SIZE (GPU only).

Every figure is drawn under ``values.check``: an alt text in the page's language that says
what it shows, and marks titled with their values, which ``values.table`` lists as text.

A figure only one kind of device can measure is registered with ``device="cuda"`` (and a
``subject``): while the page shows another device's capture, ``placeholder`` draws a box
saying a GPU capture is needed instead of drawing the CPU's numbers.

Adding a figure is one new module beside these, imported below. ``gpu_specs`` reads the
vendor specifications the roofline draws (``docs/gpu_specs.yml``, the one module here that
needs yaml).

May import: ``prose.units`` (how numbers are written), ``common``. Never imports torch, the
capture half, mkdocs or a rendering package but yaml, nor the rest of the site.
"""

from __future__ import annotations

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.site.figures", "kernelbook.site.prose.units", "kernelbook.common")
NEVER_IMPORTS = ("torch", "triton", "kernelbook.capture", "mkdocs", "material", "nbformat", "nbconvert", "jinja2",
                 "markdown", "pymdownx", "mkdocs_jupyter", "mkdocs_static_i18n", "jupytext", "bs4", "mike",
                 "kernelbook.site.plugin", "kernelbook.site.config", "kernelbook.site.commands",
                 "kernelbook.site.build_report", "kernelbook.site.minify", "kernelbook.site.search_index",
                 "kernelbook.site.plain_tree")

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from ...common.records import Capture
from . import traffic, timeline, sweep, copy_roof, roofline, cos_chain, regions, overhead, bandwidth, block_size_sweep  # noqa: F401, I001 - each registers its figure(s): this order is FIGURES
from . import placeholder, values
from .base import KINDS, LANGS, Figure, FigureKind, MissingCapture, register
from .svg import LAYOUTS, Layout, standalone
from .traffic import TRAFFIC, round_trips, transfers

FIGURES = tuple(KINDS)

__all__ = ["FIGURES", "LANGS", "LAYOUTS", "TRAFFIC", "Figure", "FigureKind", "Layout", "MissingCapture", "data_key",
           "figure", "register", "round_trips", "standalone", "transfers"]


def figure(name: str, lang: str, captures: Mapping[str, Capture]) -> Figure:
    """Draw figure ``name`` in language ``lang`` from ``captures`` (snippet id -> capture).

    Raises ``MissingCapture`` (a ``KeyError``) naming the snippet when a needed capture is
    absent, and ``ValueError`` for an unknown figure or language or unusable data.
    """
    kind = _kind(name, lang)
    shown = placeholder.elsewhere(kind, captures)
    if shown:  # a figure only another device can measure: say so, draw nothing from this one
        inputs = placeholder.inputs(kind, shown)
        drawn = [placeholder.draw(kind, inputs, lang, layout) for layout in LAYOUTS]
    else:
        inputs = kind.inputs(captures)
        drawn = [kind.draw(inputs, lang, layout) for layout in LAYOUTS]
    first = drawn[0]
    for other, layout in zip(drawn[1:], LAYOUTS[1:]):
        if (other.alt, other.caption, other.data) != (first.alt, first.caption, first.data):
            raise ValueError(f"figure {name!r} describes itself differently in its {layout.name} layout; "
                             "alt, caption and data must not depend on the width")
        values.check(name, lang, other.alt, other.svg, placeholder=bool(shown))
    values.check(name, lang, first.alt, first.svg, placeholder=bool(shown))
    return dataclasses.replace(first, svgs=tuple(f.svg for f in drawn))


def data_key(name: str, captures: Mapping[str, Capture]) -> str:
    """sha256 (hex) of exactly the data figure ``name`` is drawn from, and of the drawing code.

    The same for both languages. Unrelated parts of a capture (stdout, wall time, other
    sessions' events) do not change it; a kernel's time or name does.
    """
    kind = _kind(name, "en")
    shown = placeholder.elsewhere(kind, captures)
    inputs = placeholder.inputs(kind, shown) if shown else kind.inputs(captures)
    payload = {"figure": name, "code": CODE_HASH, "inputs": inputs}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _kind(name: str, lang: str) -> FigureKind:
    if name not in KINDS:
        raise ValueError(f"unknown figure {name!r}; kernelbook draws {', '.join(KINDS)}")
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r} for figure {name!r}; expected one of {', '.join(LANGS)}")
    return KINDS[name]


def _code_hash() -> str:
    """The drawing code (this package, the number formats, the kernel-name shortener, the vendor specs' reader and
    formats the roofline labels with): part of every data key."""
    from ...common import kernel_names
    from . import gpu_specs
    from ..prose import units

    digest = hashlib.sha256()
    files = sorted(Path(__file__).parent.glob("*.py")) + [Path(m.__file__) for m in (units, kernel_names, gpu_specs)]
    for module_file in files:
        try:
            digest.update(module_file.name.encode() + b"\0" + module_file.read_bytes())
        except OSError:  # e.g. run from a zip: fall back to the version
            from ... import __version__

            digest.update(f"kernelbook {__version__}".encode())
    return digest.hexdigest()


CODE_HASH = _code_hash()
