"""The modules of bench/, for the tests that check them: bench/ is not a package (its scripts
are run by path), so a module is loaded from its file."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_module(name: str) -> Any:
    """bench/<name>.py, loaded as the module ``bench_<name>``."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
