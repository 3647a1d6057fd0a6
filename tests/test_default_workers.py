"""gunicorn's worker processes when WEB_CONCURRENCY is not set (app/config.py: default_workers),
and what gunicorn.conf.py makes of it."""

from __future__ import annotations

import os
import runpy
from pathlib import Path

import pytest

from app import config
from app.config import default_workers

CONF = Path(__file__).resolve().parents[1] / "gunicorn.conf.py"


@pytest.mark.parametrize(
    ("cores", "database_url", "workers"),
    [
        (2, "postgresql+psycopg://db/basra", 2),  # one per core
        (8, "postgresql+psycopg://db/basra", 8),
        (1, "postgresql+psycopg://db/basra", 2),  # never fewer than two
        (2, "sqlite:///var/basra.sqlite3", 4),  # two per core
        (1, "sqlite:///var/basra.sqlite3", 2),
        (2, None, 4),  # no DATABASE_URL: the embedded SQLite
    ],
)
def test_workers_follow_the_cores_and_the_database(monkeypatch, cores, database_url, workers):
    monkeypatch.setattr(config.os, "sched_getaffinity", lambda _pid: set(range(cores)))
    assert default_workers(database_url) == workers


def test_the_cores_are_those_this_process_may_run_on(monkeypatch):
    monkeypatch.setattr(config.os, "cpu_count", lambda: 64)  # the machine's, not ours
    expected = max(2, len(os.sched_getaffinity(0)))
    assert default_workers("postgresql://db/basra") == expected


def settings(monkeypatch, **environment: str) -> dict:
    """gunicorn.conf.py's settings in this environment, run on a copy of os.environ (it sets
    variables for the workers it would start, which must not reach this process's)."""
    decided_here = ("WEB_CONCURRENCY", "DATABASE_URL", "REUSE_PORT")
    copied = {k: v for k, v in os.environ.items() if k not in decided_here}
    copied.update(environment, BASRA_METRICS_DIR_SET_UP="given")  # no metrics folder made
    monkeypatch.setattr(os, "environ", copied)
    return runpy.run_path(str(CONF))


def test_gunicorn_conf_takes_the_default_unless_told(monkeypatch):
    monkeypatch.setattr(config.os, "sched_getaffinity", lambda _pid: {0, 1})
    assert settings(monkeypatch, DATABASE_URL="postgresql+psycopg://db/b")["workers"] == 2
    assert settings(monkeypatch)["workers"] == 4
    assert settings(monkeypatch, WEB_CONCURRENCY="3")["workers"] == 3


def test_each_worker_listens_on_its_own_socket_unless_told(monkeypatch):
    assert settings(monkeypatch)["reuse_port"] is True
    assert settings(monkeypatch, REUSE_PORT="0")["reuse_port"] is False


class Log:
    def __init__(self) -> None:
        self.warnings: list[str] = []

    def warning(self, text: str) -> None:
        self.warnings.append(text)


@pytest.mark.parametrize(
    ("environment", "warned"),
    [
        ({}, False),  # 127.0.0.1 by default
        ({"HOST": "0.0.0.0"}, True),
        ({"HOST": "::"}, True),
        ({"HOST": "192.0.2.7"}, True),
        ({"HOST": "0.0.0.0", "TRUSTED_PROXIES": "10.0.0.2"}, False),  # behind the balancer
        ({"HOST": "::1"}, False),
        ({"HOST": "localhost"}, False),
    ],
)
def test_listening_beyond_loopback_with_no_proxy_in_front_is_said_loudly_at_start(
    monkeypatch, environment, warned
):
    environment = {"TRUSTED_PROXIES": "", **environment}
    conf = settings(monkeypatch, **environment)
    server = type("Server", (), {"log": Log()})()
    conf["when_ready"](server)
    assert bool(server.log.warnings) == warned
    if warned:
        assert "TRUSTED_PROXIES" in server.log.warnings[0]
