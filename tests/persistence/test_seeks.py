"""Seeks on both databases: a pass settles every seek it seats in one go, and all or none."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from app.persistence import Database, SqlUnitOfWork
from app.services.errors import ConcurrentUpdate
from app.services.seeks import CANCELLED, MATCHED, WAITING, MatchedSeat, SeekRecord, kind_of

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


def waiting_seeks(database: Database, count: int) -> list[str]:
    """``count`` waiting seeks of players of their own, committed."""
    seeks = [SeekRecord(id=secrets.token_hex(8), player_id=secrets.token_hex(8), name="Amira",
                        rating=25.0, players=2, rated=False, rules={"target_score": 101},
                        kind=kind_of(2, False, {"target_score": 101}), bot_after=None,
                        status=WAITING, created_at=NOW, expires_at=NOW + timedelta(minutes=10))
             for _ in range(count)]  # fmt: skip
    with SqlUnitOfWork(database) as uow:
        for seek in seeks:
            uow.seeks.add(seek)
        uow.commit()
    return [seek.id for seek in seeks]


def test_matching_settles_each_seek_with_its_game_and_seat(database):
    first, second, third = waiting_seeks(database, 3)
    with SqlUnitOfWork(database) as uow:
        uow.seeks.match([MatchedSeat(first, "game-a", 1), MatchedSeat(second, "game-a", 0),
                         MatchedSeat(third, "game-b", 3)], NOW)  # fmt: skip
        uow.commit()
    with SqlUnitOfWork(database) as uow:
        found = [uow.seeks.get(seek_id) for seek_id in (first, second, third)]
    assert [(s.status, s.game_id, s.seat) for s in found if s is not None] == [
        (MATCHED, "game-a", 1), (MATCHED, "game-a", 0), (MATCHED, "game-b", 3)
    ]  # fmt: skip
    assert all(s is not None and s.settled_at == NOW for s in found)


def test_a_match_that_finds_one_seek_settled_meanwhile_settles_none(database):
    first, second = waiting_seeks(database, 2)
    with SqlUnitOfWork(database) as uow:
        uow.seeks.settle(second, CANCELLED, NOW)
        uow.commit()
    with pytest.raises(ConcurrentUpdate), SqlUnitOfWork(database) as uow:
        uow.seeks.match([MatchedSeat(first, "game-a", 0), MatchedSeat(second, "game-a", 1)], NOW)
        uow.commit()
    with SqlUnitOfWork(database) as uow:
        assert uow.seeks.statuses([first, second]) == {first: WAITING, second: CANCELLED}
