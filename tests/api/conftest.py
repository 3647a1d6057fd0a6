"""Fixtures of the API tests beyond tests/conftest.py's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app import create_app


@pytest.fixture(scope="module")
def second_instance(database_url: str) -> Iterator[Any]:
    """Another server on the same database, as a second instance behind a balancer."""
    app = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "off"})
    yield app.test_client()
    app.extensions["basra_bot_runner"].stop()
    app.extensions["basra_db"].dispose()
