"""The package's shape: rooms that import only what their rules allow, read from the source.

``kernelbook/capture/`` executes (standard library and torch only, on a bare GPU image);
``kernelbook/site/`` renders (mkdocs, never torch, never the capture half); what both use
sits in ``common/`` and ``safety/`` and imports neither torch nor mkdocs. Each package's
``__init__`` states its room and its rules (``MAY_IMPORT``, ``NEVER_IMPORTS``): these tests read
those tables and hold every module to its package's, so the layout cannot silently decay.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SCRIPTS, cli_env, make_project, write

PACKAGE = SCRIPTS / "kernelbook"
RENDERING = {"mkdocs", "yaml", "material", "nbformat", "nbconvert", "jinja2", "markdown", "pymdownx",
             "mkdocs_jupyter", "mkdocs_static_i18n", "jupytext"}
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = path.relative_to(SCRIPTS).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, top_level_only: bool = False) -> set[str]:
    """Every module ``path`` imports (relative imports resolved), anywhere or only at module level."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), package, top_level_only, str(path))


def imports_in(source: str, package: str, top_level_only: bool = False, filename: str = "<source>") -> set[str]:
    """The modules ``source``, a module of ``package``, imports."""
    tree = ast.parse(source, filename=filename)
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)  # `from . import capture`
    return found


def offending(path: Path, banned: set[str], top_level_only: bool = False) -> list[str]:
    return banned_in(imports(path, top_level_only), banned)


def banned_in(found: set[str], banned: set[str]) -> list[str]:
    return sorted(m for m in found if any(m == b or m.startswith(b + ".") for b in banned))


def modules(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def test_the_two_halves_are_packages():
    assert (PACKAGE / "review" / "__init__.py").is_file()  # and kernelbook diff, which reads both halves' data
    assert (PACKAGE / "common" / "__init__.py").is_file() and (PACKAGE / "safety" / "__init__.py").is_file()

    assert (PACKAGE / "capture" / "__init__.py").is_file() and (PACKAGE / "site" / "__init__.py").is_file()
    assert (PACKAGE / "site" / "figures" / "__init__.py").is_file() and (PACKAGE / "site" / "directives" / "__init__.py").is_file()


@pytest.mark.parametrize("path", modules(PACKAGE / "site"), ids=lambda p: module_name(p))
def test_site_never_imports_torch_or_the_capture_half(path):
    assert offending(path, {"torch", "triton", "kernelbook.capture"}) == []


@pytest.mark.parametrize("path", modules(PACKAGE / "capture"), ids=lambda p: module_name(p))
def test_capture_never_imports_mkdocs_or_the_site_half(path):
    assert offending(path, RENDERING | {"kernelbook.site"}) == []


# What review/ may read of the site half: the claims and how numbers are written, which import no mkdocs.
PURE_SITE = {"kernelbook.site", "kernelbook.site.prose", "kernelbook.site.prose.claims", "kernelbook.site.prose.units"}


@pytest.mark.parametrize("path", modules(PACKAGE / "review"), ids=lambda p: module_name(p))
def test_review_imports_neither_torch_nor_mkdocs_nor_the_capture_half(path):
    """`kernelbook diff` runs with the standard library alone (the workflow's propose job has no venv)."""
    assert offending(path, RENDERING | {"torch", "triton", "kernelbook.capture"}) == []
    site = {m for m in imports(path) if m == "kernelbook.site" or m.startswith("kernelbook.site.")}
    assert site <= PURE_SITE | {f"{m}.{name}" for m in PURE_SITE for name in ("claims", "units", "by_key", "format_seconds")}, site


@pytest.mark.parametrize("name", ["prose/claims.py", "prose/units.py", "prose/__init__.py", "__init__.py"])
def test_what_review_reads_of_the_site_is_pure(name):
    found = imports(PACKAGE / "site" / name)
    assert offending(PACKAGE / "site" / name, RENDERING | {"torch", "kernelbook.capture"}) == []
    assert {m for m in found if m.startswith("kernelbook.site.")} <= PURE_SITE | {"kernelbook.site.prose.units.by_key",
            "kernelbook.site.prose.units.format_ratio", "kernelbook.site.prose.units.format_seconds"}, found


SHARED = [*modules(PACKAGE / "common"), *modules(PACKAGE / "safety"), PACKAGE / "__init__.py", PACKAGE / "__main__.py"]


@pytest.mark.parametrize("path", SHARED, ids=lambda p: module_name(p))
def test_shared_modules_import_neither_half_nor_torch_nor_mkdocs(path):
    assert offending(path, RENDERING | {"torch", "kernelbook.site", "kernelbook.capture"}) == []


# ---- each package's room and rules, as its __init__ states them

def packages() -> list[Path]:
    return sorted(p.parent for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts)


def rules(package: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``MAY_IMPORT`` and ``NEVER_IMPORTS`` of ``package``'s __init__, read without importing it."""
    found = {}
    for node in ast.parse((package / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("MAY_IMPORT", "NEVER_IMPORTS"):
                found[node.targets[0].id] = ast.literal_eval(node.value)
    return found.get("MAY_IMPORT"), found.get("NEVER_IMPORTS")


def governing(path: Path) -> Path:
    """The package whose rules hold for the module at ``path``: the one that holds it."""
    return path.parent


def kernelbook_modules() -> set[str]:
    return {module_name(p) for p in modules(PACKAGE)}


@pytest.mark.parametrize("package", packages(), ids=lambda p: module_name(p / "__init__.py"))
def test_every_package_states_its_room_and_its_import_rules(package):
    init = package / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc and "import" in doc.lower(), f"{init.relative_to(SCRIPTS)}: its docstring says what it holds and what it may import"
    may, never = rules(package)
    assert isinstance(may, tuple) and may and all(isinstance(m, str) for m in may), f"{init}: MAY_IMPORT, a tuple of module names"
    assert isinstance(never, tuple) and all(isinstance(m, str) for m in never), f"{init}: NEVER_IMPORTS, a tuple of module names"
    known = kernelbook_modules()
    for name in may + tuple(n for n in never if n.startswith("kernelbook")):
        assert name in known, f"{init.relative_to(SCRIPTS)} names {name}, which is no module: update its rules"


def allowed(name: str, may: tuple[str, ...]) -> bool:
    """``name`` lies under one of ``may``, or is a package above one (importing it runs only its __init__)."""
    return name == "kernelbook" or any(name == m or name.startswith(m + ".") or m.startswith(name + ".") for m in may)


@pytest.mark.parametrize("path", modules(PACKAGE), ids=lambda p: module_name(p))
def test_each_module_keeps_its_packages_import_rules(path):
    package = governing(path)
    may, never = rules(package)
    found = imports(path)
    where = f"{path.relative_to(SCRIPTS)} (rules: {(package / '__init__.py').relative_to(SCRIPTS)})"
    assert offending(path, set(never)) == [], f"{where} imports what its package never does"
    known = kernelbook_modules()
    strays = sorted(m for m in found if m in known and not allowed(m, may))
    assert strays == [], f"{where} imports modules outside MAY_IMPORT"


def test_the_rules_check_sees_a_stray_import():
    """The checker itself: a module of site/prose importing the plugin or a room above it breaks prose's rules."""
    may, never = rules(PACKAGE / "site" / "prose")
    found = imports_in("from .. import plugin\nfrom . import claims\nfrom ..pages import twins\n", "kernelbook.site.prose")
    assert banned_in(found, set(never)) == ["kernelbook.site.pages", "kernelbook.site.pages.twins", "kernelbook.site.plugin"]
    assert [m for m in sorted(found) if m in kernelbook_modules() and not allowed(m, may)] == [
        "kernelbook.site.pages", "kernelbook.site.pages.twins", "kernelbook.site.plugin"]
    assert not allowed("kernelbook.capture.runner", rules(PACKAGE / "common")[0])
    assert allowed("kernelbook.site", rules(PACKAGE / "review")[0])  # the way to site.prose.claims


# A package of one kind (one module per figure, per directive) may be as large as its kind.
OF_ONE_KIND = {PACKAGE / "site" / "figures", PACKAGE / "site" / "directives"}


@pytest.mark.parametrize("package", packages(), ids=lambda p: module_name(p / "__init__.py"))
def test_a_folder_holds_few_enough_modules_to_read_by_name(package):
    count = len(list(package.glob("*.py")))
    limit = 12 if package in (PACKAGE, PACKAGE / "site") else 16
    if package not in OF_ONE_KIND:
        assert count <= limit, f"{package.relative_to(SCRIPTS)} holds {count} modules: more than {limit}; group them in rooms"


def test_cli_imports_a_half_only_inside_the_command_that_needs_it():
    assert offending(PACKAGE / "cli.py", RENDERING | {"torch", "kernelbook.site", "kernelbook.capture"}, top_level_only=True) == []


def test_the_boundary_check_sees_relative_imports():
    """The checker itself: ``from ..capture import runner`` in a module of site/ is caught."""
    found = imports_in("from ..capture import runner\nfrom . import claims\nimport torch.profiler\n", "kernelbook.site")
    assert banned_in(found, {"kernelbook.capture"}) == ["kernelbook.capture", "kernelbook.capture.runner"]
    assert banned_in(found, {"torch"}) == ["torch.profiler"]
    assert "kernelbook.site.claims" in found
    assert banned_in(imports_in("from ...capture.kernels import extract\n", "kernelbook.site.figures"), {"kernelbook.capture"})


@pytest.mark.parametrize("path", modules(PACKAGE), ids=lambda p: module_name(p))
def test_no_module_is_over_400_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(SCRIPTS)} has {lines} lines: split it by what its parts hold"


# A folder that shadows the rendering packages: importing any of them fails, as on a
# bare GPU image with nothing but torch.
def _bare(tmp_path: Path) -> Path:
    shadow = tmp_path / "bare-image"
    for name in RENDERING:
        write(shadow / name / "__init__.py", f'raise ImportError("{name} is not installed on this image")\n')
    return shadow


def test_capture_runs_where_only_torch_is_installed(tmp_path):
    """`PYTHONPATH=scripts python -m kernelbook capture` (and status, kernels) on a bare GPU image."""
    root = make_project(tmp_path / "book")
    write(root / "snippets/cha/hello.py", """
        import torch
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU]):
            y = torch.ones(4) + 1
        print(y)
        """)
    shadow = _bare(tmp_path)
    env = cli_env(PYTHONPATH=f"{SCRIPTS}:{shadow}", NO_MKDOCS_2_WARNING="1")
    probe = subprocess.run([sys.executable, "-c", "import mkdocs"], env=env, capture_output=True, text=True)
    assert probe.returncode != 0 and "not installed on this image" in probe.stderr  # the shadow works
    for args in (["capture", "--device", "cpu"], ["status", "--json"], ["kernels", "snippets/cha/captures/hello.cpu.json"]):
        done = subprocess.run([sys.executable, "-m", "kernelbook", *args], cwd=root, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{args}: {done.stderr[-3000:]}"
    assert "aten::add" in done.stdout
    # and the site commands say what is missing instead of working half-way
    done = subprocess.run([sys.executable, "-m", "kernelbook", "notebooks", "--check"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "needs mkdocs" in done.stderr and "not installed on this image" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_diff_runs_with_the_standard_library_alone(tmp_path):
    """`PYTHONPATH=scripts python3 -m kernelbook diff`, as the GPU workflow's propose job runs it: no torch, no mkdocs."""
    from test_diff import capture, put

    shadow = _bare(tmp_path)
    for name in ("torch", "triton"):
        write(shadow / name / "__init__.py", f'raise ImportError("{name} is not installed here")\n')
    old, new = tmp_path / "old", tmp_path / "new"
    put(old, capture(sessions=((("aten::add", 2, 10.0),),)))
    put(new, capture(sessions=((("aten::mul", 2, 10.0),),)))
    root = make_project(tmp_path / "book")
    write(root / "docs/en/ch01/index.md", "# One\n[[kb:launches ch01/a == 2]] launches.\n")
    env = cli_env(PYTHONPATH=f"{SCRIPTS}:{shadow}")
    done = subprocess.run([sys.executable, "-m", "kernelbook", "diff", str(old), str(new), "--format", "markdown"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "- **ch01/a** (cuda): `aten::add` → `aten::mul`, 2 → 2 launches" in done.stdout
