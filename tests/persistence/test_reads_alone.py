"""A request's first read by key (the player its bearer names, the seek it asks for) needs no
transaction: on PostgreSQL it is one message to the server, not BEGIN and then the read; so
is a new seek, an insert alone. A read that comes after a write of its unit of work still
sees that write, and the connection goes back to the pool out of autocommit."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from app.persistence import Database, SqlUnitOfWork
from app.services.access import hash_token
from app.services.model import WAITING, PlayerRecord, SeekRecord
from app.services.seeks import AlreadySeeking, Seeking, kind_of, open_seek

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url, pool_size=1)  # the same connection for every unit of work
    yield db
    db.dispose()


def a_player(database: Database) -> tuple[PlayerRecord, str]:
    player, token = PlayerRecord(secrets.token_hex(8), "Amira"), secrets.token_hex(16)
    with SqlUnitOfWork(database) as uow:
        uow.players.add(player, hash_token(token), None)
        uow.commit()
    return player, token


def a_seek(player_id: str) -> SeekRecord:
    rules = {"target_score": 101}
    return SeekRecord(id=secrets.token_hex(8), player_id=player_id, name="Amira", rating=25.0,
                      players=2, rated=False, rules=rules, kind=kind_of(2, False, rules),
                      bot_after=None, status=WAITING, created_at=NOW,
                      expires_at=NOW + timedelta(minutes=10))  # fmt: skip


def test_a_first_read_by_key_is_one_message(database, round_trips):
    player, token = a_player(database)
    seek = a_seek(player.id)
    with SqlUnitOfWork(database) as uow:
        uow.seeks.add(seek)
        uow.commit()
    reads = [
        lambda uow: uow.players.of_token(hash_token(token)),
        lambda uow: uow.players.get(player.id),
        lambda uow: uow.seeks.get(seek.id),
    ]
    counts = []
    for read in reads:
        round_trips.clear()
        with SqlUnitOfWork(database) as uow:
            assert read(uow) is not None
        counts.append(round_trips["waits"])
    assert counts == [1, 1, 1]  # in a transaction, a BEGIN went first: two
    with database.engine.connect() as connection:
        driver = connection.connection.driver_connection
        assert driver is not None and driver.autocommit is False


def test_reads_alone_find_what_is_committed_and_a_write_sees_its_own(database):
    player, token = a_player(database)
    seek = a_seek(player.id)
    with SqlUnitOfWork(database) as uow:
        assert uow.players.of_token(hash_token(token)) == player
        assert uow.seeks.get(seek.id) is None
        uow.seeks.add(seek)  # a write, then a read in its transaction: it sees the seek
        found = uow.seeks.get(seek.id)
        assert found is not None and found.status == WAITING
        # not committed: gone with the unit of work
    with SqlUnitOfWork(database) as uow:
        assert uow.seeks.get(seek.id) is None
        assert uow.players.get(player.id) == player
        uow.seeks.add(seek)  # a read alone first, then a write and its commit
        uow.commit()
    with SqlUnitOfWork(database) as uow:
        again = uow.seeks.get(seek.id)
        assert again is not None and again.id == seek.id


def test_a_new_seek_is_one_message_and_a_second_is_refused(database, round_trips):
    player, _ = a_player(database)
    seeking = Seeking(player.id, player.name, 25.0)
    round_trips.clear()
    first = open_seek(SqlUnitOfWork(database), seeking, 2, now=NOW)
    assert round_trips["waits"] == 1  # with a read of the player's seeks first: 3
    with pytest.raises(AlreadySeeking) as refused:
        open_seek(SqlUnitOfWork(database), seeking, 2, now=NOW)
    assert refused.value.extra["seek_id"] == first.id
    with SqlUnitOfWork(database) as uow:
        found = uow.seeks.get(first.id)
        assert found is not None and found.status == WAITING and found.rules == first.rules
