"""The container files are checked here, since no Docker engine runs on the test machines."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
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


REPLICAS = ("api-1", "api-2")


def test_compose_migrates_before_serving_against_postgres():
    services = compose()["services"]
    assert set(services) >= {"db", "migrate", *REPLICAS}
    assert services["db"]["image"] == "postgres:15"
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["migrate"]["restart"] == "no"
    assert "basra migrate" in " ".join(services["migrate"]["command"])
    for name in REPLICAS:
        api = services[name]
        assert api["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert api["command"] == ["gunicorn", "-c", "gunicorn.conf.py", "app.wsgi:app"]
    for name in ("migrate", *REPLICAS):
        assert services[name]["environment"]["DATABASE_URL"] == DATABASE_URL


def test_compose_runs_two_replicas_behind_haproxy_with_redis_and_prometheus():
    services = compose()["services"]
    for name in REPLICAS:
        assert services[name]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
        assert "ports" not in services[name], "replicas are reached through the balancer only"
        assert "/readyz" in " ".join(services[name]["healthcheck"]["test"])
    assert services["redis"]["image"].startswith("redis:")
    lb = services["lb"]
    assert lb["image"].startswith("haproxy:")
    assert "8000:8000" in lb["ports"]
    assert {lb["environment"]["API_1"], lb["environment"]["API_2"]} == {
        f"{name}:8000" for name in REPLICAS
    }
    assert services["prometheus"]["image"].startswith("prom/prometheus")


def mounted_files() -> list[tuple[str, Path]]:
    """(service, file in the repository) for every bind mount of the compose file."""
    found = []
    for name, service in compose()["services"].items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith(("./", "/")):
                found.append((name, (ROOT / source).resolve()))
    return found


def test_every_file_the_compose_file_mounts_is_in_the_repository():
    mounts = mounted_files()
    assert {name for name, _ in mounts} >= {"lb", "prometheus"}
    for name, path in mounts:
        assert path.is_file(), f"{name} mounts {path}, which is not in the repository"
        assert ROOT in path.parents


def test_prometheus_scrapes_both_replicas_and_the_balancer():
    config = yaml.safe_load((ROOT / "deploy" / "prometheus.yml").read_text())
    targets = {
        job["job_name"]: [t for group in job["static_configs"] for t in group["targets"]]
        for job in config["scrape_configs"]
    }
    assert sorted(targets["basra-api"]) == [f"{name}:8000" for name in REPLICAS]
    assert targets["haproxy"] == ["lb:8404"]


HAPROXY = Path("/usr/sbin/haproxy")


def haproxy_check(config: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if not HAPROXY.exists():
        message = "haproxy is not installed (scripts/ensure-haproxy installs it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return subprocess.run(
        [str(HAPROXY), "-c", "-f", str(config)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_haproxy_accepts_the_balancer_config_with_the_compose_environment():
    lb = compose()["services"]["lb"]
    result = haproxy_check(ROOT / "deploy" / "haproxy.cfg", lb["environment"])
    assert result.returncode == 0, result.stdout + result.stderr


def test_haproxy_check_rejects_a_broken_config(tmp_path):
    broken = tmp_path / "haproxy.cfg"
    broken.write_text((ROOT / "deploy" / "haproxy.cfg").read_text() + "\nbackend x\n    bogus 1\n")
    lb = compose()["services"]["lb"]
    assert haproxy_check(broken, lb["environment"]).returncode != 0


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
