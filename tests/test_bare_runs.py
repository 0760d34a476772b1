"""Every snippet, run bare as a reader runs it, launches what its committed CPU capture says.

``python snippets/chNN/name.py`` with CUDA hidden, nothing else: no harness, no
``PYTHONPATH=scripts``, no runpy. Its kernel rows (per profiler session: names and launch
counts, not times) must equal those of ``snippets/chNN/captures/name.cpu.json``. A capture
that shows more than the bare run (because something set a flag behind the snippet's
back, as the harness once set inductor's ``cpp.enable_kernel_profile``) fails here.

How the bare run's sessions are seen without configuring anything: a ``sitecustomize``
on ``PYTHONPATH`` (RECORDER below) waits until the snippet itself imports
``torch.profiler``, then wraps ``profile.stop`` so that, *after* each session has stopped,
its recorded events are exported as a Chrome trace into a temporary folder. It sets no
option, imports nothing the snippet does not, and touches nothing the snippet's code or
output could see before the session is over: exporting reads what the profiler already
recorded. The kernels are then read from those traces by the same rule the captures use
(``kernelbook.capture.kernels.extract``), in this test process.

Cost: every snippet of the book runs once (two at a time); the module prints each run's
time and the sum (``-s`` or the captured output of a failure shows them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import ROOT
from kernelbook.capture.kernels import extract
from kernelbook.common.kernel_names import without_graph_number
from kernelbook.common.records import load
from kernelbook.common.snippets import discover

RECORDER = '''
"""kernelbook's bare-run test: export each torch.profiler session after it stops. Configures nothing."""
import importlib.abc
import importlib.machinery
import os
import sys

_OUT = os.environ["KERNELBOOK_BARE_TRACES"]
_count = [0]


def _export_after_stop(stop):
    def wrapped(self):
        result = stop(self)  # the session is over before anything here runs
        self.export_chrome_trace(os.path.join(_OUT, f"session{_count[0]}.json"))
        _count[0] += 1
        return result
    return wrapped


class _WhenTheSnippetImportsTheProfiler(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "torch.profiler.profiler":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        original = spec.loader.exec_module

        def exec_module(module):
            original(module)
            module.profile.stop = _export_after_stop(module.profile.stop)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _WhenTheSnippetImportsTheProfiler())
'''

SNIPPETS = discover(ROOT)
_POOL = ThreadPoolExecutor(max_workers=2)  # CI has 2 cores; kernel rows do not depend on timing


def bare_run(snippet_path: Path, work: Path) -> dict:
    """``python SNIPPET`` in ``work``, CUDA hidden; its exit code, output, seconds and kernels per session."""
    recorder, traces = work / "recorder", work / "traces"
    recorder.mkdir(parents=True)
    traces.mkdir()
    (recorder / "sitecustomize.py").write_text(RECORDER, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KERNELBOOK_JOBS")}
    env.update(PYTHONPATH=str(recorder), KERNELBOOK_BARE_TRACES=str(traces), CUDA_VISIBLE_DEVICES="")
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(snippet_path)], cwd=work, env=env, capture_output=True, text=True, timeout=900)
    seconds = time.monotonic() - started
    sessions = []
    for i in range(len(list(traces.glob("session*.json")))):
        found = extract(json.loads((traces / f"session{i}.json").read_text(encoding="utf-8")), device_kind="cpu")
        sessions.append([(without_graph_number(k.name), k.count) for k in found.kernels])
    return {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr, "seconds": seconds, "sessions": sessions}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Future]:
    """Every snippet's bare run, started at once, two at a time; each test waits for its own."""
    started = time.monotonic()
    futures = {s.id: _POOL.submit(bare_run, s.path, tmp_path_factory.mktemp(s.id.replace("/", "-"))) for s in SNIPPETS}
    yield futures
    total = sum(f.result()["seconds"] for f in futures.values() if f.done() and not f.exception())
    print(f"\nbare runs: {len(futures)} snippets, {total:.1f} s of runs, {time.monotonic() - started:.1f} s wall (2 at a time)")


def test_the_book_has_snippets():
    assert len(SNIPPETS) >= 9


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.id for s in SNIPPETS])
def test_a_bare_run_launches_what_its_cpu_capture_shows(runs, snippet):
    path = snippet.capture_path("cpu")
    assert path.is_file(), f"{snippet.id} has no committed CPU capture ({path.relative_to(ROOT)}): run `kernelbook capture --device cpu {snippet.id}`"
    # Names without inductor's graph_N_ prefix: N counts what compiled earlier in the process
    # (kernel_names.without_graph_number); the kernel and its launches are what must agree.
    captured = [[(without_graph_number(k.name), k.count) for k in s.kernels] for s in load(path).sessions]
    got = runs[snippet.id].result()
    print(f"{snippet.id}: bare run {got['seconds']:.1f} s")
    assert got["rc"] == 0, f"`python {snippet.path.relative_to(ROOT)}` failed:\n{got['stderr'][-3000:]}"
    assert got["sessions"] == captured, (
        f"{snippet.id}: a bare run launches {got['sessions']}, its CPU capture shows {captured}. "
        "Whatever changes what a snippet launches must be set in the snippet's own code; then re-capture it.")


def test_the_recorder_sees_sessions_and_configures_nothing(tmp_path):
    """The recorder itself: each session is seen once, and the run sees torch's defaults, untouched."""
    snippet = tmp_path / "probe.py"
    snippet.write_text(
        "import sys, torch\n"
        "from torch.profiler import ProfilerActivity, profile\n"
        "x = torch.ones(4)\n"
        # before the first session: a profiler session imports triton itself where it is
        # installed (torch._dynamo.utils, as the session ends), the recorder must not
        "triton = 'triton' in sys.modules\n"
        "for _ in range(2):\n"
        "    with profile(activities=[ProfilerActivity.CPU]):\n"
        "        x + 1\n"
        "inductor = sys.modules.get('torch._inductor.config')\n"
        "print(triton, inductor.cpp.enable_kernel_profile if inductor else None)\n",
        encoding="utf-8")
    got = bare_run(snippet, tmp_path / "work")
    assert got["rc"] == 0, got["stderr"]
    assert got["sessions"] == [[("aten::add", 1)], [("aten::add", 1)]]
    triton, flag = got["stdout"].split()
    assert triton == "False" and flag in ("False", "None")  # the recorder imports no triton, inductor's flag at its default
