"""The Markdown extensions the pages kernelbook writes are made of.

Notices and questions (admonition), collapsed answers (details), heading anchors
(attr_list), the example's Markdown inside its <div> (md_in_html), code with a title
(superfences, highlight), CUDA/CPU tabs (tabbed). The plugin adds them to a book that
lacks them; the plain tree (``kernelbook render``) writes them into its mkdocs.yml.
"""

from __future__ import annotations

MARKDOWN_EXTENSIONS: dict[str, dict] = {
    "admonition": {},
    "attr_list": {},
    "md_in_html": {},
    "pymdownx.details": {},
    "pymdownx.highlight": {},
    "pymdownx.superfences": {},
    "pymdownx.tabbed": {"alternate_style": True},
}


def yaml_item(name: str) -> str:
    """One extension as an item of mkdocs.yml's ``markdown_extensions`` list (options are scalars)."""
    options = MARKDOWN_EXTENSIONS[name]
    if not options:
        return f"  - {name}"
    lines = [f"      {key}: {str(value).lower() if isinstance(value, bool) else value}" for key, value in options.items()]
    return f"  - {name}:\n" + "\n".join(lines)


def add_missing(config) -> list[str]:
    """Add to MkDocs' ``config`` the extensions of :data:`MARKDOWN_EXTENSIONS` it lacks, with their options; their names."""
    missing = [name for name in MARKDOWN_EXTENSIONS if name not in config.markdown_extensions]
    for name in missing:
        config.markdown_extensions.append(name)
        config.mdx_configs.setdefault(name, dict(MARKDOWN_EXTENSIONS[name]))
    return missing
