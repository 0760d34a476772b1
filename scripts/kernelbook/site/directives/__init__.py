"""Page directives: ``[[kb:NAME ...]]`` in a page's Markdown, rendered from the captures. Pure.

Each directive is one small function registered by name (``registry.py``); this package
imports the modules that register them, then renders pages:

* ``run``: ``[[kb:run SNIPPET]]``, an executed example (code, output, kernels, provenance)
* ``environment``: ``[[kb:environment]]``, where every capture of the book ran
* ``services``: ``[[kb:figure NAME]]``, ``[[kb:notebook CHAPTER]]``, ``[[kb:sections]]``,
  ``[[kb:edition-changes]]``, drawn by the site (the plugin hands the functions in through the Context)
* ``claims``: the inline claims, one per kind in ``site/prose/claims.py``
* ``data``: ``[[kb:data SNIPPET KEY LANG]]``, a string the snippet stored, as a code block
* ``predict``: ``[[kb:predict SNIPPET KIND ... OP VALUE]]`` and its indented question, an
  exercise whose answer (a claim) the run gives
* ``instructors``: ``[[kb:objectives]]`` and ``[[kb:device-checks]]``, read from every page
* ``glossary``: ``[[kb:term ID]]``, a link to a term's entry, and ``[[kb:glossary]]``, the glossary page
* ``spec``: ``[[kb:spec GPU FIELD]]``, a vendor specification from ``docs/gpu_specs.yml`` or a figure computed from it

Each is registered with its notebook rendering too; ``notebook_render.render_notebook``
makes a page a chapter notebook's Markdown with them.

Code (fenced, indented, inline) shows directives as written; anything else left that looks
like a directive is an error naming the page, the line and the text (``scan.py``).

May import: ``prose`` (claims, labels, escape, page text), ``figures``, ``glossary.terms``,
``notebooks.markdown``, ``book``, ``common``, ``safety``. Never imports torch, the capture half,
mkdocs or any rendering package (what a directive needs of the site comes through its Context),
nor the MkDocs glue.
"""

from __future__ import annotations

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.site.directives", "kernelbook.site.prose", "kernelbook.site.figures",
              "kernelbook.site.glossary.terms", "kernelbook.site.notebooks.markdown", "kernelbook.site.book",
              "kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("torch", "triton", "kernelbook.capture", "mkdocs", "yaml", "material", "nbformat", "nbconvert",
                 "jinja2", "markdown", "pymdownx", "mkdocs_jupyter", "mkdocs_static_i18n", "jupytext", "bs4", "mike",
                 "kernelbook.site.plugin", "kernelbook.site.config", "kernelbook.site.commands",
                 "kernelbook.site.build_report", "kernelbook.site.minify", "kernelbook.site.search_index",
                 "kernelbook.site.plain_tree")

from . import claims, data, environment, glossary, instructors, predict, recorded, run, services, spec  # noqa: F401 - each registers its directives
from .context import CELL, CodeCell, Context
from .notebook_render import render_notebook
from .page_render import render_page
from .registry import REGISTRY, Directive, Registry, block, inline
from .run import fence

__all__ = ["CELL", "REGISTRY", "CodeCell", "Context", "Directive", "Registry", "block", "fence", "inline", "render_notebook",
           "render_page"]
