"""Service tests run the use cases on the in-memory unit of work: no database, no Flask."""

from __future__ import annotations

import pytest

from app.persistence.memory import MemoryUnitOfWork


@pytest.fixture
def uow() -> MemoryUnitOfWork:
    return MemoryUnitOfWork()
