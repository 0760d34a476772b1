"""PAGES: one page's Markdown rendered from the captures, and the pages checked against each other.

* ``markdown``: one page rendered (term links, directives, objectives), whatever builds the site:
  the plugin's ``on_page_markdown`` and ``kernelbook render`` both call it.
* ``figure_tabs``: ``[[kb:figure NAME]]`` on a page: one drawing, or a tab per capture.
* ``twins``: the two languages' pages match (pages, anchors, directives, objectives).

May import: the rooms below the glue (``prose``, ``directives``, ``figures``, the figure cache,
``glossary``, ``editions``), ``book``, ``settings``, ``common``, ``safety``. Never imports torch,
the capture half, nor the MkDocs glue (``plugin``, ``commands``, ...).
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.site.pages", "kernelbook.site.prose", "kernelbook.site.directives", "kernelbook.site.figures",
              "kernelbook.site.caches.figures", "kernelbook.site.glossary", "kernelbook.site.editions",
              "kernelbook.site.book", "kernelbook.site.settings", "kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("torch", "triton", "kernelbook.capture", "kernelbook.site.plugin", "kernelbook.site.config",
                 "kernelbook.site.commands", "kernelbook.site.build_report", "kernelbook.site.minify",
                 "kernelbook.site.search_index", "kernelbook.site.plain_tree")
