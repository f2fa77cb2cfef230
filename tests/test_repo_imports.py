"""The packages import one way — engine ← calibration ← vision ← companion_api, and the lab beside
them importing the product, never imported by it — and nothing of the project is loaded by a name
in a string (every dependency is visible to readers and to mypy)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: each package and the project packages it may import
LAYERS = {
    "engine": {"engine"},
    "calibration": {"engine", "calibration"},
    "vision": {"engine", "calibration", "vision"},
    "companion_api": {"engine", "calibration", "vision", "companion_api"},
    "lab": {"engine", "calibration", "vision", "companion_api", "lab"},
}
BY_NAME = {"import_module", "__import__"}


def modules() -> list[tuple[str, Path]]:
    return [(pkg, path) for pkg in LAYERS for path in sorted((ROOT / pkg).rglob("*.py"))]


def imported(path: Path, tree: ast.AST) -> list[tuple[int, str]]:
    """Every module an import statement names, absolute (relative imports resolved)."""
    package = path.relative_to(ROOT).with_suffix("").parts
    package = package[:-1]  # a module's package; an __init__'s is its own folder too
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1] if node.level > 1 else package
                out.append((node.lineno, ".".join((*base, node.module or ""))))
            elif node.module:
                out.append((node.lineno, node.module))
    return out


def test_imports_run_one_way() -> None:
    wrong = []
    for pkg, path in modules():
        tree = ast.parse(path.read_text(), str(path))
        for line, name in imported(path, tree):
            top = name.split(".")[0]
            if top in LAYERS and top not in LAYERS[pkg]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not wrong, "imports against engine ← calibration ← vision ← companion_api (← lab):\n" + "\n".join(wrong)


def test_nothing_is_loaded_by_name() -> None:
    wrong = []
    for _pkg, path in modules():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
                if name in BY_NAME:
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} calls {name}")
    assert not wrong, "modules loaded by a name in a string:\n" + "\n".join(wrong)


def test_relative_imports_are_resolved() -> None:
    """The resolver names the module a relative import climbs to (so such an import is checked too)."""
    path = ROOT / "engine" / "core" / "x.py"
    tree = ast.parse("from ...vision import locate\nfrom .. import triolet\nfrom .state import GameState\n")
    assert [m for _, m in imported(path, tree)] == ["vision", "engine.", "engine.core.state"]
