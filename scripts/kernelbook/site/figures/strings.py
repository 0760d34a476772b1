"""The words in figures, in both languages: counts, lists, devices; each figure adds its own. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .base import LANGS

# Shared by every figure: counts, list punctuation, where it was measured.
COMMON: dict[str, dict[str, str]] = {
    "en": {
        "kernels_1": "1 kernel",
        "kernels_n": "{n} kernels",
        "transfers_1": "1 transfer",
        "transfers_n": "{n} transfers",
        "list_sep": ", ",
        "list_last": " and ",
        "on_cpu": " (CPU rehearsal)",
        "on_gpu": " ({name})",
        "on_mixed": " (eager on {eager}, compiled on {compiled})",
    },
    "ja": {
        "kernels_1": "カーネル 1 個",
        "kernels_n": "カーネル {n} 個",
        "transfers_1": "転送 1 回",
        "transfers_n": "転送 {n} 回",
        "list_sep": "、",
        "list_last": "、",
        "on_cpu": " (CPU での予行演習)",
        "on_gpu": " ({name})",
        "on_mixed": " (イーガー版は {eager}、コンパイル版は {compiled} で測定)",
    },
}


class Strings:
    """One figure's words (its own table on top of :data:`COMMON`), looked up by language and key."""

    def __init__(self, own: Mapping[str, Mapping[str, str]]):
        missing = {lang for lang in LANGS if lang not in own}
        if missing:
            raise ValueError(f"figure strings lack language(s) {sorted(missing)}")
        keys = {lang: set(own[lang]) for lang in LANGS}
        if len({frozenset(k) for k in keys.values()}) > 1:
            raise ValueError(f"figure strings differ in keys between languages: {keys}")
        self.table = {lang: {**COMMON[lang], **own[lang]} for lang in LANGS}

    def __call__(self, lang: str, key: str, **values: Any) -> str:
        return self.table[lang][key].format(**values)

    def raw(self, lang: str, key: str) -> str:
        return self.table[lang][key]

    def count(self, lang: str, what: str, n: int) -> str:
        """"1 kernel" / "3 kernels": ``what`` names a ``what_1`` / ``what_n`` pair."""
        return self(lang, f"{what}_1" if n == 1 else f"{what}_n", n=n)

    def join(self, lang: str, items: Sequence[str]) -> str:
        """"a, b and c" / "a、b、c"."""
        items = list(items)
        if len(items) <= 1:
            return "".join(items)
        return self.raw(lang, "list_sep").join(items[:-1]) + self.raw(lang, "list_last") + items[-1]

    def device_note(self, lang: str, groups: Sequence[Mapping[str, Any]]) -> str:
        """Where the drawn captures ran, from groups with ``device`` and ``device_name``."""
        kinds = [g["device"] for g in groups]
        if len(set(kinds)) > 1:
            names = ["CPU" if g["device"] == "cpu" else g["device_name"] for g in groups]
            return self(lang, "on_mixed", eager=names[0], compiled=names[-1])
        if kinds and kinds[0] == "cuda":
            return self(lang, "on_gpu", name=groups[0]["device_name"])
        return self(lang, "on_cpu")
