"""``kernelbook edition``: publish, list and delete editions with mike, on the gh-pages branch.

mike builds the book with ``mkdocs.editions.yml`` (mkdocs.yml and Material's version
selector) into a folder named for the edition on the branch, and keeps ``versions.json``
beside them, which the selector reads from the site itself. A frozen edition (``2026.12``)
is published once: publishing it again is refused, so a later push never rebuilds what a
course links to. ``latest`` (from ``main``) is rebuilt every time, and the site's root
redirects to it.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from ..errors import KernelbookError
from .editions import LATEST, TAG_PREFIX, edition_name

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


def published(root: Path, branch: str = BRANCH, remote: str = "origin") -> list[dict]:
    """mike's versions.json on ``branch`` (mike also looks at ``remote``'s copy): every edition published there."""
    try:
        there = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"],
                               capture_output=True, timeout=60).returncode == 0
    except FileNotFoundError:
        raise KernelbookError("git is not installed: mike keeps the editions on a git branch") from None
    if not there:
        return []  # no edition published from here yet (in CI, the workflow fetches the branch first)
    done = _mike(root, ["list", "--json", "-r", remote, "-b", branch])
    if done.returncode != 0:
        raise _failed(f"listing the editions on {branch}", done)
    try:
        return json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        raise KernelbookError(f"mike list gave no JSON for the branch {branch}: {done.stdout[:200]!r}") from None


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise KernelbookError("git is not installed: an edition is a tagged commit") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise KernelbookError(f"git {args[0]} failed in {root}: {said[-1] if said else 'no message'}")
    return done.stdout


def _frozen_name(name: str) -> str:
    try:
        name = edition_name(name)
    except ValueError as exc:
        raise KernelbookError(str(exc)) from None
    if name == LATEST:
        raise KernelbookError(f"{LATEST} is published from main, never cut: name a frozen edition YYYY.MM (e.g. 2026.12)")
    return name


def citation_version(root: Path) -> str | None:
    """The version CITATION.cff gives, unquoted; None without the file or the key."""
    path = root / "CITATION.cff"
    if not path.is_file():
        return None
    found = re.search(r"^version:\s*(.+?)\s*$", path.read_text(encoding="utf-8"), re.M)
    return found.group(1).strip("\"'") if found else None


def cut(root: Path, name: str, today: datetime.date | None = None) -> str:
    """Make the edition: CITATION.cff and pyproject.toml carry ``name`` as the version, committed and tagged."""
    name = _frozen_name(name)
    tag = f"{TAG_PREFIX}{name}"
    if _git(root, "tag", "--list", tag).strip():
        raise KernelbookError(f"the tag {tag} already exists: an edition is cut once (git show {tag})")
    if _git(root, "status", "--porcelain", "--untracked-files=no").strip():
        raise KernelbookError("the working tree has uncommitted changes: commit them first, so the edition is what is committed")
    day = (today or datetime.date.today()).isoformat()
    edited = []
    citation = root / "CITATION.cff"
    if citation.is_file():
        text = citation.read_text(encoding="utf-8")
        text, n = re.subn(r"^version:.*$", f'version: "{name}"', text, count=1, flags=re.M)
        if not n:
            raise KernelbookError(f"{citation}: no `version:` line to set the edition in")
        if re.search(r"^date-released:", text, re.M):
            text = re.sub(r"^date-released:.*$", f'date-released: "{day}"', text, count=1, flags=re.M)
        else:
            text = re.sub(r"^(version:.*)$", f'\\1\ndate-released: "{day}"', text, count=1, flags=re.M)
        citation.write_text(text, encoding="utf-8")
        edited.append("CITATION.cff")
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        text = pyproject.read_text(encoding="utf-8")
        text, n = re.subn(r'(?m)^(version\s*=\s*)"[^"]*"', f'\\g<1>"{name}"', text, count=1)
        if n:
            pyproject.write_text(text, encoding="utf-8")
            edited.append("pyproject.toml")
    if edited:
        _git(root, "add", "--", *edited)
        _git(root, "commit", "-q", "-m", f"Edition {name}: {' and '.join(edited)} carry it as the version", "--", *edited)
    _git(root, "tag", "-a", tag, "-m", f"kernelbook edition {name}")
    return (f"cut edition {name}: tag {tag} on {_git(root, 'rev-parse', '--short', 'HEAD').strip()}; publish it with "
            f"`git push origin HEAD {tag}` (the site-cpu workflow publishes a pushed edition tag) "
            f"or `kernelbook edition publish {name} --push`")


def publish(root: Path, name: str, *, push: bool = False, remote: str = "origin", branch: str = BRANCH) -> str:
    """Build and commit one edition to ``branch`` (and push it); a line saying what was done."""
    try:
        name = edition_name(name)
    except ValueError as exc:
        raise KernelbookError(str(exc)) from None
    if not (root / CONFIG).is_file():
        raise KernelbookError(f"{root / CONFIG}: missing; it adds Material's version selector to mkdocs.yml for editions")
    versions = published(root, branch, remote)
    if name != LATEST and any(v.get("version") == name for v in versions):
        raise KernelbookError(f"edition {name} is already published on {branch} and is never rebuilt; "
                              f"to replace it on purpose, delete it first (kernelbook edition delete {name})")
    cited = citation_version(root)
    if name != LATEST and cited is not None and cited != name:
        raise KernelbookError(f"CITATION.cff gives version {cited}, not the edition {name}: "
                              f"cut the edition with `kernelbook edition cut {name}`, which sets it and tags the commit")
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
    if not any(v.get("version") == name for v in published(root, branch, remote)):
        raise KernelbookError(f"no edition {name!r} on {branch}: `kernelbook edition list` names the published ones")
    done = _mike(root, ["delete", "-r", remote, "-b", branch, *(["--push"] if push else []), name])
    if done.returncode != 0:
        raise _failed(f"deleting edition {name}", done)
    return f"deleted edition {name} from {branch}" + (f" and pushed that to {remote}" if push else " (not pushed)")


def listing(root: Path, branch: str = BRANCH, remote: str = "origin") -> str:
    versions = published(root, branch, remote)
    if not versions:
        return f"no edition is published on {branch} yet\n"
    return "".join(f"{v['version']}{' (' + ', '.join(v['aliases']) + ')' if v.get('aliases') else ''}\n" for v in versions)
