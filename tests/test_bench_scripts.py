"""Every benchmark script starts: `make bench` and the docs run them by path, and nothing else
imports most of them, so a name moved in app/ would otherwise break one unseen."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(path.name for path in BENCH.glob("*.py") if "__main__" in path.read_text())


def test_the_scripts_are_found() -> None:
    assert {"api.py", "bots.py", "engine.py", "matchmaking.py", "scaling.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_benchmark_script_imports_and_answers_help(script: str) -> None:
    run = subprocess.run(
        [sys.executable, str(BENCH / script), "--help"],
        capture_output=True, text=True, timeout=60, cwd=BENCH.parent,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert "usage" in run.stdout.lower()
