"""Fixtures of the persistence tests: a fresh, empty database on the backend under test."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from bench_modules import bench_module
from conftest import PostgresDatabase  # tests/conftest.py, on the path as pytest's rootdir conftest

from app.persistence import Database

counting_waits = bench_module("profile_move").counting_waits


@pytest.fixture
def fresh_database_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """An empty database, not migrated, on the same backend as ``database_url``."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
        return
    database = PostgresDatabase()
    database.create()
    try:
        yield database.url
    finally:
        database.drop()


@pytest.fixture
def round_trips(database: Database, backend: str, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The round trips to the server on ``database``'s one connection (the test module's
    ``database`` has a pool of one; the tests' app runs its listener and sweeper on others
    meanwhile): psycopg's waits, counted as bench/profile_move.py does."""
    if backend != "postgresql":
        pytest.skip("SQLite runs in process: no message goes anywhere")
    with database.engine.connect() as connection:
        ours = connection.connection.driver_connection
    counter: Counter[str] = Counter()
    wait = psycopg.Connection.wait
    counted = counting_waits(wait, counter)

    def wait_on_ours(self: Any, *args: Any, **kwargs: Any) -> Any:
        return (counted if self is ours else wait)(self, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "wait", wait_on_ours)
    return counter
