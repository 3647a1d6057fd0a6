"""Fixtures of the API tests beyond tests/conftest.py's, and which databases each test runs on.

An API test checks the HTTP contract, which is the same whatever stores the games: it runs on
SQLite alone. A test whose answer depends on the database (requests racing, locks, a list read a
page at a time by SQL, stored answers, compacted logs, images of games, the stream's notices,
migrations) is marked ``@pytest.mark.both_databases`` (or its module, ``pytestmark = ...``) and
runs on SQLite and on PostgreSQL, as every test outside tests/api that takes ``database_url``
does. The rules are the engine's tests (tests/engine), the use cases the services' on the
in-memory unit of work (tests/services), and the statements of each database tests/persistence.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app import create_app

ONE_DATABASE = ["sqlite"]


@pytest.hookimpl(tryfirst=True)  # before pytest parametrises database_url with both backends
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "database_url" not in metafunc.fixturenames:
        return
    if metafunc.definition.get_closest_marker("both_databases") is not None:
        return
    # A parametrize mark of its own takes the place of the fixture's params (tests/conftest.py);
    # indirect, so the session's one migrated database and app are shared as before.
    metafunc.definition.add_marker(
        pytest.mark.parametrize("database_url", ONE_DATABASE, indirect=True)
    )


@pytest.fixture(scope="module")
def second_instance(database_url: str) -> Iterator[Any]:
    """Another server on the same database, as a second instance behind a balancer."""
    app = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "off"})
    yield app.test_client()
    app.extensions["basra_bot_runner"].stop()
    app.extensions["basra_db"].dispose()
