"""``kernelbook edition``: publish, list and delete editions with mike, on the gh-pages branch.

mike builds the book with ``mkdocs.editions.yml`` (mkdocs.yml and Material's version
selector) into a folder named for the edition on the branch, and keeps ``versions.json``
beside them, which the selector reads from the site itself. A frozen edition (``2026.12``)
is published once: publishing it again is refused, so a later push never rebuilds what a
course links to. ``latest`` (from ``main``) is rebuilt every time, and the site's root
redirects to it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ..errors import KernelbookError
from .editions import LATEST, edition_name

CONFIG = "mkdocs.editions.yml"
_MIKE = "import sys; from mike.driver import main; sys.argv[0] = 'mike'; sys.exit(main())"  # mike has no __main__
BRANCH = "gh-pages"


def _mike(root: Path, args: list[str], edition: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # mike runs `mkdocs` from PATH: the one installed beside this Python, with kernelbook's plugin
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    if edition is not None:
        env["NO_MKDOCS_2_WARNING"] = env.get("NO_MKDOCS_2_WARNING", "1")
    try:
        return subprocess.run([sys.executable, "-c", _MIKE, *args], cwd=root, env=env, text=True, capture_output=True,
                              timeout=3600)
    except FileNotFoundError:
        raise KernelbookError("mike could not be started: pip install -e '.[publish]'") from None


def _failed(what: str, done: subprocess.CompletedProcess) -> KernelbookError:
    said = (done.stderr or done.stdout).strip().splitlines()
    if any("No module named mike" in line for line in said):
        return KernelbookError("mike is not installed: pip install -e '.[publish]'")
    return KernelbookError(f"{what} failed (mike exited {done.returncode}): {said[-1] if said else 'no message'}")


def published(root: Path, branch: str = BRANCH) -> list[dict]:
    """mike's versions.json on ``branch``: every edition published there ([] before the first)."""
    done = _mike(root, ["list", "--json", "-b", branch])
    if done.returncode != 0:
        if "not found" in (done.stderr + done.stdout).lower() or not (done.stdout.strip()):
            return []
        raise _failed(f"listing the editions on {branch}", done)
    try:
        return json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        raise KernelbookError(f"mike list gave no JSON for the branch {branch}: {done.stdout[:200]!r}") from None


def publish(root: Path, name: str, *, push: bool = False, remote: str = "origin", branch: str = BRANCH) -> str:
    """Build and commit one edition to ``branch`` (and push it); a line saying what was done."""
    try:
        name = edition_name(name)
    except ValueError as exc:
        raise KernelbookError(str(exc)) from None
    if not (root / CONFIG).is_file():
        raise KernelbookError(f"{root / CONFIG}: missing; it adds Material's version selector to mkdocs.yml for editions")
    versions = published(root, branch)
    if name != LATEST and any(v.get("version") == name for v in versions):
        raise KernelbookError(f"edition {name} is already published on {branch} and is never rebuilt; "
                              f"to replace it on purpose, delete it first (kernelbook edition delete {name})")
    git = ["-r", remote, "-b", branch] + (["--push"] if push else [])
    title = name if name == LATEST else f"{name}"
    done = _mike(root, ["deploy", "-F", CONFIG, *git, "-t", title, "-m", f"edition {name}", name], edition=name)
    if done.returncode != 0:
        raise _failed(f"publishing edition {name}", done)
    # The site's root goes to latest; until latest exists, to the first edition published.
    if name == LATEST or not versions:
        done = _mike(root, ["set-default", "-F", CONFIG, *git, "-m", f"the site's root goes to {name}", name])
        if done.returncode != 0:
            raise _failed(f"making {name} the site's default", done)
    return f"published edition {name} on {branch}" + (f" and pushed it to {remote}" if push else " (not pushed)")


def delete(root: Path, name: str, *, push: bool = False, remote: str = "origin", branch: str = BRANCH) -> str:
    if not any(v.get("version") == name for v in published(root, branch)):
        raise KernelbookError(f"no edition {name!r} on {branch}: `kernelbook edition list` names the published ones")
    done = _mike(root, ["delete", "-r", remote, "-b", branch, *(["--push"] if push else []), name])
    if done.returncode != 0:
        raise _failed(f"deleting edition {name}", done)
    return f"deleted edition {name} from {branch}" + (f" and pushed that to {remote}" if push else " (not pushed)")


def listing(root: Path, branch: str = BRANCH) -> str:
    versions = published(root, branch)
    if not versions:
        return f"no edition is published on {branch} yet\n"
    return "".join(f"{v['version']}{' (' + ', '.join(v['aliases']) + ')' if v.get('aliases') else ''}\n" for v in versions)
