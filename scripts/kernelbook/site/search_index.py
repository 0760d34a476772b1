"""One search index per language, so that a reader searches only the pages of the language they read.

mkdocs-static-i18n builds each language in turn and then writes every language's entries
into one ``search/search_index.json`` (ultrabug/mkdocs-static-i18n#271); material's search
fetches ``search/search_index.json`` relative to the page's ``__config.base``, so every
page searches every language. After that shared index is written, the plugin splits it:

* ``<site>/search/search_index.json``: the default language's pages only;
* ``<site>/<lang>/search/search_index.json``: language ``lang``'s pages only, their
  locations relative to ``<lang>/`` (the folder the pages of that language search from);

and sets ``__config.base`` on each page of a non-default language to its language's
folder. material resolves only two things against that base on this site: the search
index's URL and the search results' links (the version selector and instant navigation,
which also read it, are not used), so both now point into the reader's language.

Each index keeps the search plugin's settings, with its ``lang`` narrowed to what that
language's pages hold: an English index needs no Japanese segmenter (lunr.ja, TinySegmenter)
and the reader's browser no longer downloads one; a Japanese index keeps ``ja`` and ``en``,
because its pages hold English words (code, kernel names) too. A chapter's notebook page is
ranked below the chapter (``demote``). No mkdocs import: material's plugin is found by duck typing.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

log = logging.getLogger("mkdocs.plugins.kernelbook")


def language_of(location: str, prefixes: Mapping[str, str]) -> str:
    """The language whose folder ``location`` (site-relative, e.g. ``en/ch01/#fusion``) is in.

    ``prefixes``: language -> its folder below the site root (``""`` for the default
    language, ``"en/"``); the longest prefix that matches wins.
    """
    matches = [(len(prefix), lang) for lang, prefix in prefixes.items() if location.startswith(prefix)]
    if not matches:
        raise ValueError(f"search entry {location!r} is in no language's folder ({', '.join(map(repr, prefixes.values()))})")
    return max(matches)[1]


def split(entries: Iterable[Mapping], prefixes: Mapping[str, str]) -> dict[str, list[dict]]:
    """The shared index's entries by language, each ``location`` made relative to its language's folder.

    Order is kept within a language. Every language of ``prefixes`` is a key, even without entries.
    """
    out: dict[str, list[dict]] = {lang: [] for lang in prefixes}
    for entry in entries:
        lang = language_of(entry["location"], prefixes)
        out[lang].append({**entry, "location": entry["location"][len(prefixes[lang]):]})
    return out


# A chapter's rendered notebook repeats the chapter's headings (and its code and outputs, so
# its words more often): ranked as high as the page, it comes first for the chapter's own
# terms. Its entries get this document boost, so the page that teaches a term comes first.
NOTEBOOK_BOOST = 0.5
PILCROW = "\u00b6"  # the permalink sign mkdocs-jupyter leaves at the end of a notebook heading's title


def demote(entries: Iterable[Mapping], pages: Collection[str], boost: float = NOTEBOOK_BOOST) -> list[dict]:
    """``entries`` with ``boost`` (material's per-document search boost) on every entry of a
    page whose folder is named one of ``pages`` (``"notebook"``: ``ch03/notebook/``, ``ch03/notebook/#x``),
    and their titles without the permalink sign (``Graph breaks¶`` is one word to the search,
    which then finds the notebook's heading where it does not find the page's)."""
    out = []
    for entry in entries:
        path = entry["location"].split("#", 1)[0]
        if path.rstrip("/").rsplit("/", 1)[-1] in pages:
            out.append({**entry, "title": str(entry.get("title", "")).rstrip(PILCROW).rstrip(), "boost": boost})
        else:
            out.append(dict(entry))
    return out


def write_per_language(index, prefixes: Mapping[str, str], demoted: Collection[str], site_dir: Path) -> None:
    """Each language's entries of material's ``index`` as that language's own ``search/search_index.json``
    (its prefix in ``site_dir``), the pages named in ``demoted`` after the others. ValueError: an entry of no language."""
    for lang, entries in split(index.entries, prefixes).items():
        if not entries:
            continue
        own = type(index)(**{**index.config, "lang": narrowed_languages(index.config["lang"], lang)})
        # a term's entry is found by its own name: the chapter that teaches it comes first
        own.entries = demote(entries, demoted)
        path = site_dir / prefixes[lang] / "search" / "search_index.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(own.generate_search_index(None), encoding="utf-8")


def narrowed_languages(configured: Sequence[str], lang: str) -> list[str]:
    """The lunr languages an index of ``lang``'s pages needs: ``lang``, then English (code and
    names are English in every language); the configured list unchanged when ``lang`` is not in it."""
    if lang not in configured:
        return list(configured)
    return [lang] + [other for other in configured if other == "en" and other != lang]


_BASE = re.compile(r'(<script id="__config" type="application/json">\{[^<]*?"base": )"([^"\\<]*)"')


def rebase(html: str, prefix: str) -> str:
    """``html`` with material's ``__config.base`` moved from the site root into the folder ``prefix``
    (``"en/"``): the page then fetches ``<prefix>search/search_index.json``.

    Raises ValueError when the page has no ``__config`` to rebase (another theme, or a
    material that spells it differently): a page would search the wrong index otherwise.
    """
    found = _BASE.search(html)
    if found is None:
        raise ValueError("no material __config with a \"base\" in the page; cannot point its search at its language's index")
    # with its trailing slash: material resolves URLs against it, and "../en" would name a file
    base = posixpath.normpath(posixpath.join(found.group(2) or ".", prefix)) + "/"
    return html[: found.start(2) - 1] + f'"{base}"' + html[found.end(2) + 1:]


def material_search(config, quiet: bool = False):
    """material's search plugin, when it is on and builds the index this module knows how to split; else None.

    ``quiet``: say nothing of another search plugin (the caller has nothing to tell the maintainer)."""
    for name in ("material/search", "search"):
        plugin = config.plugins.get(name)
        if plugin is not None and getattr(plugin.config, "enabled", False) and type(plugin).__module__.startswith("material."):
            return plugin
        if plugin is not None and not quiet:
            log.info("kernelbook: the %s plugin is not material's; every language searches one shared index", name)
            return None
    return None


# mkdocs-static-i18n versions whose ``reconfigure_search_duplicates`` :func:`remove_duplicates` does step for step.
I18N_DUPLICATES = {"1.3.1"}


def quicken_duplicates(i18n, version: str | None) -> bool:
    """Have mkdocs-static-i18n's search de-duplication (``reconfigure_search_duplicates``) done by
    :func:`remove_duplicates`: the same entries removed, without comparing every entry of the
    default language with every entry of the others (quadratic: 11 s for a glossary of 10,000
    terms). Only for the versions of :data:`I18N_DUPLICATES`; False (left as it is) for another."""
    if version not in I18N_DUPLICATES or not type(i18n).__module__.startswith("mkdocs_static_i18n."):
        return False
    if not callable(getattr(i18n, "reconfigure_search_duplicates", None)):
        return False
    i18n.reconfigure_search_duplicates = lambda entries: remove_duplicates(entries, i18n.build_languages)
    return True


def remove_duplicates(entries: list, languages: Sequence[str]) -> None:
    """mkdocs-static-i18n 1.3.1's ``reconfigure_search_duplicates``, step for step (the same
    entries removed in the same order, the skips of its filters over lists it shortens included),
    but a default-language entry whose title and text no other language's entry has is passed
    over without scanning them all: that scan could remove nothing."""
    folders = tuple(f"{lang}/" for lang in languages)
    defaults = filter(lambda x: not x["location"].startswith(folders), entries)
    targets = list(filter(lambda x: x["location"].startswith(folders), entries))
    try:
        counts = Counter((x["title"], x["text"]) for x in targets)
    except (KeyError, TypeError):  # entries unlike material's: no shortcut
        counts = None
    for default in defaults:
        try:
            if counts is not None and not counts.get((default["title"], default["text"])):
                continue
        except (KeyError, TypeError):
            pass
        duplicated = filter(lambda x: x["title"] == default["title"] and x["location"].endswith(default["location"])
                            and x["text"] == default["text"], targets)
        for entry in duplicated:
            entries.remove(entry)
            targets.remove(entry)
            if counts is not None:
                counts[(entry["title"], entry["text"])] -= 1
