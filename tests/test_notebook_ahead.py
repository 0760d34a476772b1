"""Notebook pages converted ahead in a forked child (notebook_ahead.py): the entries a page would write, in order;
the build waits for what the child is converting, converts itself what the child has not come to yet and what a
failed child left, kills it on failure.

Each test runs in a fresh interpreter: pytest's own workers run threads, and a process with threads never forks."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import MKDOCS_ENV, ROOT, cli_env

pytestmark = pytest.mark.skipif(sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2,
                                reason="the build converts ahead only on Linux with two cores or more")

CHILD = r'''
import json, os, sys, threading, time
from pathlib import Path
from kernelbook.site.notebooks import ahead as notebook_ahead

tmp = Path(sys.argv[1])
report = {}
order = tmp / "order"
held = os.open(tmp, os.O_RDONLY)  # stands for the book's lock: the child must not keep it

def convert(source):  # as notebook_cache writes an entry: whole, then renamed into place
    time.sleep(0.3)
    if source.name == "broken":
        raise RuntimeError("nbconvert broke")
    fds = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{fd}")]
    with order.open("a") as f:
        f.write(source.name + " " + str(fds.count(str(tmp))) + "\n")
    part = tmp / (source.name + ".part")
    part.write_text(source.name)
    os.replace(part, tmp / (source.name + ".json"))

(tmp / "b.json").write_text("already there")
ahead = notebook_ahead.start(convert, {"theme": "light"}, close=(held, None))
report["forked"] = ahead is not None and ahead.pid != os.getpid()
ahead.ask([(tmp / n, tmp / (n + ".json")) for n in ("c", "a", "b")])
report["a_not_waited_for"] = ahead.wait_for(tmp / "a.json")  # the child is on c: the page converts a itself
(tmp / "a.json").write_text("a by its page")
report["waits_for_c"] = ahead.wait_for(tmp / "c.json")  # the child is on it
report["c_written"] = (tmp / "c.json").read_text()
report["not_asked"] = ahead.wait_for(tmp / "b.json")  # written before: never asked of the child
report["asked_once"] = ahead.wait_for(tmp / "c.json")  # a page took it: the next build reads it from the cache
ahead.ask([(tmp / "broken", tmp / "broken.json"), (tmp / "d", tmp / "d.json")])  # later jobs, as a serve rebuild's
report["failed_job_answered"] = ahead.wait_for(tmp / "broken.json") and not (tmp / "broken.json").exists()
report["next_job_done"] = ahead.wait_for(tmp / "d.json") and (tmp / "d.json").exists()
ahead.finish()
report["order"] = [line.split()[0] for line in order.read_text().splitlines()]
report["lock_in_child"] = int(order.read_text().split()[1])
report["lock_in_parent"] = os.readlink(f"/proc/self/fd/{held}") == str(tmp)
report["status"] = ahead.status

ahead = notebook_ahead.start(convert, {}, close=(held, None))  # while a page waits, the build takes the last job
ahead.ask([(tmp / n, tmp / (n + ".json")) for n in ("x", "y", "z")])
report["waits_for_x"] = ahead.wait_for(tmp / "x.json") and (tmp / "x.json").exists()
report["z_written"] = (tmp / "z.json").exists()
report["y_and_z_waited"] = ahead.wait_for(tmp / "y.json") and ahead.wait_for(tmp / "z.json")
ahead.finish()
report["by"] = {line.split()[0]: int(line.split()[1]) for line in order.read_text().splitlines() if line.split()[0] in "xyz"}

ahead = notebook_ahead.start(lambda source: time.sleep(120), {})
ahead.ask([(tmp / "e", tmp / "e.json")])
started = time.perf_counter()
ahead.finish(kill=True)
report["killed_in_s"] = time.perf_counter() - started

ahead = notebook_ahead.start(lambda source: os._exit(3), {})  # a child that dies
ahead.ask([(tmp / "f", tmp / "f.json")])
report["dead_child_waited"] = ahead.wait_for(tmp / "f.json") and not (tmp / "f.json").exists()
ahead.finish()

other = threading.Event()
thread = threading.Thread(target=other.wait)
thread.start()
report["threads_never_fork"] = notebook_ahead.start(convert, {}) is None
other.set()
thread.join()
print(json.dumps(report))
'''


def test_the_child_converts_in_order_and_the_build_waits_for_it_takes_what_it_has_not_come_to_or_does_without_it(tmp_path):
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], env=cli_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["forked"]
    assert report["a_not_waited_for"] is False  # the child had not come to it: converted by its page
    assert report["waits_for_c"] and report["c_written"] == "c"  # waited for, then whole
    assert report["not_asked"] is False and report["asked_once"] is False
    assert report["failed_job_answered"] and report["next_job_done"]  # the page converts the failed one itself
    assert report["order"] == ["c", "d"] and report["status"] == 0  # in the order asked; a (its page's) and b skipped
    assert report["lock_in_parent"] and report["lock_in_child"] == 0  # the child does not keep the book's lock
    assert report["waits_for_x"] and report["z_written"] and report["y_and_z_waited"]
    assert report["by"] == {"x": 0, "y": 0, "z": 1}  # x and y by the child (no lock held), z by the build (it holds it)
    assert report["killed_in_s"] < 10
    assert report["dead_child_waited"] and report["threads_never_fork"]


SAME_ENTRY = r'''
import json, sys
from pathlib import Path
from mkdocs.config import load_config
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from kernelbook.site.caches import notebooks as notebook_cache

root, tmp = Path(sys.argv[1]), Path(sys.argv[2])
config = load_config(str(root / "mkdocs.yml"), site_dir=str(tmp / "site"))
jupyter = config.plugins["mkdocs-jupyter"]
uri = "en/ch01/notebook.ipynb"
renderers = notebook_cache.versions()

ahead = notebook_cache.start_ahead(jupyter, config, tmp / "ahead", renderers)
forked = ahead is not None
notebook_cache.ask_ahead(ahead, [root / "docs" / uri], jupyter, tmp / "ahead", renderers)
ahead.finish()

files = jupyter.on_files(Files([File(uri, config.docs_dir, config.site_dir, config.use_directory_urls)]), config)
page = Page(None, files.get_file_from_path(uri), config)  # the page itself, as MkDocs renders it
jupyter.on_pre_page(page, config=config, files=files)
notebook_cache.cache_render(page, tmp / "page", dict(jupyter.config), renderers, lambda *a: None)
page.render(config, files)

entries = {name: sorted((p.name, p.read_bytes().decode()) for p in (tmp / name).glob("*.json")) for name in ("ahead", "page")}
print(json.dumps({"forked": forked, "ahead": entries["ahead"], "page": entries["page"], "title": page.title}))
'''


def test_the_child_writes_the_entry_the_page_itself_would(tmp_path):
    done = subprocess.run([sys.executable, "-c", SAME_ENTRY, str(ROOT), str(tmp_path)], cwd=ROOT,
                          env=cli_env(**MKDOCS_ENV), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["forked"]
    assert len(report["ahead"]) == 1 and report["ahead"] == report["page"]  # same key, same bytes
    assert 'tabindex="0"' in json.loads(report["page"][0][1])["content"] and report["title"]
