"""No two kernelbook modules import each other, directly or round a longer loop; no room reaches up to the glue.

Read statically from the source with ``ast``: every ``import`` and ``from ... import`` of a
kernelbook module counts, those under ``if TYPE_CHECKING:`` and inside functions too (a
cycle a type checker or a late import hides is still one module needing the other).
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "scripts" / "kernelbook"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, modules: set[str]) -> set[str]:
    """The kernelbook modules ``path`` imports (``from . import x`` names module x where x is one).

    ``from . import x`` with x a module of the package counts as importing x alone, as ``from .x
    import y`` does: either runs the package's ``__init__`` first, and neither needs a name of it
    (``figures/roofline.py`` imports its sibling ``gpu_specs`` while ``figures/__init__`` imports it).
    """
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found |= {f"{target}.{alias.name}" for alias in node.names}
            if any(f"{target}.{alias.name}" not in modules for alias in node.names):
                found.add(target)  # a name defined in target itself; `from . import sibling` needs only the sibling
    return {m for m in found if m in modules and m != name}


def graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports(p, modules) for p in paths}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_the_graph_is_read():
    edges = graph()
    assert "kernelbook.common.records" in edges["kernelbook.common.changes"]
    assert "kernelbook.site.settings" in edges["kernelbook.site.plugin"]
    assert "kernelbook.site.glossary.build" in edges["kernelbook.site.plugin"]  # from . import glossary_site, ...


def test_a_sibling_module_is_not_its_package():
    edges = graph()
    assert "kernelbook.site.figures.gpu_specs" in edges["kernelbook.site.figures.roofline"]
    assert "kernelbook.site.figures" not in edges["kernelbook.site.figures.roofline"]  # from . import gpu_specs
    assert "kernelbook.site.figures" in edges["kernelbook.site.caches.figures"]  # from .. import figures: the package


def test_no_room_of_the_site_imports_the_glue():
    """The plugin, its options, the commands and the other glue sit on top: no room below reaches up to them."""
    edges = graph()
    glue = {"kernelbook.site." + m for m in ("plugin", "config", "commands", "build_report", "minify", "search_index",
                                             "plain_tree")}
    rooms = {m for m in edges if m.count(".") >= 3 and m.startswith("kernelbook.site.")}
    assert rooms and glue <= set(edges)
    reaching = sorted(f"{m} -> {g}" for m in rooms for g in edges[m] & glue)
    assert reaching == []


def test_the_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle():
    found = cycles(graph())
    assert not found, "modules that import each other (directly or round a loop): " + "; ".join(" <-> ".join(g) for g in found)
