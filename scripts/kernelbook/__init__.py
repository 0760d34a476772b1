"""kernelbook: executed PyTorch snippets, captured kernels, bilingual pages.

Two halves meet only in capture files: ``capture`` runs snippets where the compute
is (stdlib + torch only), everything else renders from the committed captures.
"""

__version__ = "0.1.0"

# Bump when what the harness records changes: every capture becomes stale and is
# re-executed. (The file layout has its own version: records.LAYOUT.)
# 2: the harness no longer sets inductor's cpp.enable_kernel_profile (snippets do), records
# the threads a snippet ran with after it ran, and counts the stderr lines it drops.
CAPTURE_FORMAT = 2
