"""EXECUTE: run snippets where the compute is, and record what they launched.

Needs only the standard library and torch (the child process imports torch; the parent
never does), so it runs on a bare GPU image: ``PYTHONPATH=scripts python -m kernelbook
capture``. It never imports the site half (mkdocs, yaml, nbformat).

* ``runner``: the parent: which snippets are stale, one child per snippet, atomic writes.
* ``harness``: the child: runs one snippet unchanged, records every profiler session.
* ``kernels``: the kernels a Chrome trace shows, by the CUDA and the CPU rule.
* ``merge``: captures made elsewhere (CI shards) brought into this tree.

What both halves share sits at the package's top: ``records`` (the capture format),
``snippets`` (finding and hashing snippets), ``freshness`` (is a capture still true),
``kernel_names`` (short kernel names) and ``errors``.
"""
