"""The container files are checked here, since no Docker engine runs on the test machines."""

import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CHECK_JSONSCHEMA = Path(sys.executable).parent / "check-jsonschema"
DATABASE_URL = "postgresql+psycopg://postgres:postgres@db:5432/basra"


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, with continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    pairs = []
    for line in lines:
        if line and not line.startswith("#"):
            instruction, _, args = line.partition(" ")
            pairs.append((instruction.upper(), args.strip()))
    return pairs


def run_check_jsonschema(path: Path) -> subprocess.CompletedProcess[str]:
    # The compose schema ships inside check-jsonschema, so this never touches the network.
    return subprocess.run(
        [str(CHECK_JSONSCHEMA), "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_compose_file_matches_the_compose_specification():
    result = run_check_jsonschema(ROOT / "docker-compose.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_rejects_a_broken_compose_file(tmp_path):
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(json.dumps({"services": {"api": {"ports": "8000:8000", "bogus": 1}}}))
    assert run_check_jsonschema(broken).returncode != 0


def test_compose_migrates_before_serving_against_postgres():
    services = compose()["services"]
    assert set(services) >= {"db", "migrate", "api"}
    assert services["db"]["image"] == "postgres:15"
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["migrate"]["restart"] == "no"
    assert "basra migrate" in " ".join(services["migrate"]["command"])
    api = services["api"]
    assert api["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert "8000:8000" in api["ports"]
    for name in ("migrate", "api"):
        assert services[name]["environment"]["DATABASE_URL"] == DATABASE_URL


def test_dockerfile_serves_the_wsgi_app_with_gunicorn_as_a_non_root_user():
    instructions = dockerfile_instructions()
    assert instructions[0] == ("FROM", "python:3.11-slim")
    cmd = [args for instruction, args in instructions if instruction == "CMD"][-1]
    words = json.loads(cmd) if cmd.startswith("[") else cmd.split()
    assert words == ["gunicorn", "-c", "gunicorn.conf.py", "app.wsgi:app"]
    users = [args for instruction, args in instructions if instruction == "USER"]
    assert users and users[-1] not in ("root", "0")
    env = " ".join(args for instruction, args in instructions if instruction == "ENV")
    assert "HOST=0.0.0.0" in env


def test_the_wsgi_target_module_exists():
    assert (ROOT / "app" / "wsgi.py").is_file()
