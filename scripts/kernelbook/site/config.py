"""The kernelbook plugin's options, as mkdocs.yml sets them under ``plugins: - kernelbook: {...}``.

Beside the plugin as mkdocs-material keeps each plugin's ``config.py``; ``settings`` turns them
into the plain values the book's parts read (:class:`settings.BookSettings`).
"""

from __future__ import annotations

from mkdocs.config import base, config_options as c


class KernelbookConfig(base.Config):
    """The plugin's options; guide/architecture.md, "The MkDocs plugin", lists them in a table."""

    repository = c.Type(str, default="")  # GitHub "owner/name": the notebooks' Colab links
    branch = c.Type(str, default="main")  # the branch those links open
    snippets_dir = c.Type(str, default="snippets")  # <chapter>/<name>.py and <chapter>/captures/, beside mkdocs.yml
    read_only = c.Type(bool, default=False)  # write nothing into docs/: a stale notebook fails the build instead
    notebooks = c.Type(bool, default=True)  # write docs/<lang>/<chapter>/notebook.ipynb for chapters that run snippets
    cache_dir = c.Type(str, default=".kernelbook/cache")  # drawn figures and rendered notebook pages, beside mkdocs.yml
    glossary = c.Type(str, default="")  # the glossary's data file, relative to docs/ (never copied into the site); "": none
    glossary_page = c.Type(str, default="glossary.md")  # the glossary's page in each language's folder ([[kb:glossary]])
    pdf = c.Type(bool, default=False)  # print kernelbook-<lang>.pdf into the site after building it (on for editions: KERNELBOOK_PDF)
    reference_gpu = c.Type(str, default="")  # GPU key --strict demands, shown first (gpus.reference_gpu reads it as text)
