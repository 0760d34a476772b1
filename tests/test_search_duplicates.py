"""mkdocs-static-i18n's search de-duplication done by search_index.remove_duplicates: exactly what i18n's own does."""

from __future__ import annotations

import importlib.metadata
import random
from types import SimpleNamespace

from mkdocs_static_i18n.reconfigure import ExtendedPlugin

from kernelbook.site import search_index

LANGUAGES = ["ja", "en"]


def _entries(rng: random.Random, n: int) -> list[dict]:
    """Default-language entries first (i18n builds it first), then English ones, many of them alike."""
    out = []
    for folder in ("", "en/"):
        for _ in range(n):
            out.append({"location": folder + rng.choice(["", "ch01/", "ch01/#a", "a/"]),
                        "title": rng.choice(["T", "U", "V"]), "text": rng.choice(["x", "y", ""])})
    if rng.random() < 0.3:
        rng.shuffle(out)  # interleaved: i18n's filters skip differently
    return out


def test_the_same_entries_are_removed_as_i18n_removes_them():
    assert importlib.metadata.version("mkdocs-static-i18n") in search_index.I18N_DUPLICATES
    rng = random.Random(7)
    removed = 0
    for _ in range(400):
        entries = _entries(rng, rng.randint(0, 12))
        theirs, ours = list(entries), list(entries)
        ExtendedPlugin.reconfigure_search_duplicates(SimpleNamespace(build_languages=LANGUAGES), theirs)
        search_index.remove_duplicates(ours, LANGUAGES)
        assert [id(e) for e in ours] == [id(e) for e in theirs]
        removed += len(entries) - len(theirs)
    assert removed > 100  # the cases did remove entries


def test_only_the_known_version_of_i18n_is_quickened(monkeypatch):
    monkeypatch.setattr(ExtendedPlugin, "build_languages", LANGUAGES)  # a property reading the plugin's config
    plugin = ExtendedPlugin()
    assert not search_index.quicken_duplicates(plugin, "9.9")
    assert "reconfigure_search_duplicates" not in vars(plugin)
    assert search_index.quicken_duplicates(plugin, importlib.metadata.version("mkdocs-static-i18n"))
    entries = [{"location": "a/", "title": "T", "text": "x"}, {"location": "en/a/", "title": "T", "text": "x"}]
    plugin.reconfigure_search_duplicates(entries)
    assert entries == [{"location": "a/", "title": "T", "text": "x"}]
