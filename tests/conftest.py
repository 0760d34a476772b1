"""Shared helpers: the project root, the real GPU traces, the CLI in a subprocess."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
# Real A100 traces from HolisticTraceAnalysis's test data (MIT, notice beside them): part of
# the checkout, so the tests that read them run everywhere.
REAL_TRACES = ROOT / "tests" / "fixtures" / "real-traces"
SIMPLE_ADD = "benchmark_simple_add_trace.json.gz"
BIG_TRACE = "benchmark_result_493459_1694039959_trace.json.gz"

if str(SCRIPTS) not in sys.path:  # the package also works without `pip install -e .`
    sys.path.insert(0, str(SCRIPTS))
# Tests write nothing into the checkout: no __pycache__ beside the sources, here or in the
# processes they start (mkdocs, the CLI, snippets).
sys.dont_write_bytecode = True
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"


# `make test` runs two pytest-xdist workers (`--dist loadgroup`). A module's tests stay together
# on one worker, so its module fixtures (every snippet's bare run, a broken book built once)
# run once; the browser tests, which share only the session's site and browser, are spread
# over both (a group of them that shares a sweep of some pages names its own group: the
# accessibility tests). Without xdist the marker is inert.
SPREAD_MODULES = {"test_browser", "test_accessibility", "test_accessibility_own"}


# tryfirst: pytest-xdist reads the groups in its own pytest_collection_modifyitems; a conftest's hook,
# registered before xdist's worker plugin, would otherwise run after it and group nothing.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__
        if module not in SPREAD_MODULES:
            item.add_marker(pytest.mark.xdist_group(module))


def cli_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SCRIPTS) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra)
    return env


def run_cli(*args: str, root: Path | None = None, cwd: Path | None = None, timeout: float = 600, **extra: str) -> subprocess.CompletedProcess:
    """``python -m kernelbook ARGS`` in a child process, as a user would run it in ``root`` (the book's folder)."""
    return subprocess.run(
        [sys.executable, "-m", "kernelbook", *args],
        cwd=cwd or root or ROOT, env=cli_env(**extra),
        capture_output=True, text=True, timeout=timeout,
    )


@functools.cache
def book_settings(root: Path = ROOT):
    """The book's settings (``kernelbook.site.settings``), from its mkdocs.yml as MkDocs loads it."""
    from kernelbook.site.settings import load

    return load(root)[1]


def process_gone(pid: int) -> bool:
    """No such process, or one killed and waiting to be reaped by whoever adopted it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def make_project(root: Path) -> Path:
    """A bare kernelbook tree: pyproject.toml, snippets/, docs/."""
    write(root / "pyproject.toml", '[project]\nname = "tmpbook"\nversion = "0"\n')
    write(root / "docs" / "index.md", "# A page\n")
    (root / "snippets").mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture(scope="session")
def real_traces() -> Path:
    for name in (SIMPLE_ADD, BIG_TRACE, "LICENSE.HolisticTraceAnalysis"):
        assert (REAL_TRACES / name).is_file(), f"{REAL_TRACES / name} is missing: it is part of the checkout"
    return REAL_TRACES


# Eager (a + b).relu() and its torch.compile'd form profiled on the CPU, exported as
# Chrome traces. Runs in a child process so torch never loads into the test process.
_CPU_TRACES = """
import os
import sys

# Triton's interpreter runs the one Triton kernel below on the CPU. It is switched on before
# anything imports triton (torch._inductor.config does), as chapter 4's snippets do.
os.environ["TRITON_INTERPRET"] = "1"

import torch
import torch._inductor.config as inductor_config
import triton
import triton.language as tl
from torch.profiler import ProfilerActivity, profile, record_function

inductor_config.cpp.enable_kernel_profile = True
out = sys.argv[1]


def add_relu(a, b):
    return (a + b).relu()


a, b = torch.randn(4096), torch.randn(4096)
i = torch.arange(4096)
m = torch.randn(64, 64)


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(c_ptr + offsets, tl.load(a_ptr + offsets, mask=mask) + tl.load(b_ptr + offsets, mask=mask), mask=mask)


def interpreted_launch():
    # what a snippet does around a Triton launch under TRITON_INTERPRET=1: the
    # interpreter's own work (host copies of the arguments) shows up as aten ops inside the range
    out = torch.empty_like(a)
    with record_function("triton: add_kernel"):
        add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, out, a.numel(), BLOCK=1024)
    return out

cases = {
    "eager": lambda: add_relu(a, b),
    "compiled": (lambda fn: lambda: fn(a, b))(torch.compile(add_relu)),
    # Ops that prepare their own arguments or output inside themselves:
    "add_scalar": lambda: a + 1,  # aten::add -> aten::to -> aten::_to_copy -> aten::copy_
    "sum": lambda: a.sum(),  # aten::sum -> aten::sum -> aten::fill_
    "where": lambda: torch.where(a > 0, a, 0.0),  # aten::gt, aten::where -> aten::scalar_tensor
    "convert": lambda: i.float(),  # aten::to -> aten::_to_copy -> aten::copy_: one conversion
    "mm": lambda: torch.mm(m, m.t()),  # aten::mm calls aten::resolve_conj on its inputs: metadata only
    "triton": interpreted_launch,  # one launch of add_kernel, not two copies
}
for name, fn in cases.items():
    fn()  # warm-up, and compilation for the compiled one
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    prof.export_chrome_trace(f"{out}/{name}.json")
assert torch.equal(interpreted_launch(), a + b), "the interpreted kernel did not add"
"""


@pytest.fixture(scope="session")
def cpu_traces(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("cpu-traces")
    script = out / "make_traces.py"
    script.write_text(_CPU_TRACES, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True,
                          timeout=600, env=cli_env(CUDA_VISIBLE_DEVICES=""))
    assert done.returncode == 0, done.stderr[-3000:]
    return {name: out / f"{name}.json" for name in ("eager", "compiled", "add_scalar", "sum", "where", "convert", "mm", "triton")}


# ---------------------------------------------------------------- the built site

MKDOCS_ENV = {"NO_MKDOCS_2_WARNING": "1"}
# The book built through MkDocs' Python API, as `kernelbook build` does, with the
# plugin's options set on top of mkdocs.yml's (here: its cache in a temporary folder).
_BUILD = """
import json, sys
from pathlib import Path
from kernelbook.site.commands import build
sys.exit(build(Path(sys.argv[1]), Path(sys.argv[2]), plugin=json.loads(sys.argv[3])))
"""


def mkdocs_build(project: Path, site_dir: Path, timeout: float = 600, cache_dir: Path | None = None,
                 read_only: bool = False) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of ``project`` into ``site_dir``, as ``kernelbook build`` does.

    ``cache_dir``: the plugin's cache (default: the project's own ``.kernelbook/cache``);
    ``read_only``: the plugin writes nothing into docs/ (as ``kernelbook build --no-capture``).
    """
    if cache_dir is None and not read_only:
        cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    else:
        options = {"read_only": read_only} | ({"cache_dir": str(cache_dir)} if cache_dir else {})
        cmd = [sys.executable, "-c", _BUILD, str(project), str(site_dir), json.dumps(options)]
    return subprocess.run(cmd, cwd=project, env=cli_env(**MKDOCS_ENV), capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site, built once per test session from what is committed, writing nothing into the checkout:
    the site and the plugin's caches go to temporary folders, and with ``read_only`` a notebook out of date
    fails the build instead of being rewritten in docs/."""
    site = tmp_path_factory.mktemp("site")
    done = mkdocs_build(ROOT, site, cache_dir=tmp_path_factory.mktemp("cache"), read_only=True)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return site


def copy_project(dest: Path) -> Path:
    """A throwaway copy of the book (pages, snippets, captures, config, package) to break on purpose."""
    import shutil

    for name in ("docs", "snippets", "scripts"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy2(ROOT / name, dest / name)
    return dest


# ---------------------------------------------------------------- a browser on the built site

CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep pytest's output clean
        pass


@contextlib.contextmanager
def serving(folder: Path):
    """``folder`` on http://127.0.0.1:<free port> while the block runs; yields that URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def site_url(built_site: Path):
    """The built site on http://127.0.0.1:<free port>, for the whole session."""
    with serving(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def based_url(built_site: Path, tmp_path_factory):
    """The built site served under its base path, /kernelbook/ (a link to it from an empty root)."""
    site_url = re.search(r"^site_url:\s*(\S+)", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    base = urlsplit(site_url.group(1)).path.strip("/") if site_url else ""
    if not base:
        with serving(built_site) as url:
            yield url
        return
    root = tmp_path_factory.mktemp("served")
    (root / base).symlink_to(built_site, target_is_directory=True)
    with serving(root) as url:
        yield f"{url}/{base}"


@pytest.fixture(scope="session")
def browser():
    """One Debian Chromium for the session (Playwright's sync API allows one per process)."""
    if CHROMIUM is None:
        pytest.skip("no `chromium` on PATH (Debian: apt-get install chromium); never `playwright install`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def _real_books_spec_file():
    """Each test starts reading this repository's docs/gpu_specs.yml: loading another book's mkdocs.yml in-process
    points [[kb:spec]] at that book's file (gpu_specs.use_book), which must not leak into the next test."""
    from kernelbook.site.figures import gpu_specs

    gpu_specs._book_docs = None
    yield
    gpu_specs._book_docs = None
