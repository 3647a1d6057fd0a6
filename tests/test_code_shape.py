"""The layers above the engine stay as readable as the engine: no function in app/api,
app/services or app/persistence over 50 lines, and no SQL or HTTP in the use cases."""

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


def _imports_of(path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``path`` imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found & known


def test_the_api_modules_and_the_command_line_import_each_other_one_way():
    paths = {".".join(path.relative_to(APP.parent).with_suffix("").parts): path
             for path in [*(APP / "api").glob("*.py"), APP / "cli.py"]}  # fmt: skip
    paths.pop("app.api.__init__")  # the package: it imports its modules, each one imports it
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
