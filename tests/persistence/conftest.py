"""Fixtures of the persistence tests: a fresh, empty database on the backend under test."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

# The same server as tests/conftest.py's fixtures use.
POSTGRES_SERVER_URL = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


def _admin(statement: str) -> None:
    engine = create_engine(POSTGRES_SERVER_URL, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(statement))
    finally:
        engine.dispose()


@pytest.fixture
def fresh_database_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """An empty database, not migrated, on the same backend as ``database_url``."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
        return
    name = f"basra_fresh_{secrets.token_hex(4)}"
    _admin(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(POSTGRES_SERVER_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
