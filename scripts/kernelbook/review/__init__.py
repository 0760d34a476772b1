"""REVIEW: ``kernelbook diff``, what changed between two sets of captures. Needs no torch, no mkdocs.

* ``trees``: the captures of one side: the working tree, a git ref (read with ``git
  ls-tree`` / ``git cat-file``, never checked out) or a folder laid out like ``snippets/``.
* ``compare``: per snippet × device, kernels, launches, time, ``results``, claims and
  environment, old → new (``kernelbook.common.changes`` for what a capture keeps of the last one).
* ``report``: the comparison as text, Markdown (a pull request body) or JSON.

* ``contributions``: the captures a change adds or replaces, each one the build shows.

May import: ``common``, ``safety``, and of the site only its claim parser and number formats
(``site.prose.claims``, ``site.prose.units``: pure, no mkdocs). Never imports torch, mkdocs or
any rendering package, nor the capture half: ``kernelbook diff`` runs with the standard library.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.review", "kernelbook.common", "kernelbook.safety", "kernelbook.site.prose.claims",
              "kernelbook.site.prose.units")
NEVER_IMPORTS = ("torch", "triton", "mkdocs", "yaml", "material", "nbformat", "nbconvert", "jinja2", "markdown",
                 "pymdownx", "mkdocs_jupyter", "mkdocs_static_i18n", "jupytext", "bs4", "mike", "kernelbook.capture",
                 "kernelbook.cli")
