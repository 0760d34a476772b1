"""GLOSSARY: every term in both languages, and its links on the pages.

* ``terms``: the glossary's data file (``docs/glossary.yml``), read and checked.
* ``links``: which words of a page link to which entry (the same rules on the site and in the notebooks).
* ``build``: the glossary in a build: read once, checked, kept out of the site, its terms linked.

May import: ``prose``, ``directives``, ``figures``, ``notebooks``, ``caches``, ``book``,
``settings``, ``common``, ``safety``. Never imports torch, the capture half, nor the MkDocs glue.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.site.glossary", "kernelbook.site.prose", "kernelbook.site.directives",
              "kernelbook.site.figures", "kernelbook.site.notebooks", "kernelbook.site.caches", "kernelbook.site.book",
              "kernelbook.site.settings", "kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("torch", "triton", "kernelbook.capture", "kernelbook.site.plugin", "kernelbook.site.config",
                 "kernelbook.site.commands", "kernelbook.site.build_report", "kernelbook.site.minify",
                 "kernelbook.site.search_index", "kernelbook.site.plain_tree")
