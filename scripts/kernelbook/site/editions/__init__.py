"""EDITIONS: frozen builds of the book for a course's term, and what changed between them.

* ``history``: which edition a build is, the one before it, and what changed since.
* ``publishing``: ``kernelbook edition``: publish, list and delete editions with mike.

May import: ``review`` (the comparison of two sets of captures), ``prose.text``, ``prose.escape``, ``settings``,
``common``, ``safety``. Never imports torch, the capture half, nor the MkDocs glue.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.site.editions", "kernelbook.review", "kernelbook.site.prose.text", "kernelbook.site.prose.escape",
              "kernelbook.site.settings", "kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("torch", "triton", "kernelbook.capture", "kernelbook.site.plugin", "kernelbook.site.config",
                 "kernelbook.site.commands", "kernelbook.site.build_report", "kernelbook.site.minify",
                 "kernelbook.site.search_index", "kernelbook.site.plain_tree")
