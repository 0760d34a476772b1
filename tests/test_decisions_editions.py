"""What the changes page shows, and which edition the site's root goes to (issue 47)."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

from conftest import write
from kernelbook.site.editions import history as editions, publishing
from kernelbook.site.prose import unrendered
from kernelbook.site.directives import instructors


def test_an_inserted_or_deleted_sentence_is_listed_not_only_a_replaced_one():
    old = {"a.md": "# A\n\n## One { #one }\n\nA. B.\n\n## Two { #two }\n\nD. E. F.\n"}
    new = {"a.md": "# A\n\n## One { #one }\n\nA. C. B.\n\n## Two { #two }\n\nD. F.\n"}
    found = {c.anchor: c for c in editions.section_changes(old, new)}
    assert (found["one"].status, found["one"].before, found["one"].after) == ("changed", (), ("C.",))  # inserted
    assert (found["two"].status, found["two"].before, found["two"].after) == ("changed", ("E.",), ())  # deleted


def test_a_changed_sentence_holding_a_claim_is_shown_as_text_never_as_a_directive():
    said = "It launches [[kb:launches ch01/count]] kernels."
    change = editions.SectionChange("ch01/index.md", "how-many", "How many [[kb:x]]", "changed", ("It launches 3 kernels.",), (said,))
    found = editions.EditionChanges("2026.12", "2026.06", (change,))
    out = editions.render(found, "en", lambda rel: "../" + rel)
    assert "It launches &#91;&#91;kb:launches ch01/count]] kernels." in out and "How many &#91;&#91;kb:x]]" in out
    assert "[[kb:" not in out and unrendered.in_html(out) == []


def test_the_instructors_page_and_the_changes_page_share_one_escape():
    assert editions._safe is instructors._safe
    assert editions._safe('<a href="x">[[kb:run x]]</a>') == "&lt;a href=&quot;x&quot;&gt;&#91;&#91;kb:run x]]&lt;/a&gt;"


def _book(tmp_path: Path, cited: str) -> Path:
    write(tmp_path / publishing.CONFIG, "INHERIT: mkdocs.yml\n")
    write(tmp_path / "CITATION.cff", f'cff-version: 1.2.0\nversion: "{cited}"\n')
    return tmp_path


def _publish(monkeypatch, root: Path, name: str, already: list[str]) -> list[list[str]]:
    """``publish(name)`` with mike faked and ``already`` on the branch: mike's commands, in order.

    The git side (the branch checks, the publishing lock, the edition's tag) is stood in for: what is
    asserted is only which mike commands the decision on the site's root makes."""
    asked: list[list[str]] = []
    on_branch = list(already)

    def fake_mike(root, args, edition=None):
        asked.append(args)
        if args[0] == "deploy":
            on_branch.append(args[-1])
        return subprocess.CompletedProcess(args, 0, stdout="", stderr="")

    monkeypatch.setattr(publishing, "_mike", fake_mike)
    monkeypatch.setattr(publishing, "published", lambda root, branch="gh-pages", remote="origin":
                        [publishing.Published(v, v) for v in on_branch])
    monkeypatch.setattr(publishing, "_not_the_books_branch", lambda root, remote, branch: None)
    monkeypatch.setattr(publishing, "_at_its_tag", lambda root, name: None)
    monkeypatch.setattr(publishing, "_publishing", lambda root, what: contextlib.nullcontext())
    publishing.publish(root, name)
    return asked


def test_the_first_frozen_edition_published_becomes_the_sites_root(tmp_path, monkeypatch):
    root = _book(tmp_path, "2026.06")
    asked = _publish(monkeypatch, root, "2026.06", [])
    assert [a[0] for a in asked] == ["deploy", "set-default"] and asked[1][-1] == "2026.06"
    write(root / "CITATION.cff", 'cff-version: 1.2.0\nversion: "2026.12"\n')
    assert [a[0] for a in _publish(monkeypatch, root, "2026.12", ["2026.06"])] == ["deploy"]  # the root stays on the first
    latest = _publish(monkeypatch, root, "latest", ["2026.06", "2026.12"])
    assert [a[0] for a in latest] == ["deploy", "set-default"] and latest[1][-1] == "latest"  # until latest exists
