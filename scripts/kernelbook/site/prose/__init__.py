"""PROSE: how the book's pages are read and written, and the numbers they claim. Every room of the site reads it.

* ``text``: what a page's Markdown holds (fenced code, title, headings), read one way everywhere;
  ``markdown_code``: where Markdown shows text as written, and ``unrendered``: directives that
  reached a reader as written anywhere else; ``extensions``: the Markdown extensions the pages
  are written for.
* ``claims``: the ``[[kb:...]]`` claims' grammar and evaluation (pure: ``review`` reads it);
  ``units``: numbers written for people (claims, tables and figures alike).
* ``labels``: every string the renderer writes, in both languages; ``escape``: strings from
  captures made inert.
* ``objectives``, ``sections``, ``previous``: parts of a page (a chapter's learning objectives,
  the instructors' index, how an example's capture changed from the one it replaced).
* ``predictions``: a device-scoped claim's prediction in words until its capture exists;
  ``japanese``: Japanese spacing around inserted values; ``language``: English phrases inside
  Japanese prose, marked for screen readers.

May import: ``common`` and ``safety`` (control characters made visible) only, its own modules aside. Never imports torch, the capture half, nor
any other room of the site: the rooms import it, never the reverse.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.site.prose", "kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("torch", "triton", "kernelbook.capture", "kernelbook.site.pages", "kernelbook.site.directives",
                 "kernelbook.site.figures", "kernelbook.site.notebooks", "kernelbook.site.glossary",
                 "kernelbook.site.caches", "kernelbook.site.editions", "kernelbook.site.settings",
                 "kernelbook.site.plugin", "kernelbook.site.config", "kernelbook.site.commands",
                 "kernelbook.site.build_report", "kernelbook.site.minify", "kernelbook.site.search_index",
                 "kernelbook.site.plain_tree")
