"""CACHES: what a build keeps on disk by content (under the plugin's ``cache_dir``), so that a rebuild
redoes no unchanged work. Each entry is named by a digest of everything it is made from.

* ``pages``: rendered Markdown pages (and ``kept_text``, a text kept by its digest).
* ``notebooks``: rendered notebook pages, and Jinja's compiled templates; ``exporters``: nbconvert's exporters, made once
  per process for the same settings.
* ``search``: material's search entries per page.
* ``figures``: the figures drawn from the shown captures.

May import: ``notebooks`` (what a notebook entry is made of), ``figures``, ``prose.escape``,
``book``, ``common``, ``safety``. Never imports torch, the capture half, nor the MkDocs glue.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook.site.caches", "kernelbook.site.notebooks", "kernelbook.site.figures",
              "kernelbook.site.prose.escape", "kernelbook.site.book", "kernelbook.common", "kernelbook.safety")
NEVER_IMPORTS = ("torch", "triton", "kernelbook.capture", "kernelbook.site.plugin", "kernelbook.site.config",
                 "kernelbook.site.commands", "kernelbook.site.build_report", "kernelbook.site.minify",
                 "kernelbook.site.search_index", "kernelbook.site.plain_tree")
