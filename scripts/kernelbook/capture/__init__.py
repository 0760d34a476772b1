"""EXECUTE: run snippets where the compute is, and record what they launched.

Needs only the standard library and torch (the child process imports torch; the parent
never does), so it runs on a bare GPU image: ``PYTHONPATH=scripts python -m kernelbook
capture``. It never imports the site half (mkdocs, yaml, nbformat).

* ``runner``: the parent: which snippets are stale, one child per snippet, atomic writes.
* ``harness``: the child: runs one snippet unchanged, records every profiler session.
* ``kernels``: the kernels a Chrome trace shows, by the CUDA and the CPU rule.
* ``merge``: captures made elsewhere (CI shards) brought into this tree.

What both halves share sits in ``kernelbook.common``: ``records`` (the capture format),
``snippets`` (finding and hashing snippets), ``freshness`` (is a capture still true),
``kernel_names`` (short kernel names); errors, files and processes in ``kernelbook.safety``.

May import: torch (in the child), ``common`` and ``safety``. Never imports mkdocs or any
rendering package, nor ``site``, ``review`` or the CLI.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.capture", "kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("mkdocs", "yaml", "material", "nbformat", "nbconvert", "jinja2", "markdown", "pymdownx",
                 "mkdocs_jupyter", "mkdocs_static_i18n", "jupytext", "bs4", "mike", "kernelbook.site",
                 "kernelbook.review", "kernelbook.cli")
