"""RENDER: pages, claims, figures and notebooks from the committed captures.

Needs mkdocs (and, for notebook pages, mkdocs-jupyter); never torch, never the capture
half: it reads captures only through ``kernelbook.common.records``.

Here, the MkDocs glue and what every room of the site reads: ``plugin`` (the MkDocs plugin,
entry point ``kernelbook``) and its options (``config``), ``settings`` (the book's settings as
plain values), ``book`` (which capture each page shows), ``commands`` (``kernelbook build`` and
``notebooks``), ``build_report``, ``minify`` (what the site serves), ``search_index`` (one search
index per language) and ``plain_tree`` (``kernelbook render``). The rooms:

* ``prose``: how pages are read and written, and the numbers they claim (every room reads it);
* ``pages``: one page's Markdown rendered, and the two languages' pages checked against each other;
* ``directives``: the ``[[kb:...]]`` directives, one small function each in a registry;
* ``figures``: the SVG figures, one module each, and the vendor specifications they draw;
* ``notebooks``: a chapter as a notebook, and that notebook as a page;
* ``glossary``: the terms and their links; ``editions``: editions and publishing them;
* ``caches``: what a build keeps on disk by content.

May import: its rooms, ``common``, ``safety``. Never imports torch nor the capture half; the
rooms never import the glue (``plugin``, ``config``, ``commands``, ``build_report``, ``minify``,
``search_index``, ``plain_tree``): only the glue and the CLI do.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.site", "kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("torch", "triton", "kernelbook.capture", "kernelbook.cli")
