"""A chapter's notebook offered to the reader: view, download and "Open in Colab" links. Pure.

On the chapter page (the ``[[kb:notebook CHAPTER]]`` block) and above the rendered notebook
page; ``kernelbook render``'s plain tree writes the same links.
"""

from __future__ import annotations

import html
from urllib.parse import quote

from ..prose.labels import label
from .chapter import NAME

COLAB = "https://colab.research.google.com/github/{repository}/blob/{branch}/docs/{lang}/{chapter}/" + NAME


def colab_url(repository: str, branch: str, lang: str, chapter: str) -> str:
    return COLAB.format(repository=quote(repository), branch=quote(branch), lang=lang, chapter=quote(chapter))


def buttons(chapter: str, lang: str, repository: str, branch: str, *, base: str = "", view: bool = True) -> str:
    """View, download and Colab links as raw HTML, relative to the chapter page (or ``base``).

    ``notebook/`` is the rendered notebook, ``notebook.ipynb`` the file itself. Raw HTML,
    so that MkDocs does not rewrite the download link into the rendered page's URL.
    """
    base = html.escape(base, quote=True)
    links = []
    if view:
        links.append(f'<a class="md-button md-button--primary kb-nb-view" href="{base}notebook/">{html.escape(label("nb_view", lang))}</a>')
    links.append(f'<a class="md-button kb-nb-download" href="{base}{NAME}" download="{chapter}-{lang}.ipynb">{html.escape(label("nb_download", lang))}</a>')
    if repository:
        url = html.escape(colab_url(repository, branch, lang, chapter), quote=True)
        links.append(f'<a class="md-button kb-nb-colab" href="{url}" target="_blank" rel="noopener">{html.escape(label("nb_colab", lang))}</a>')
    return " ".join(links)


def notebook_links(chapter: str, lang: str, repository: str, branch: str, *, base: str = "", view: bool = True) -> str:
    """The ``[[kb:notebook CHAPTER]]`` block: an admonition with view, download and Colab links.

    Links are relative to the chapter page; ``base`` leads there from another page.
    ``view=False`` leaves out the link to the rendered notebook (a site without mkdocs-jupyter).
    """
    title = label("nb_title", lang).replace('"', "&quot;")
    return "\n".join([
        f'!!! example kb-notebook "{title}"',
        "",
        "    " + label("nb_body", lang),
        "",
        "    " + buttons(chapter, lang, repository, branch, base=base, view=view),
        "",
    ])


def page_bar(chapter: str, lang: str, repository: str, branch: str) -> str:
    """Download and Colab links for the rendered notebook page (one level below the chapter)."""
    return f'<p class="kb-nb-links">{buttons(chapter, lang, repository, branch, base="../", view=False)}</p>\n'
