"""The README, CONTRIBUTING.md and guide/*.md: short where a newcomer starts, and every link between them resolves.

Anchors are GitHub's heading slugs, computed from the headings themselves, so a renamed or
moved heading fails here rather than leaving a dead link.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "guide").glob("*.md"))]

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, punctuation but - and _ removed, spaces to -."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading counts by its text
    text = text.lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for match in LINK.finditer(INLINE_CODE.sub("", line)):
            found.append((number, match.group(1)))
    return found


def test_slugs_are_githubs():
    assert slug("Reviewing a capture refresh: `kernelbook diff`") == "reviewing-a-capture-refresh-kernelbook-diff"
    assert slug("What the harness does, and does not do, to a run") == "what-the-harness-does-and-does-not-do-to-a-run"
    assert slug("The `kernelbook` command") == "the-kernelbook-command"
    assert slug("Captures: `HEAD` → `working tree`") == "captures-head--working-tree"
    assert slug("Editions for a course") == "editions-for-a-course"


def test_the_documents_exist():
    assert (ROOT / "guide").is_dir() and len(DOCUMENTS) > 3
    assert all(path.is_file() for path in DOCUMENTS)


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(path):
    broken = []
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not ours to check offline
            continue
        file_part, _, anchor = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(ROOT)}:{number}: ({target})"
        if not destination.exists():
            broken.append(f"{where}: no such file or folder")
        elif anchor:
            if destination.suffix != ".md":
                broken.append(f"{where}: an anchor into a file that is not Markdown")
            elif anchor not in anchors(destination):
                broken.append(f"{where}: {destination.relative_to(ROOT)} has no heading with the anchor #{anchor}")
    assert not broken, "\n".join(broken)


def test_every_guide_is_linked_from_contributing_and_the_readme():
    for index in ("README.md", "CONTRIBUTING.md"):
        targets = {(ROOT / target.partition("#")[0]).resolve() for _, target in links(ROOT / index)}
        missing = [p.name for p in DOCUMENTS[2:] if p.resolve() not in targets]
        assert not missing, f"{index} does not link {missing}"


def test_the_readme_is_short_and_starts_with_the_two_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move the detail into guide/"
    first_screen = "\n".join(lines[:40])
    assert "make site" in first_screen and "make test" in first_screen


def test_the_readme_lists_every_kernelbook_command():
    from kernelbook import cli

    commands = set(cli.parser()._subparsers._group_actions[0].choices)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    reference = (ROOT / "guide" / "commands.md").read_text(encoding="utf-8")
    rows = {name for name in commands if re.search(rf"^\| `kernelbook {name}\b", readme, re.M)}
    assert rows == commands
    assert all(re.search(rf"^\| `kernelbook {name}\b", reference, re.M) for name in commands)
