"""SHARED: what execute, render and review all read: the capture format and what is decided from it.

* ``records``: the capture file ``kernelbook.capture/1``, frozen records and their JSON form
  (its schema is the package's ``capture.schema.json``); ``summaries``: a capture in brief.
* ``changes``: what a capture keeps of the one it replaced, and the comparison.
* ``snippets``: finding snippets and hashing what affects their output.
* ``freshness``: is a capture still true of its snippet (``machine``: this machine's CUDA
  environment, found without importing torch).
* ``gpus``: a CUDA capture's GPU key and its file name; ``kernel_names``: kernel names for people.

May import: the standard library, ``kernelbook.safety`` and the package's ``CAPTURE_FORMAT``.
Never imports torch, mkdocs (or any rendering package), nor the halves (``capture``, ``site``,
``review``): both halves import this, on a bare GPU image and in a docs build alike.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("torch", "triton", "mkdocs", "yaml", "material", "nbformat", "nbconvert", "jinja2", "markdown",
                 "pymdownx", "mkdocs_jupyter", "mkdocs_static_i18n", "jupytext", "bs4", "mike", "kernelbook.capture",
                 "kernelbook.site", "kernelbook.review", "kernelbook.cli")
