"""A pooled PostgreSQL connection the server closed is replaced at checkout, with no
SELECT 1 round trip (app/persistence/liveness.py), so no request meets it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import text

from app.persistence import Database
from app.persistence.liveness import is_alive


@pytest.fixture
def database(database_url: str, backend: str) -> Iterator[Database]:
    if backend != "postgresql":
        pytest.skip("SQLite has no server to close a connection")
    db = Database(database_url, pool_size=1, max_overflow=0)
    yield db
    db.dispose()


def backend_pid(db: Database) -> int:
    with db.engine.connect() as connection:
        return int(connection.execute(text("SELECT pg_backend_pid()")).scalar_one())


def terminate(database_url: str, pid: int) -> None:
    other = Database(database_url)
    try:
        with other.engine.connect() as connection:
            connection.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": pid})
    finally:
        other.dispose()


def test_the_pool_does_not_ping_on_every_checkout(database: Database) -> None:
    assert database.engine.pool._pre_ping is False


def test_an_idle_pooled_connection_looks_alive(database: Database) -> None:
    with database.engine.connect() as connection:
        assert is_alive(connection.connection.driver_connection)


def test_a_connection_whose_backend_was_terminated_is_replaced_at_checkout(
    database: Database, database_url: str
) -> None:
    first = backend_pid(database)
    assert backend_pid(database) == first  # the pool hands the same connection back
    terminate(database_url, first)
    second = backend_pid(database)  # no error: the dead connection was dropped at checkout
    assert second != first
