"""kernelbook: executed PyTorch snippets, captured kernels, bilingual pages.

Two halves meet only in capture files: ``capture`` runs snippets where the compute
is (stdlib + torch only), everything else renders from the committed captures.
"""

__version__ = "0.1.0"

# Bump when the capture file layout or what the harness records changes: every
# capture becomes stale and is re-executed.
CAPTURE_FORMAT = 1
