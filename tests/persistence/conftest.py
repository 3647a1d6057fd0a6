"""Fixtures of the persistence tests: a fresh, empty database on the backend under test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import PostgresDatabase  # tests/conftest.py, on the path as pytest's rootdir conftest


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
