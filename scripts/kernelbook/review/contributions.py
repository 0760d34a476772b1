"""The captures a change adds or replaces: each must be one the build shows.

A capture that goes stale on ``main`` is left out of the pages and reported, never an
error (only its GPU can refresh it). A pull request that *brings* a capture is different:
what it adds must be readable and a record of the snippet as it now is, or the reviewer
would merge a file the book never shows. ``kernelbook status --changed-since REF`` (the
CPU workflow runs it on pull requests) checks exactly the capture files changed since REF.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..safety.errors import KernelbookError
from ..common.freshness import assess
from ..common.snippets import CAPTURE_DIR, discover


def base_commit(root: Path, since: str) -> str:
    """The one commit ``since`` names, never read as an option or a range; else KernelbookError.

    An empty ``since`` is refused, not skipped: an unset CI variable would pass every pull request.
    """
    if not since.strip():
        raise KernelbookError("--changed-since is empty: name the git ref the pull request is compared with "
                              "(in CI, is BASE_REF set, and the base branch fetched?)")
    if since.startswith("-") or ".." in since:
        raise KernelbookError(f"--changed-since {since!r}: name one commit (a branch, tag or hash), never an option or a "
                              "range: the working tree, uncommitted captures included, is compared with that commit")
    done = _run(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{since}^{{commit}}")
    if done.returncode != 0:
        raise KernelbookError(f"--changed-since {since!r}: git cannot compare with it (no such commit in this clone); "
                              "name a commit or branch it has (in CI, fetch the base branch first)")
    return done.stdout.strip()


def changed_capture_files(root: Path, since: str) -> list[str]:
    """Capture files (``snippets/<ch>/captures/*.json``) added, changed or turned into another kind of file (a link)
    since the commit ``since`` names, committed or not (a new file not yet added to git included)."""
    base = base_commit(root, since)
    # --relative: paths from the book's folder, as ls-files gives them, where the book is not the repository's top
    changed = _git(root, since, "diff", "--name-only", "--relative", "--no-renames", "--diff-filter=AMT", base, "--", "snippets")
    untracked = _git(root, since, "ls-files", "--others", "--exclude-standard", "--", "snippets")
    return sorted(p for p in {*changed, *untracked} if p.endswith(".json") and Path(p).parent.name == CAPTURE_DIR)


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise KernelbookError("git is not installed: --changed-since compares with a git ref") from None


def _git(root: Path, since: str, *args: str) -> list[str]:
    done = _run(root, *args)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise KernelbookError(f"--changed-since {since}: git cannot compare with it ({said[-1] if said else 'no message'}); "
                              "name a commit or branch this clone has (in CI, fetch the base branch first)")
    return done.stdout.splitlines()


def problems(root: Path, since: str, runnable: tuple[str, ...], torch_now: str | None) -> list[str]:
    """One line per changed capture the build would not show (unreadable, or a record of another version)."""
    changed = changed_capture_files(root, since)
    if not changed:
        return []
    by_path = {}
    for snippet in discover(root):
        for path in snippet.path.parent.joinpath(CAPTURE_DIR).glob(f"{snippet.path.stem}.*.json"):
            by_path[path.relative_to(root).as_posix()] = (snippet, path.name[len(snippet.path.stem) + 1:-len(".json")])
    found = []
    for name in changed:
        if (root / name).is_symlink():
            found.append(f"{name}: a symbolic link; a capture is a regular file, written by `kernelbook capture` "
                         "(commit the file itself)")
            continue
        if name not in by_path:
            found.append(f"{name}: no snippet of this book has a capture of that name (snippets/<ch>/<name>.py is "
                         "captured as <name>.cpu.json or <name>.cuda-<gpu key>.json)")
            continue
        snippet, slot_name = by_path[name]
        st = assess(root, snippet, slot_name, runnable, torch_now, failures=False)
        if st.state == "unreadable" or not st.true_of_source:
            found.append(f"{name}: {st.state}" + (f" ({st.reason})" if st.reason else "")
                         + f"; re-capture it from this version of {snippet.id} (guide/gpu.md)")
    return found
