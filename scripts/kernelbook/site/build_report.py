"""What the plugin tells at the end of a build: what it made and what it took from its caches,
the device-scoped claims no capture checked, and whether MkDocs is about to abort the build."""

from __future__ import annotations

import logging
from collections import Counter

from .directives.claims import HOLE


def summary(counts: Counter) -> str:
    """One line: figures, notebook pages, other pages and search entries, made against taken from the cache."""
    return (f"figures: {counts['figures drawn']} drawn, {counts['figures cached']} from the cache; "
            f"notebook pages: {counts['notebooks rendered']} rendered, {counts['notebooks cached']} from the cache; "
            f"other pages: {counts['pages rendered']} rendered, {counts['pages cached']} from the cache; "
            f"search entries: {counts['search parsed']} pages parsed, {counts['search cached']} from the cache")


def unchecked(notes: list[str]) -> str:
    """The claims scoped to a device no fresh capture is of (each note ends "unchecked on <device> ...")."""
    devices = sorted({note.rsplit("unchecked on ", 1)[1].split()[0] for note in notes})
    holes = sum(note.endswith(HOLE) for note in notes)
    return (f"{len(notes)} device-scoped claim(s) unchecked on {' and '.join(devices)} (no fresh capture of that device), "
            "listed above and on the instructors' page"
            + (f"; {holes} of them make no comparison, so their pages show the bare placeholder (the notes ending "
               f"'{HOLE}'): rewrite the sentence to stand without the number, or give its reference" if holes else ""))


def warned(config) -> bool:
    """A warning was logged in a strict build: MkDocs aborts it right after the last on_post_build."""
    from mkdocs.utils import CountHandler

    return bool(config.strict) and any(isinstance(h, CountHandler) and h.get_counts()
                                       for h in logging.getLogger("mkdocs").handlers)
