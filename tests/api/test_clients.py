"""The typed clients of docs/clients.md, generated from the committed openapi.yaml: each is
type-checked strictly (tsc --strict, mypy --strict) and plays a whole game against a live server.
So a change of the API that breaks front-end types, or a client, fails the suite."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_spec import committed_spec
from werkzeug.serving import make_server

ROOT = Path(__file__).resolve().parents[2]
TYPESCRIPT = ROOT / "clients" / "typescript"
PYTHON = ROOT / "clients" / "python"
IN_CI = os.environ.get("CI", "").lower() == "true"


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)


@pytest.fixture(scope="module")
def live_server(app: Any) -> Iterator[str]:
    """The test app behind a real HTTP server on a free loopback port."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join()


@pytest.fixture(scope="session")
def typescript_client() -> Path:
    """npm ci, openapi-typescript and tsc --strict, as clients/typescript/check.sh does them."""
    if shutil.which("npm") is None:
        if IN_CI:
            pytest.fail("npm is missing: the TypeScript client must be checked in CI")
        pytest.skip("npm is not installed")
    result = run([str(TYPESCRIPT / "check.sh")])
    assert result.returncode == 0, f"tsc --strict failed:\n{result.stdout}\n{result.stderr}"
    return TYPESCRIPT / "dist" / "play.js"


def test_typescript_client_type_checks_and_plays_a_game(typescript_client: Path,
                                                         live_server: str) -> None:  # fmt: skip
    result = run(["node", str(typescript_client), live_server])
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["status"] == "finished" and outcome["verified"] is True, outcome
    assert outcome["winner"] in (0, 1) and max(outcome["scores"]) >= 31, outcome


def test_a_change_that_breaks_front_end_types_fails_tsc(typescript_client: Path,
                                                        tmp_path: Path) -> None:  # fmt: skip
    spec = copy.deepcopy(committed_spec())
    view = spec["components"]["schemas"]["View"]["properties"]
    view["legal_plays"] = view.pop("legal_moves")  # a renamed field
    (tmp_path / "openapi.yaml").write_text(yaml.safe_dump(spec))
    for name in ("play.ts", "tsconfig.json"):
        shutil.copy(TYPESCRIPT / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(TYPESCRIPT / "node_modules")
    generate = run(["npx", "--no-install", "openapi-typescript", "openapi.yaml", "--output",
                    "generated/basra.d.ts"], cwd=tmp_path)  # fmt: skip
    assert generate.returncode == 0, generate.stderr
    check = run(["npx", "--no-install", "tsc", "-p", "tsconfig.json", "--noEmit"], cwd=tmp_path)
    assert check.returncode != 0
    assert "legal_moves" in check.stdout, check.stdout


@pytest.fixture(scope="session")
def python_client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The client openapi-python-client generates from openapi.yaml, in a folder of its own."""
    folder = tmp_path_factory.mktemp("python-client")
    generator = Path(sys.executable).with_name("openapi-python-client")
    result = run([str(generator), "generate", "--path", str(ROOT / "openapi.yaml"),
                  "--meta", "none", "--output-path", str(folder / "basra_client"),
                  "--config", str(PYTHON / "config.yaml")])  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "will not be generated" not in result.stdout + result.stderr, result.stdout
    return folder


def test_python_client_type_checks_with_mypy_strict(python_client: Path) -> None:
    result = run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                  "--no-incremental", str(PYTHON / "play.py")],
                 env={**os.environ, "MYPYPATH": str(python_client)}, cwd=python_client)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_python_client_plays_a_game(python_client: Path, live_server: str) -> None:
    result = run([sys.executable, str(PYTHON / "play.py"), live_server],
                 env={**os.environ, "PYTHONPATH": str(python_client)})  # fmt: skip
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["status"] == "finished" and outcome["verified"] is True, outcome
    assert outcome["winner"] in (0, 1) and max(outcome["scores"]) >= 31, outcome
