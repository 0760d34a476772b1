"""kernelbook: executed PyTorch snippets, captured kernels, bilingual pages.

Two halves meet only in capture files: ``capture`` runs snippets where the compute
is (stdlib + torch only), everything else renders from the committed captures.

The rooms (guide/architecture.md draws the tree):

* here: the ``kernelbook`` command (``cli``, its options' words in ``options``) and the
  capture kit's notebook (``kit``);
* ``common``: what execute, render and review share (the capture format, snippets, freshness,
  GPU keys); ``safety``: processes, locks, hostile files, errors;
* ``capture``: EXECUTE; ``site``: RENDER; ``review``: ``kernelbook diff``.

The modules here may import every room, but ``cli`` imports a half only inside the command
that needs it (``capture`` runs with torch alone, ``diff`` with the standard library); none of
them imports torch.
"""

# The import rules, as tests/test_layout.py reads them: of kernelbook's own modules a module here
# imports only those under MAY_IMPORT (and the package `kernelbook` itself); NEVER_IMPORTS it never does.
MAY_IMPORT = ("kernelbook",)
NEVER_IMPORTS = ("torch", "triton")

__version__ = "0.1.0"

# Bump when what the harness records changes: every capture becomes stale and is
# re-executed. (The file layout has its own version: records.LAYOUT.)
# 2: the harness no longer sets inductor's cpp.enable_kernel_profile (snippets do), records
# the threads a snippet ran with after it ran, and counts the stderr lines it drops.
CAPTURE_FORMAT = 2
