"""``kernelbook edition``: publish, list and delete editions with mike, on the gh-pages branch.

mike builds the book with ``mkdocs.editions.yml`` (mkdocs.yml and Material's version
selector) into a folder named for the edition on the branch, and keeps ``versions.json``
beside them, which the selector reads from the site itself. A frozen edition (``2026.12``)
is published once, from its tag ``edition-2026.12`` in a clean tree: publishing it again is
refused, so a later push never rebuilds what a course links to. ``latest`` (from ``main``) is
rebuilt every time, and the site's root redirects to it.

mike reads ``versions.json`` before it builds and writes it after: two publishes at once
would each write the list they read. Every command that writes the branch holds the clone's
publishing lock (``flock`` on its git directory) from its first look at the list to its last
check of it, and a publish checks the list it left. Branch and remote names are checked
before git or mike sees them, the edition name is passed after ``--``, and mike commits
locally: the push (``--push``) is ours, after the check.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ...common.freshness import check_inputs
from ...safety import locks
from ...safety.errors import KernelbookError, printable
from ...safety.files import InputError, parse_json, read_bounded
from .history import LATEST, TAG_PREFIX, edition_name

CONFIG = "mkdocs.editions.yml"
_MIKE = "import sys; from mike.driver import main; sys.argv[0] = 'mike'; sys.exit(main())"  # mike has no __main__
BRANCH = "gh-pages"
PDF_ENV = "KERNELBOOK_PDF"
LOCK_NOTE = Path("kernelbook-publish.lock")  # in the clone's git directory: who is publishing
_REMOTE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # a remote's name as `git remote add` takes it
MAX_EDITIONS = 1000  # versions.json entries read
MAX_NAME = 200  # characters of a version, title or alias
MAX_CONFIG = 1 << 20  # bytes of CITATION.cff or pyproject.toml read


def _mike(root: Path, args: list[str], edition: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # mike runs `mkdocs` from PATH: the one installed beside this Python, with kernelbook's plugin
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    if edition is not None:
        env["NO_MKDOCS_2_WARNING"] = env.get("NO_MKDOCS_2_WARNING", "1")
        env.setdefault(PDF_ENV, "true")  # an edition serves its own PDFs (mkdocs.yml's `pdf: !ENV [KERNELBOOK_PDF, false]`)
    try:
        return subprocess.run([sys.executable, "-c", _MIKE, *args], cwd=root, env=env, text=True, capture_output=True,
                              timeout=3600)
    except FileNotFoundError:
        raise KernelbookError("mike could not be started: pip install -e '.[publish]'") from None


def _failed(what: str, done: subprocess.CompletedProcess) -> KernelbookError:
    said = (done.stderr or done.stdout).strip().splitlines()
    if any("No module named mike" in line for line in said):
        return KernelbookError("mike is not installed: pip install -e '.[publish]'")
    return KernelbookError(printable(f"{what} failed (mike exited {done.returncode}): "
                                     f"{said[-1] if said else 'mike said nothing; run it again with mike --debug'}"))


def _git_run(root: Path, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise KernelbookError("git is not installed: an edition is a tagged commit, published onto a git branch") from None


def _git(root: Path, *args: str) -> str:
    done = _git_run(root, *args)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise KernelbookError(printable(f"git {args[0]} failed in {root} (exit {done.returncode}): "
                                        f"{said[-1] if said else 'git said nothing'}"))
    return done.stdout


def _commit_of(root: Path, ref: str) -> str | None:
    """The commit ``ref`` names (``ref`` never read as an option), or None."""
    done = _git_run(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    return done.stdout.strip() if done.returncode == 0 else None


def check_where(root: Path, remote: str, branch: str) -> None:
    """``remote`` and ``branch`` are names git and mike read as names, never as options: else KernelbookError."""
    if not _REMOTE.fullmatch(remote):
        raise KernelbookError(f"--remote {remote!r} is not a git remote's name (letters, digits, '.', '_', '-', "
                              "not starting with '-'): `git remote` lists this clone's")
    if (not branch or branch.startswith("-") or len(branch) > MAX_NAME
            or _git_run(root, "check-ref-format", f"refs/heads/{branch}").returncode != 0):
        raise KernelbookError(f"--branch {branch!r} is not a branch name git takes (`git check-ref-format --branch`): "
                              f"the editions live on {BRANCH}, the default")


def _not_the_books_branch(root: Path, remote: str, branch: str) -> None:
    """Refuse a branch checked out in this clone, or one holding the book: mike would commit the built site onto it."""
    worktrees = _git(root, "worktree", "list", "--porcelain")
    if f"branch refs/heads/{branch}" in worktrees.splitlines():
        raise KernelbookError(f"--branch {branch} is checked out in this clone: mike would commit the built site onto the "
                              f"book's own source; publish to {BRANCH} (the default) or another branch of its own")
    prefix = _git(root, "rev-parse", "--show-prefix").strip()  # the book's folder inside the repository
    for ref in (f"refs/heads/{branch}", f"refs/remotes/{remote}/{branch}"):
        if _git_run(root, "cat-file", "-e", f"{ref}:{prefix}mkdocs.yml").returncode == 0:
            raise KernelbookError(f"--branch {branch} holds the book ({ref} has {prefix}mkdocs.yml): mike would commit "
                                  f"the built site onto its source; publish to {BRANCH} (the default) or another branch of its own")


@contextlib.contextmanager
def _publishing(root: Path, what: str) -> Iterator[None]:
    """Hold the clone's publishing lock: one command at a time reads and writes the branch's versions.json.

    Not the book's own lock (``locks``): the build mike starts takes that one, shared.
    """
    common = Path(_git(root, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())

    def waiting(holder: str) -> None:
        print(printable(f"waiting for {holder} to finish: it is publishing from this clone ({common})"),
              file=sys.stderr, flush=True)

    fd = locks.acquire(common, True, what, waiting, note=LOCK_NOTE)
    try:
        yield
    finally:
        locks.release(fd)


@dataclass(frozen=True)
class Published:
    """One entry of mike's versions.json: an edition on the branch."""

    version: str
    title: str
    aliases: tuple[str, ...] = ()


def parse_versions(text: str, where: str) -> list[Published]:
    """versions.json as mike writes it (a list of {version, title, aliases}), each string bounded; else KernelbookError."""
    def bad(what: str) -> KernelbookError:
        return KernelbookError(f"{where}: {what}; it is not versions.json as mike writes it: "
                               f"repair the branch (`git log {where.split(':')[0]} -- versions.json`) before publishing")

    try:
        raw = parse_json((text or "[]").encode("utf-8"), where)  # the one strict JSON reader: no NaN, no deep nesting
    except InputError:
        raise bad("not valid JSON") from None
    if not isinstance(raw, list) or len(raw) > MAX_EDITIONS:
        raise bad(f"not a list of at most {MAX_EDITIONS} editions")
    out = []
    for i, entry in enumerate(raw, 1):
        if not isinstance(entry, dict):
            raise bad(f"entry {i} is not an object")
        version, title, aliases = entry.get("version"), entry.get("title", entry.get("version")), entry.get("aliases", [])
        if not isinstance(version, str) or not version or len(version) > MAX_NAME:
            raise bad(f"entry {i} has no version (a string of at most {MAX_NAME} characters)")
        if not isinstance(title, str) or len(title) > MAX_NAME:
            raise bad(f"entry {i}'s title is not a string of at most {MAX_NAME} characters")
        if (not isinstance(aliases, list) or len(aliases) > 100
                or not all(isinstance(a, str) and 0 < len(a) <= MAX_NAME for a in aliases)):
            raise bad(f"entry {i}'s aliases are not a list of names")
        out.append(Published(version, title, tuple(aliases)))
    return out


def published(root: Path, branch: str = BRANCH, remote: str = "origin") -> list[Published]:
    """mike's versions.json on ``branch`` (mike also looks at ``remote``'s copy): every edition published there."""
    check_where(root, remote, branch)
    if _commit_of(root, f"refs/heads/{branch}") is None:
        return []  # no edition published from here yet (in CI, the workflow fetches the branch first)
    done = _mike(root, ["list", "--json", "-r", remote, "-b", branch])
    if done.returncode != 0:
        raise _failed(f"listing the editions on {branch}", done)
    return parse_versions(done.stdout, f"{branch}:versions.json")


def _default(root: Path, branch: str) -> str | None:
    """The edition the site's root redirects to (mike's index.html on ``branch``), or None without one."""
    done = _git_run(root, "show", f"refs/heads/{branch}:index.html")
    found = re.search(r"url=([^\"'\s>]+)", done.stdout) if done.returncode == 0 else None
    return found.group(1).strip("/") if found else None


def _push(root: Path, remote: str, branch: str) -> None:
    _git(root, "push", "--quiet", remote, f"refs/heads/{branch}:refs/heads/{branch}")


def _frozen_name(name: str) -> str:
    try:
        name = edition_name(name)
    except ValueError as exc:
        raise KernelbookError(str(exc)) from None
    if name == LATEST:
        raise KernelbookError(f"{LATEST} is published from main, never cut: name a frozen edition YYYY.MM (e.g. 2026.12)")
    return name


def _config_text(path: Path) -> str:
    """A config file the edition's version is kept in (a regular file, bounded, UTF-8); else KernelbookError."""
    try:
        return read_bounded(path, MAX_CONFIG, gzipped=False).decode("utf-8")
    except InputError as exc:
        raise KernelbookError(f"{exc}: the edition's version is kept in it; make it a plain text file") from None
    except UnicodeDecodeError as exc:
        raise KernelbookError(f"{path}: not UTF-8 (byte {exc.start}): save it as UTF-8") from None


def citation_version(root: Path) -> str | None:
    """The version CITATION.cff gives, unquoted; None without the file or the key."""
    path = root / "CITATION.cff"
    if not path.exists() and not path.is_symlink():
        return None
    found = re.search(r"^version:\s*(.+?)\s*$", _config_text(path), re.M)
    return found.group(1).strip("\"'") if found else None


def cut(root: Path, name: str, today: datetime.date | None = None) -> str:
    """Make the edition: CITATION.cff and pyproject.toml carry ``name`` as the version, committed and tagged."""
    name = _frozen_name(name)
    tag = f"{TAG_PREFIX}{name}"
    if _git(root, "tag", "--list", "--", tag).strip():
        raise KernelbookError(f"the tag {tag} already exists: an edition is cut once (git show {tag})")
    if _git(root, "status", "--porcelain", "--untracked-files=no").strip():
        raise KernelbookError("the working tree has uncommitted changes: commit them first, so the edition is what is committed")
    day = (today or datetime.date.today()).isoformat()
    edited, before = [], {}
    citation = root / "CITATION.cff"
    if citation.exists() or citation.is_symlink():
        text = before["CITATION.cff"] = _config_text(citation)
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
    if pyproject.exists() or pyproject.is_symlink():
        text = before["pyproject.toml"] = _config_text(pyproject)
        text, n = re.subn(r'(?m)^(version\s*=\s*)"[^"]*"', f'\\g<1>"{name}"', text, count=1)
        if n:
            pyproject.write_text(text, encoding="utf-8")
            edited.append("pyproject.toml")
    if edited:
        try:
            _git(root, "add", "--", *edited)
            _git(root, "commit", "-q", "-m", f"Edition {name}: {' and '.join(edited)} carry it as the version", "--", *edited)
        except KernelbookError as exc:
            # as it was: nothing staged, the files as committed (cut began from a clean tree)
            _git_run(root, "reset", "-q", "--", *edited)
            for rel, text in before.items():
                (root / rel).write_text(text, encoding="utf-8")
            raise KernelbookError(f"{exc}; edition {name} was not cut ({' and '.join(edited)} are as they were): "
                                  "fix what stopped the commit (a hook, user.name/user.email) and cut again") from None
    _git(root, "tag", "-a", tag, "-m", f"kernelbook edition {name}")
    return (f"cut edition {name}: tag {tag} on {_git(root, 'rev-parse', '--short', 'HEAD').strip()}; publish it with "
            f"`git push origin HEAD {tag}` (the site-cpu workflow publishes a pushed edition tag) "
            f"or `kernelbook edition publish {name} --push`")


def _at_its_tag(root: Path, name: str) -> None:
    """A frozen edition is what its tag holds: HEAD is ``edition-NAME`` and the tree is clean (untracked files too)."""
    tag = f"{TAG_PREFIX}{name}"
    tagged = _commit_of(root, f"refs/tags/{tag}")
    if tagged is None:
        raise KernelbookError(f"there is no tag {tag}: cut the edition first (`kernelbook edition cut {name}`), "
                              "then publish it from that commit")
    head = _commit_of(root, "HEAD")
    if head != tagged:
        raise KernelbookError(f"HEAD ({(head or 'no commit')[:12]}) is not {tag} ({tagged[:12]}): a frozen edition is "
                              f"published from its tag; `git switch --detach {tag}` first")
    dirty = _git(root, "status", "--porcelain", "--untracked-files=all").splitlines()
    if dirty:
        raise KernelbookError(printable(f"the working tree differs from {tag} in {len(dirty)} path(s) (e.g. {dirty[0][3:]}): "
                                        "a frozen edition publishes what its tag holds; `git stash -u` (or clean the tree) first"))


def publish(root: Path, name: str, *, push: bool = False, remote: str = "origin", branch: str = BRANCH) -> str:
    """Build and commit one edition to ``branch`` (and push it); a line saying what was done."""
    try:
        name = edition_name(name)
    except ValueError as exc:
        raise KernelbookError(str(exc)) from None
    check_where(root, remote, branch)
    if not (root / CONFIG).is_file():
        raise KernelbookError(f"{root / CONFIG}: missing; it adds Material's version selector to mkdocs.yml for editions")
    _not_the_books_branch(root, remote, branch)
    with _publishing(root, f"kernelbook edition publish {name}"):
        versions = published(root, branch, remote)
        if name != LATEST and any(v.version == name for v in versions):
            raise KernelbookError(f"edition {name} is already published on {branch} and is never rebuilt; "
                                  f"to replace it on purpose, delete it first (kernelbook edition delete {name})")
        cited = citation_version(root)
        if name != LATEST and cited is not None and cited != name:
            raise KernelbookError(f"CITATION.cff gives version {cited}, not the edition {name}: "
                                  f"cut the edition with `kernelbook edition cut {name}`, which sets it and tags the commit")
        if name != LATEST:
            _at_its_tag(root, name)
        git = ["-r", remote, "-b", branch]
        done = _mike(root, ["deploy", "-F", CONFIG, *git, "-t", name, "-m", f"edition {name}", "--", name], edition=name)
        if done.returncode != 0:
            raise _failed(f"publishing edition {name}", done)
        # The site's root goes to latest; until latest exists, to the first edition published.
        if name == LATEST or not versions:
            done = _mike(root, ["set-default", "-F", CONFIG, *git, "-m", f"the site's root goes to {name}", "--", name])
            if done.returncode != 0:
                raise _failed(f"making {name} the site's default", done)
        after = {v.version for v in published(root, branch, remote)}
        lost = [v.version for v in versions if v.version not in after] + ([] if name in after else [name])
        if lost:
            raise KernelbookError(printable(
                f"{branch}:versions.json lost {', '.join(lost)} while edition {name} was published (another mike run "
                f"wrote the branch meanwhile?); nothing was pushed: restore versions.json from the commit before "
                f"(`git log {branch} -- versions.json`) and publish the lost edition again"))
        if push:
            _push(root, remote, branch)
    return f"published edition {name} on {branch}" + (f" and pushed it to {remote}" if push else " (not pushed)")


def delete(root: Path, name: str, *, push: bool = False, remote: str = "origin", branch: str = BRANCH) -> str:
    """Delete one edition from ``branch``; the site's root, if it went there, goes to latest or the newest left."""
    check_where(root, remote, branch)
    _not_the_books_branch(root, remote, branch)
    with _publishing(root, f"kernelbook edition delete {name}"):
        versions = published(root, branch, remote)
        if not any(v.version == name for v in versions):
            raise KernelbookError(printable(f"no edition {name!r} on {branch}: `kernelbook edition list` names the published ones"))
        others = [v.version for v in versions if v.version != name]
        moved = _default(root, branch) == name
        if moved and not others:
            raise KernelbookError(f"edition {name} is the only one on {branch} and the site's root goes to it: deleted, the "
                                  "root would redirect to a page that is gone; publish another edition first, then delete this one")
        git = ["-r", remote, "-b", branch]
        done = _mike(root, ["delete", *git, "-m", f"edition {name} deleted", "--", name])
        if done.returncode != 0:
            raise _failed(f"deleting edition {name}", done)
        if moved:
            target = LATEST if LATEST in others else max(others)
            done = _mike(root, ["set-default", *git, "-m", f"the site's root goes to {target}", "--", target])
            if done.returncode != 0:
                raise _failed(f"making {target} the site's default after deleting {name}", done)
        if push:
            _push(root, remote, branch)
    return (f"deleted edition {name} from {branch}" + (f"; the site's root now goes to {target}" if moved else "")
            + (f" and pushed that to {remote}" if push else " (not pushed)"))


def listing(root: Path, branch: str = BRANCH, remote: str = "origin") -> str:
    versions = published(root, branch, remote)
    if not versions:
        return f"no edition is published on {branch} yet\n"
    return "".join(printable(f"{v.version}{' (' + ', '.join(v.aliases) + ')' if v.aliases else ''}") + "\n" for v in versions)


def command(root: Path, action: str, name: str | None, *, push: bool, remote: str, branch: str) -> str:
    """``kernelbook edition ACTION [NAME]``: what it did, as the lines to print."""
    if action == "list":
        return listing(root, branch, remote)
    if not name:
        raise KernelbookError(f"kernelbook edition {action}: name the edition (YYYY.MM, e.g. 2026.12, or latest)")
    if action == "cut":
        return cut(root, name) + "\n"
    if action == "delete":
        return delete(root, name, push=push, remote=remote, branch=branch) + "\n"
    check_inputs(root)  # a stale or broken capture: one line now, not a failed build inside mike
    return publish(root, name, push=push, remote=remote, branch=branch) + "\n"
