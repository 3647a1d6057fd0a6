"""Shared fixtures: the real databases (SQLite and PostgreSQL), the app, and helpers.

Every test that takes ``client`` or ``database_url`` runs once on SQLite and once on a
fresh PostgreSQL database created for this run and dropped after it, but for the API's
tests: those run on SQLite alone unless marked ``both_databases`` (tests/api/conftest.py).
Without a PostgreSQL server those runs are skipped loudly, except in CI (CI=true), where they fail.

Two loops run the suite (Makefile): `make test`, the fast one, leaves out what is marked `slow`
or `browser`; `make check` runs everything but `soak`. Whole folders are marked below, so a new
test there lands in the whole check unless it is named a fast-loop flow.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis_profiles  # noqa: F401  (loads HYPOTHESIS_PROFILE before any test module)
import pytest
from flask import Flask, Response, request
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app import create_app
from app.api.errors import PROBLEM_JSON
from app.persistence.schema import migrate_database

POSTGRES_SERVER_URL = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
IN_CI = os.environ.get("CI", "").lower() == "true"
# Expert bots at a human's table pad their decisions to a floor; tests, and the servers they
# start, play at full speed (tests/services/test_playing.py checks the padding itself).
os.environ.setdefault("BOT_THINKING_SECONDS", "0")
BACKENDS = ["sqlite", "postgresql"]
# The session's app: limits off, and a small search for each judged move of an analysis
# (docs/bots.md, "Analysis"), so that analysing a game takes a fraction of a second.
TEST_SETTINGS = {"RATE_LIMIT": "off", "BOT_BACKLOG": 100000, "ANALYSIS_WORK": 300}


def postgres_answers() -> bool:
    engine = create_engine(POSTGRES_SERVER_URL, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        return True
    except Exception:
        return False
    finally:
        engine.dispose()


class PostgresDatabase:
    """A database of its own on the PostgreSQL server, for one test run."""

    def __init__(self) -> None:
        self.name = f"basra_test_{secrets.token_hex(4)}"
        self.url = (
            make_url(POSTGRES_SERVER_URL)
            .set(database=self.name)
            .render_as_string(hide_password=False)
        )

    def _admin(self, statement: str) -> None:
        engine = create_engine(POSTGRES_SERVER_URL, isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as connection:
                connection.execute(text(statement))
        finally:
            engine.dispose()

    def create(self) -> None:
        self._admin(f'CREATE DATABASE "{self.name}"')

    def drop(self) -> None:
        self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


@contextlib.contextmanager
def migrated_postgres() -> Iterator[str]:
    """A PostgreSQL database of its own, at the newest migration, dropped afterwards."""
    database = PostgresDatabase()
    database.create()
    try:
        migrate_database(database.url)
        yield database.url
    finally:
        database.drop()


# Real browsers, real servers under load, generated clients: minutes in all, so `make check` only.
CHECK_ONLY = ("browser/", "reliability/", "api/test_clients.py")
# ... except these flows through a real server, quick enough for the fast loop to keep every layer.
FAST_LOOP_FLOWS = (
    "reliability/test_workers_share_connections.py",
    "reliability/test_bounded_work.py",
    "reliability/test_tamper_evidence.py",
    "reliability/test_edges.py",
)
# Tests that time real servers under load (an answer within a second, so many moves in so many
# seconds, requests racing at once), by file or by test: `make check` runs them one at a time,
# after the rest has run on both cores, so that no other test takes their CPU from them. Real
# servers with no stopwatch on them run with the rest, as does the count of an idle worker's own
# CPU (test_stream_cursors.py), to which no other process adds.
TIMED = (
    "reliability/test_bounded_work_under_gunicorn.py::test_healthz_stays_quick",
    "reliability/test_closing_connections.py",
    "reliability/test_concurrency.py",
    "reliability/test_deadlines_under_gunicorn.py::test_a_human_who_walks_away",
    "reliability/test_deadlines_under_gunicorn.py::test_a_game_without_a_clock",  # its server
    "reliability/test_rated_games_on_two_instances.py",
    "reliability/test_slow_clients.py",
    "reliability/test_sqlite_writers.py",
    # The two instances' streams (within a second) and the slow readers; not the restarts of
    # PostgreSQL, which wait as long as they must and count what was lost.
    "reliability/test_streams.py::test_a_move_through_one_instance",
    "reliability/test_streams.py::test_clients_that_stop_reading",
    "reliability/test_streams.py::test_last_event_id_on_the_other_instance",
    "reliability/test_streams.py::test_an_http_1_0_client",
)
TESTS = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(TESTS).as_posix()
        if where.startswith(CHECK_ONLY) and not where.startswith(FAST_LOOP_FLOWS):
            item.add_marker(pytest.mark.slow)
        if f"{where}::{getattr(item, 'originalname', item.name)}".startswith(TIMED):
            item.add_marker(pytest.mark.timed)
        group = xdist_group(item, where)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def xdist_group(item: pytest.Item, where: str) -> str | None:
    """Which tests one worker of ``pytest -n 2 --dist loadgroup`` runs together: the browser
    tests (one Chromium, one served app), and the tests of a module that builds a fixture once
    for the whole module (a server, a long game), which another worker would build again. Every
    other test goes to whichever worker is free."""
    if where.startswith("browser/"):
        return "browser"
    definitions = getattr(item, "_fixtureinfo", None)
    if definitions is None:
        return None
    for name in item.fixturenames:
        found = definitions.name2fixturedefs.get(name)
        if found and found[-1].scope in ("module", "class", "package"):
            return where
    return None


@pytest.fixture(scope="session")
def postgres_server() -> bool:
    if postgres_answers():
        return True
    message = f"PostgreSQL does not answer at {POSTGRES_SERVER_URL}"
    if IN_CI:
        pytest.fail(f"{message}: in CI the PostgreSQL tests must run")
    warnings.warn(f"\n\n*** {message}: SKIPPING every PostgreSQL test ***\n", stacklevel=1)
    return False


@pytest.fixture(scope="session", params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                 ) -> Iterator[str]:  # fmt: skip
    """A migrated, empty database shared by this session's tests on one backend."""
    if request.param == "sqlite":
        path: Path = tmp_path_factory.mktemp("sqlite") / "basra.sqlite3"
        url = f"sqlite:///{path}"
        migrate_database(url)
        yield url
        return
    if not request.getfixturevalue("postgres_server"):
        pytest.skip("PostgreSQL is not running (see the warning above)")
    with migrated_postgres() as url:
        yield url


@pytest.fixture(scope="session")
def app(database_url: str) -> Iterator[Any]:
    # The session's database keeps every endless match of bots alone the tests start; the
    # backlog refusal has a test of its own (tests/api/test_create_game.py).
    application = create_app(TEST_SETTINGS | {"DATABASE_URL": database_url})
    application.testing = True
    watch_problems(application)
    yield application
    application.extensions["basra_hub"].shutdown()
    application.extensions["basra_matchmaker"].stop()  # and its long polls' listener
    application.extensions["basra_bot_runner"].stop()  # before its database goes
    application.extensions["basra_analyses"].stop()
    application.extensions["basra_analysis_pool"].shutdown()
    application.extensions["basra_db"].dispose()


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def backend(database_url: str) -> str:
    return "sqlite" if database_url.startswith("sqlite") else "postgresql"


# ---------------------------------------------------------------- documented refusals
# Every refusal an operation answers in the tests must be one its openapi.yaml entry lists:
# the test app notes a problem `code` its operation does not name, and the test that caused
# it fails. So a new refusal cannot ship without its line in the operation's problems(...).
UNDOCUMENTED: list[str] = []  # "POST /games/{game_id}/moves answered not_your_turn (409)"


def documented_codes(app: Flask) -> dict[tuple[str, str], set[str]]:
    spec = app.extensions["basra_api"].spec.to_dict()
    codes: dict[tuple[str, str], set[str]] = {}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            listed = codes.setdefault((path, method.upper()), set())
            for answer in operation["responses"].values():
                schema = answer.get("content", {}).get(PROBLEM_JSON, {}).get("schema", {})
                for part in schema.get("allOf", []):
                    listed.update(part.get("properties", {}).get("code", {}).get("enum", []))
    return codes


def watch_problems(app: Flask) -> None:
    codes = documented_codes(app)

    @app.after_request
    def note_undocumented(response: Response) -> Response:
        rule = request.url_rule
        if rule is None or response.mimetype != PROBLEM_JSON or response.status_code >= 500:
            return response  # no route (404/405 of the router), or the `default` answer
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        listed = codes.get((path, request.method))
        body: Any = response.get_json(silent=True) or {}
        code = body.get("code")
        if listed is not None and code not in listed:
            UNDOCUMENTED.append(f"{request.method} {path} answered {code} ({response.status_code})")
        return response


def take_undocumented() -> list[str]:
    found = list(UNDOCUMENTED)
    UNDOCUMENTED.clear()
    return found


@pytest.fixture(autouse=True)
def refusals_are_documented() -> Iterator[None]:
    take_undocumented()
    yield
    undocumented = take_undocumented()
    assert not undocumented, (
        "refusals missing from openapi.yaml (add the code to the operation's problems(...) "
        "in app/api, then run `basra openapi`): " + "; ".join(sorted(set(undocumented)))
    )
