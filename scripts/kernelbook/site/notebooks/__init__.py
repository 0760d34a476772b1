"""NOTEBOOKS: a chapter as a Jupyter notebook, and that notebook as a page of the site.

* ``chapter``: the notebook generated from a chapter's page and snippets (``kernelbook notebooks``);
  ``markdown``: a page's Markdown as a notebook shows it.
* ``links``: the view, download and "Open in Colab" links.
* ``pages``: notebook pages in a two-language site (mkdocs-jupyter with mkdocs-static-i18n).
* ``ahead``: notebook pages converted ahead, in a forked child; ``assets``: their stylesheet and
  pictures as files; ``soup``: nbconvert's BeautifulSoup pass, done without a tree.

(The rendered notebook pages' cache is ``site.caches.notebooks``.)
May import: ``prose``, ``directives``, ``glossary``, the figure cache, ``book``, ``settings``,
``common``, ``safety``. Never imports torch, the capture half, nor the MkDocs glue.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.site.notebooks", "kernelbook.site.prose", "kernelbook.site.directives",
              "kernelbook.site.glossary", "kernelbook.site.caches.figures", "kernelbook.site.book",
              "kernelbook.site.settings", "kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("torch", "triton", "kernelbook.capture", "kernelbook.site.plugin", "kernelbook.site.config",
                 "kernelbook.site.commands", "kernelbook.site.build_report", "kernelbook.site.minify",
                 "kernelbook.site.search_index", "kernelbook.site.plain_tree")
