"""The engine imports the standard library only (STYLE.md, habit 2)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "app" / "engine"
MODULES = sorted(ENGINE.rglob("*.py"))


def imported_names(path: Path) -> list[str]:
    """Absolute module names imported by one file (relative imports are the engine's own)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def allowed(name: str) -> bool:
    top = name.split(".")[0]
    return top in sys.stdlib_module_names or name == "app.engine" or name.startswith("app.engine.")


def test_the_engine_has_modules_to_check() -> None:
    assert ENGINE / "capture.py" in MODULES
    assert len(MODULES) >= 10


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(ENGINE)) for p in MODULES])
def test_an_engine_module_imports_only_the_standard_library_and_the_engine(path: Path) -> None:
    foreign = [name for name in imported_names(path) if not allowed(name)]
    assert not foreign, f"{path.relative_to(ROOT)} imports {foreign}"


@pytest.mark.parametrize(
    ("source", "ok"),
    [
        ("import json", True),
        ("from collections.abc import Iterable", True),
        ("from app.engine.cards import Card", True),
        ("from . import cards", True),
        ("import flask", False),
        ("from sqlalchemy import select", False),
        ("from app.persistence import models", False),
        ("import app.services", False),
        ("def f():\n    import marshmallow", False),
    ],
)
def test_the_import_check_itself_catches_foreign_imports(
    source: str, ok: bool, tmp_path: Path
) -> None:
    module = tmp_path / "module.py"
    module.write_text(source)
    assert all(allowed(name) for name in imported_names(module)) is ok


def test_importing_the_engine_loads_no_third_party_module() -> None:
    """Also at run time: whatever ``app`` itself may load, ``app.engine`` adds only stdlib."""
    script = (
        "import sys, app\n"
        "before = set(sys.modules)\n"
        "import app.engine, app.engine.fairness\n"
        "new = {name.split('.')[0] for name in set(sys.modules) - before}\n"
        "print('\\n'.join(sorted(n for n in new if n not in sys.stdlib_module_names)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.split() in ([], ["app"])
