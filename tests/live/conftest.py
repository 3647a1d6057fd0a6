"""The live stream's tests run on the in-memory unit of work where they need games at all."""

from __future__ import annotations

import pytest

from app.persistence.memory import MemoryUnitOfWork


@pytest.fixture
def uow() -> MemoryUnitOfWork:
    return MemoryUnitOfWork()
