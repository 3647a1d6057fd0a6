"""Seeks on both databases: a pass settles every seek it seats in one go, and all or none."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from app.persistence import Database, SqlUnitOfWork
from app.services.errors import ConcurrentUpdate
from app.services.model import CANCELLED, EXPIRED, MATCHED, WAITING, MatchedSeat, SeekRecord
from app.services.seeks import kind_of

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


def waiting_seeks(
    database: Database,
    count: int,
    kind: str | None = None,
    bot_after: int | None = None,
    made: datetime = NOW,
) -> list[str]:
    """``count`` waiting seeks of players of their own, committed (of one kind, or of the kind
    named: the test run's database keeps the seeks of other tests)."""
    kind = kind or kind_of(2, False, {"target_score": 101})
    bots_at = None if bot_after is None else made + timedelta(seconds=bot_after)
    seeks = [SeekRecord(id=secrets.token_hex(8), player_id=secrets.token_hex(8), name="Amira",
                        rating=25.0, players=2, rated=False, rules={"target_score": 101},
                        kind=kind, bot_after=bot_after, status=WAITING, created_at=made,
                        expires_at=made + timedelta(minutes=10), bots_at=bots_at)
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


def test_a_pass_reads_the_kinds_with_a_partner_and_never_a_seek_alone_of_its_kind(database):
    pair = waiting_seeks(database, 2, kind=secrets.token_hex(8))
    alone = [seek_id for _ in range(30)
             for seek_id in waiting_seeks(database, 1, kind=secrets.token_hex(8))]  # fmt: skip
    with SqlUnitOfWork(database) as uow:
        read = {seek.id for seek in uow.seeks.pairable(10_000)}
        of_kind = uow.seeks.pairable(10, kind=uow.seeks.get(alone[0]).kind)  # type: ignore[union-attr]
    assert set(pair) <= read
    assert not read & set(alone)
    assert [seek.id for seek in of_kind] == alone[:1]  # a new seek's own kind, alone or not


def test_the_seeks_due_for_bots_are_read_by_their_moment(database):
    kind = secrets.token_hex(8)
    due = waiting_seeks(database, 1, kind=kind, bot_after=5, made=NOW - timedelta(seconds=6))
    later = waiting_seeks(database, 1, kind=kind, bot_after=30, made=NOW - timedelta(seconds=6))
    never = waiting_seeks(database, 1, kind=kind, made=NOW - timedelta(seconds=60))
    with SqlUnitOfWork(database) as uow:
        found = [seek.id for seek in uow.seeks.due_for_bots(NOW, 100, kind)]
        anywhere = {seek.id for seek in uow.seeks.due_for_bots(NOW, 10_000)}
    assert found == due
    assert set(due) <= anywhere and not anywhere & set(later + never)


def test_expiry_settles_every_seek_out_of_its_time_at_once(database):
    kind = secrets.token_hex(8)
    old = waiting_seeks(database, 3, kind=kind, made=NOW - timedelta(minutes=11))
    young = waiting_seeks(database, 1, kind=kind, made=NOW - timedelta(minutes=9))
    with SqlUnitOfWork(database) as uow:
        expired = uow.seeks.expire(NOW)
        uow.commit()
    assert set(old) <= set(expired) and not set(young) & set(expired)
    with SqlUnitOfWork(database) as uow:
        found = {seek_id: uow.seeks.get(seek_id) for seek_id in old + young}
        assert uow.seeks.expire(NOW) == []  # each seek expires once
    assert [found[seek_id].status for seek_id in old + young] == [EXPIRED] * 3 + [WAITING]  # type: ignore[union-attr]
    assert all(found[seek_id].settled_at == NOW for seek_id in old)  # type: ignore[union-attr]
