"""How `make test` shares the suite between its two workers: what the module fixtures count on.

conftest.py puts each module's tests (but the browser modules') in one pytest-xdist group, so that
a module fixture (every snippet's bare run, a broken book built once) runs on one worker only;
the accessibility sweep's tests name their own groups. Two things have silently undone that: a
conftest hook that ran after xdist's own had read the groups, and pytest 9.2, with which xdist
3.8's ``--dist loadgroup`` groups nothing (pytest-xdist#1386). Both show here.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import ROOT, cli_env


def test_a_modules_tests_run_on_one_worker_under_make_tests_options():
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider",
                           "-k", "not browser", "tests/test_minify.py"], cwd=ROOT, env=cli_env(PYTHONDONTWRITEBYTECODE="1"),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = re.findall(r"^\[(gw\d)\] .*?PASSED (.+?) *$", done.stdout, re.M)
    assert len(ran) > 5, done.stdout[-3000:]
    assert all(test.endswith("@test_minify") for _, test in ran), f"not grouped (pytest {pytest.__version__}):\n" + done.stdout[-2000:]
    assert len({worker for worker, _ in ran}) == 1, f"one module's tests ran on two workers:\n{done.stdout[-2000:]}"

