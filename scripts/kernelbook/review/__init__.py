"""REVIEW: ``kernelbook diff``, what changed between two sets of captures. Needs no torch, no mkdocs.

* ``trees``: the captures of one side: the working tree, a git ref (read with ``git
  ls-tree`` / ``git cat-file``, never checked out) or a folder laid out like ``snippets/``.
* ``compare``: per snippet × device, kernels, launches, time, ``results``, claims and
  environment, old → new (``kernelbook.common.changes`` for what a capture keeps of the last one).
* ``report``: the comparison as text, Markdown (a pull request body) or JSON.

It reads the prose's claims with the site's claim parser (``site.prose.claims``, which is pure:
no mkdocs), and never imports the capture half.
"""
