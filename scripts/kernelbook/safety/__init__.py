"""SAFETY: processes, locks and files that a hostile input or a stuck child cannot turn against the book.

* ``errors``: the one-line errors the CLI prints (exit 2).
* ``files``: reading input that may be hostile: regular files only, bounded, strict JSON.
* ``validation``: one JSON value against its schema rule, with its path in the message.
* ``locks``: the book's lock: one capture run at a time, never while a build reads.
* ``processes``: child processes that never outlive kernelbook; signals that stop it at once.

May import: the standard library, and ``kernelbook.common.records`` (``locks`` writes its file
atomically with it). Never imports torch, mkdocs, nor the halves.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.safety", "kernelbook.common.records")
NEVER_IMPORTS = ("torch", "triton", "mkdocs", "yaml", "material", "nbformat", "nbconvert", "jinja2", "markdown",
                 "pymdownx", "mkdocs_jupyter", "mkdocs_static_i18n", "jupytext", "bs4", "mike", "kernelbook.capture",
                 "kernelbook.site", "kernelbook.review", "kernelbook.cli")
