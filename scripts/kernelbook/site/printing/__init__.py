"""PRINTING: the built site as a book, one PDF per language (``kernelbook pdf``).

* ``assemble``: one print document per language from the built site's pages, in the nav's order:
  a title page, a table of contents, the chapters, the glossary last; every tab shown with its
  label, internal links made links inside the document. Pure (Beautiful Soup, no browser).
* ``chromium``: that document printed to PDF by Debian's Chromium through Playwright.
* ``book``: both languages of a built site, assembled and printed (``kernelbook pdf``, an edition's build).

May import: ``settings`` and ``editions.history`` (the book's languages, an edition's URL), ``common``, ``safety``. Never imports torch, the capture half, mkdocs, nor the MkDocs glue:
it reads only the HTML a build wrote.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.site.printing", "kernelbook.site.settings", "kernelbook.site.editions.history",
              "kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("torch", "triton", "kernelbook.capture", "mkdocs", "material", "mkdocs_static_i18n",
                 "kernelbook.site.plugin", "kernelbook.site.config", "kernelbook.site.commands",
                 "kernelbook.site.build_report", "kernelbook.site.minify", "kernelbook.site.search_index",
                 "kernelbook.site.plain_tree")
