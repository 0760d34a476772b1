"""Beside each example, on demand: how its capture changed from the one it replaced (``site/prose/previous.py``)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from kernelbook.common.changes import KernelCount, SessionSummary, Summary, summarize
from kernelbook.common.records import from_json
from kernelbook.site.directives.run import captured
from kernelbook.site.prose.previous import previous_block
from test_diff import capture

HOSTILE = "<script>alert(1)</script>*[x](javascript:y)*"


def crafted(previous: Summary | None, sessions=((("aten::add", 2, 10.0),),), **env):
    return dataclasses.replace(from_json(capture(device="cpu", sessions=sessions, **env), "x"), previous=previous)


def old(sessions=((("aten::add", 2, 10.0),),), **env):
    return summarize(from_json(capture(device="cpu", sessions=sessions, **env), "x"))


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_capture_that_replaced_none_shows_nothing(lang):
    cap = crafted(None)
    assert previous_block(cap, lang) == "" and "kb-previous" not in captured(cap, lang)


@pytest.mark.parametrize("lang, title, same", [
    ("en", "Changes since the previous capture", "The same kernels and launches as before; total kernel time within ±10%."),
    ("ja", "前回のキャプチャからの変化", "カーネルと起動回数は前回と同じで、カーネル時間の合計の差は ±10% 以内です。"),
])
def test_the_same_kernels_and_time_within_the_threshold_say_so(lang, title, same):
    cap = crafted(old(captured_at="2025-05-05T05:05:05Z"), sessions=((("aten::add", 2, 10.5),),))
    block = previous_block(cap, lang)
    assert block.startswith('<details class="kb-previous"><summary>' + title + "</summary><ul>") and "<details open" not in block
    assert f"<li>{same}</li>" in block and "2025-05-05 05:05:05 UTC" in block
    assert block in captured(cap, lang)  # after the example's provenance
    assert captured(cap, lang).index('class="kb-provenance"') < captured(cap, lang).index("kb-previous")


@pytest.mark.parametrize("lang, words", [
    ("en", ["Kernels now launched: <code>aten::mul</code> ×3", "Kernels no longer launched: <code>aten::add</code> ×2",
            "Total launches: 2 → 3", "Total kernel time: 10.0 µs → 30.0 µs (3.0×)", "torch: <code>2.12.0</code> → <code>2.13.0</code>"]),
    ("ja", ["新たに起動されたカーネル: <code>aten::mul</code> ×3", "起動されなくなったカーネル: <code>aten::add</code> ×2",
            "起動回数の合計: 2 → 3", "カーネル時間の合計: 10.0 µs → 30.0 µs (3.0 倍)", "torch: <code>2.12.0</code> → <code>2.13.0</code>"]),
])
def test_kernels_launches_time_and_environment_that_changed(lang, words):
    cap = crafted(old(torch="2.12.0"), sessions=((("aten::mul", 3, 30.0),),))
    block = previous_block(cap, lang)
    for word in words:
        assert word in block, (word, block)


def test_sessions_are_named_when_there_are_several():
    before = old(sessions=((("aten::add", 1, 10.0),), (("aten::add", 1, 10.0),)))
    cap = crafted(before, sessions=((("aten::add", 1, 10.0),), (("aten::add", 4, 10.0),)))
    block = previous_block(cap, "en")
    assert "Launch counts changed (profiler session 2): <code>aten::add</code> 1 → 4" in block
    assert "profiler session 1)" not in block
    assert "Profiler sessions: 2 → 3" in previous_block(
        crafted(before, sessions=((("aten::add", 1, 10.0),),) * 3), "en")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_what_the_previous_capture_says_is_never_markup(lang):
    before = Summary(device_name=HOSTILE, torch="2.12`x`", captured_at="2025-01-01T00:00:00Z<b>",
                     sessions=(SessionSummary(1, 5.0, (KernelCount(HOSTILE, 1),)),))
    block = previous_block(crafted(before), lang)
    assert "<script" not in block and "[x](" not in block and "*" not in block and "`" not in block and "<b>" not in block
    assert re.sub(r"<(/?)(details|summary|ul|li|code)>|<details class=\"kb-previous\">", "", block).count("<") == 0
    assert "&#60;script&#62;alert(1)&#60;/script&#62;" in block
