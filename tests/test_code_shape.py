"""The layers above the engine stay as readable as the engine: no function in app/api,
app/services or app/persistence over 50 lines, no SQL or HTTP in the use cases, and no import
running back up. A module's size is left to review: a subject is kept whole, not cut to a number."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"
LAYERS = ("api", "services", "persistence")
MAX_LINES = 50


def functions(layer: str) -> list[tuple[str, int]]:
    found = []
    for path in sorted((APP / layer).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                found.append((f"{path.relative_to(APP.parent)}:{node.lineno} {node.name}", length))
    return found


def imported_modules(layer: str) -> set[str]:
    names: set[str] = set()
    for path in (APP / layer).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
    return names


def test_no_function_above_the_engine_is_over_50_lines():
    long = [f"{name} ({length} lines)" for layer in LAYERS
            for name, length in functions(layer) if length > MAX_LINES]  # fmt: skip
    assert not long, long


def test_the_use_cases_import_no_database_and_no_web_framework():
    foreign = {name for name in imported_modules("services")
               if name.split(".")[0] in {"sqlalchemy", "flask", "flask_smorest", "werkzeug"}
               or name.startswith("app.api") or name.startswith("app.persistence")}  # fmt: skip
    assert not foreign, foreign


def test_the_api_reaches_the_database_only_through_the_services():
    foreign = {
        name
        for name in imported_modules("api")
        if name.split(".")[0] == "sqlalchemy" or name.startswith("app.persistence")
    }
    assert not foreign, foreign


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports_of(path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``path`` imports, at its top or inside a function: for
    ``from package import name``, the module ``package.name`` if there is one, else the
    package itself (whose ``__init__`` then stands for what it re-exports)."""
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path.parent)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x, from .x import y
                stem = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*stem, base] if base else stem)
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return found & known


def test_no_module_of_the_app_imports_itself_back():
    """app/ imports one way, functions' own imports included: every module can be read (and
    loaded) after the ones it needs."""
    paths = {_module_name(path): path for path in APP.rglob("*.py")}
    graph = {name: _imports_of(path, set(paths)) - {name} for name, path in paths.items()}
    cycles = []
    for start in graph:
        reached, todo = set(), list(graph[start])
        while todo:
            name = todo.pop()
            if name not in reached:
                reached.add(name)
                todo.extend(graph[name])
        if start in reached:
            cycles.append(start)
    assert not cycles, f"in an import cycle: {sorted(cycles)}"
