"""The Japanese terminology sheet (docs/terminology.yml) holds in the Japanese prose.

Pure text, no build: the Markdown source of every page under docs/ja/, the Japanese fields of
docs/glossary.yml and the Japanese strings the plugin puts on pages (string literals in
scripts/kernelbook/site/, docstrings aside). What is not prose is masked first (blanked to
spaces, so a column stays a column): code blocks and inline code, URLs and link targets, HTML
tags, attribute lists, [[kb:...]] directives, an entry's ``except`` strings. Each test names
the file, the line and the form to write. guide/authors.md, "Japanese terminology and
typography", has the rules.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, write

SHEET = ROOT / "docs" / "terminology.yml"
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff5e]")
# What is not prose, in the order it is masked: fences first (a fenced line is code whatever it holds)
_FENCE = re.compile(r"^\s*(```|~~~)")
_NOT_PROSE = [
    re.compile(r"\[\[kb:.*?\]\]"),                 # directives: what they render is checked on the built page
    re.compile(r"(`+)(?:(?!\1).)+?\1"),            # inline code
    re.compile(r"\]\([^)]*\)"),                    # link targets (the link text stays)
    re.compile(r"https?://\S+"),                   # bare URLs
    re.compile(r"</?[A-Za-z][^>]*>"),              # HTML tags
    re.compile(r"\{\s*[#.:][^}]*\}"),              # attribute lists { #anchor .class }
]


@dataclass(frozen=True)
class Entry:
    id: str
    chosen: str
    en: str
    patterns: tuple[re.Pattern, ...]  # the literal variants as patterns too
    excepts: tuple[str, ...]
    examples: tuple[str, ...]  # the literal variants, and strings the patterns must catch
    fine: tuple[str, ...]
    checked: bool


@dataclass(frozen=True)
class Finding:
    where: str  # file:line
    entry: str
    found: str
    chosen: str

    def __str__(self) -> str:
        return f"{self.where}: 「{self.found}」 ({self.entry}): write {self.chosen}"


def read_sheet(path: Path = SHEET) -> tuple[Entry, ...]:
    """The sheet's entries; a malformed one fails here, naming it."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    known = {"id", "chosen", "en", "variants", "patterns", "except", "examples", "fine", "note", "checked"}
    entries = []
    for raw in data["entries"]:
        assert isinstance(raw, dict) and {"id", "chosen", "en"} <= raw.keys(), f"{path.name}: an entry lacks id/chosen/en: {raw}"
        assert not raw.keys() - known, f"{path.name}: {raw['id']}: unknown keys {sorted(raw.keys() - known)}"
        variants = tuple(raw.get("variants") or ())
        patterns = tuple(re.compile(re.escape(v)) for v in variants) + tuple(re.compile(p) for p in raw.get("patterns") or ())
        checked = raw.get("checked", True)
        assert checked == bool(patterns), f"{path.name}: {raw['id']}: an entry has variants or patterns unless `checked: false`"
        entries.append(Entry(raw["id"], raw["chosen"], raw["en"], patterns, tuple(raw.get("except") or ()),
                             variants + tuple(raw.get("examples") or ()), tuple(raw.get("fine") or ()), checked))
    ids = [e.id for e in entries]
    assert len(ids) == len(set(ids)), f"{path.name}: an id repeats: {sorted(i for i in ids if ids.count(i) > 1)}"
    return tuple(entries)


def _blank(match: re.Match) -> str:
    return " " * len(match.group(0))


def mask(line: str, extra: tuple[str, ...] = ()) -> str:
    """``line`` with what is not prose blanked."""
    for pattern in _NOT_PROSE:
        line = pattern.sub(_blank, line)
    for literal in extra:
        line = line.replace(literal, " " * len(literal))
    return line


def markdown_prose(text: str) -> list[tuple[int, str]]:
    """(line number, masked line) of a Markdown page's prose: fenced blocks skipped (the book writes
    no indented code blocks: its indented lines are admonitions' and tabs' prose)."""
    lines, fence = [], None
    for n, line in enumerate(text.splitlines(), 1):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        lines.append((n, mask(line)))
    return lines


def glossary_prose(text: str) -> list[tuple[int, str]]:
    """(line number, masked line) of the lines inside every ``ja:`` block of docs/glossary.yml."""
    lines, ja_indent = [], None
    for n, line in enumerate(text.splitlines(), 1):
        indent = len(line) - len(line.lstrip())
        if ja_indent is not None and line.strip() and indent <= ja_indent:
            ja_indent = None
        if re.match(r"\s*ja:\s*$", line):
            ja_indent = indent
        elif ja_indent is not None and not line.lstrip().startswith("#"):
            lines.append((n, mask(line)))
    return lines


def plugin_prose(text: str) -> list[tuple[int, str]]:
    """(line number, masked string) of each Japanese string literal in a module, docstrings aside."""
    tree = ast.parse(text)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, mask(re.sub(r"\{[a-z_0-9]*\}", _blank, node.value)))
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and JAPANESE.search(node.value)]


def check(lines: list[tuple[int, str]], where: str, entries: tuple[Entry, ...]) -> list[Finding]:
    found = []
    for n, line in lines:
        for entry in entries:
            text = mask(line, entry.excepts) if entry.excepts else line
            for pattern in entry.patterns:
                found += [Finding(f"{where}:{n}", entry.id, m.group(0), entry.chosen) for m in pattern.finditer(text)]
    return found


def book_sources(root: Path) -> dict[str, tuple[Path, object]]:
    """Every Japanese source the sheet covers, by its path relative to ``root``, with its reader."""
    sources = {p: markdown_prose for p in sorted((root / "docs" / "ja").rglob("*.md"))}
    if (root / "docs" / "glossary.yml").is_file():
        sources[root / "docs" / "glossary.yml"] = glossary_prose
    sources.update({p: plugin_prose for p in sorted((root / "scripts" / "kernelbook" / "site").rglob("*.py"))})
    return {p.relative_to(root).as_posix(): (p, reader) for p, reader in sources.items()}


def findings(root: Path, entries: tuple[Entry, ...], rel: str | None = None) -> list[Finding]:
    out = []
    for name, (path, reader) in book_sources(root).items():
        if rel is None or name == rel:
            out += check(reader(path.read_text(encoding="utf-8")), name, entries)
    return out


ENTRIES = read_sheet()
# one test per source, so that a report lists which pages still hold variants
_SOURCES = [name for name, (path, _) in book_sources(ROOT).items()
            if name.endswith((".md", ".yml")) or JAPANESE.search(path.read_text(encoding="utf-8"))]


# ---------------------------------------------------------------- the sheet

def test_sheet_holds_every_decision():
    ids = {e.id for e in ENTRIES}
    # TERMS.md's decisions (issue 40): each one is an entry
    assert {"compute-bound", "compute-roof", "profiler", "bandwidth", "achieved-bandwidth", "eager", "capture",
            "bounds-check", "default", "caching-allocator", "reduction", "sweep", "copy-roof", "interface",
            "attention", "fixed-cost", "shape", "wakaru", "bias", "write-allocate", "thread-counter", "free",
            "polite-form", "ratio-times", "thread-block", "element-block", "dram", "dry-run", "aten"} <= ids


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.checked], ids=lambda e: e.id)
def test_each_variant_is_caught_and_each_fine_form_is_not(entry):
    assert entry.examples, f"{entry.id}: give the patterns `examples` to catch"
    assert not check([(1, entry.chosen)], "chosen", (entry,)), f"{entry.id}: the chosen form {entry.chosen!r} is itself caught"
    for example in entry.examples:
        assert any(p.search(example) for p in entry.patterns), f"{entry.id}: {example!r} is not caught"
    for fine in entry.fine:
        assert not check([(1, mask(fine))], "fine", (entry,)), f"{entry.id}: {fine!r} is right but caught"


# ---------------------------------------------------------------- the book

@pytest.mark.parametrize("source", _SOURCES)
def test_japanese_prose_uses_the_sheets_terms(source):
    found = findings(ROOT, ENTRIES, source)
    assert not found, f"{len(found)} variant(s) the terminology sheet (docs/terminology.yml) replaces:\n" + \
        "\n".join(map(str, found))


# ---------------------------------------------------------------- a planted variant fails

def test_a_planted_variant_fails_naming_file_line_and_chosen_form(tmp_path):
    checked = [e for e in ENTRIES if e.checked]
    body = ["# 仮のページ", ""]
    lines = {}
    for entry in checked:
        for example in entry.examples:
            body.append(f"この文は {example} を含みます。")
            lines.setdefault(entry.id, []).append(len(body))
    # the same variants where they are not prose: none of these is reported
    body += ["", "```python", *[f"# {e.examples[0]}" for e in checked], "```", ""]
    body += [f"`{e.examples[0]}` と [[kb:value ch01/x {e.examples[0]}]] と [リンク](https://example.org/{e.examples[0]})"
             for e in checked if " " not in e.examples[0]]
    write(tmp_path / "docs" / "ja" / "planted.md", "\n".join(body) + "\n")
    found = findings(tmp_path, ENTRIES)
    for entry in checked:
        reported = {f.where for f in found if f.entry == entry.id}
        assert reported >= {f"docs/ja/planted.md:{n}" for n in lines[entry.id]}, (entry.id, reported)
        assert all(f.chosen == entry.chosen for f in found if f.entry == entry.id)
    prose_end = max(max(ns) for ns in lines.values())
    assert all(int(f.where.rsplit(":", 1)[1]) <= prose_end for f in found), \
        [str(f) for f in found if int(f.where.rsplit(":", 1)[1]) > prose_end]
    one = next(f for f in found if f.entry == "compute-bound")
    assert str(one) == f"docs/ja/planted.md:{lines['compute-bound'][0]}: 「演算律速」 (compute-bound): write 計算律速"


def test_a_planted_variant_in_the_glossary_and_the_plugin_fails(tmp_path):
    write(tmp_path / "docs" / "glossary.yml", """
        terms:
          - id: x
            ja:
              term: キャッシュアロケータ
              definition: 既定の `デフォルト` の説明。
            en:
              term: デフォルト in English is not checked
    """)
    write(tmp_path / "scripts" / "kernelbook" / "site" / "prose" / "labels.py", '''
        """docstring: 演算律速 (an example in a docstring is not a string on a page)"""
        LABELS = {"session": {"ja": "profiler セッション {i}", "en": "profiler session {i}"}}
    ''')
    found = [str(f) for f in findings(tmp_path, ENTRIES)]
    assert found == ["docs/glossary.yml:4: 「キャッシュアロケータ」 (caching-allocator): write キャッシングアロケータ",
                     "scripts/kernelbook/site/prose/labels.py:2: 「profiler」 (profiler): write プロファイラ"]
