"""Where a section starts for term links: a heading, never a `# comment` in a code block (issue 47)."""

from __future__ import annotations

import pytest

from test_glossary import linked


@pytest.mark.parametrize("fence", ["```python", "~~~", "```{.python .no-copy}"])
def test_a_comment_in_a_code_block_starts_no_section_so_a_term_links_once(fence):
    close = fence[:3]
    md = f"A kernel runs.\n\n{fence}\n# launch the kernel\nx = 1\n{close}\n\nThe kernel again.\n"
    out = linked(md)
    assert out.count("<kernel:") == 1 and out.startswith("A <kernel:kernel> runs."), out
    assert "# launch the kernel" in out  # code is never linked
    assert linked(md.replace(f"{fence}\n# launch the kernel\nx = 1\n{close}", "## Next { #next }")).count("<kernel:") == 2
