"""A unit of work of games holds one pooled connection and no ORM session: the session's
bookkeeping was a tenth of what a move cost beside the game itself (docs/performance.md,
"Where a move's cost goes"). Every way out of a unit of work gives its connection back, and what it
did not commit is undone. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.persistence import Database, SqlUnitOfWork
from app.services import audit, games, playing
from app.services.creation import Player
from app.services.errors import ConcurrentUpdate

from .test_unit_of_work import a_move_to_save, a_won_race


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


@pytest.fixture
def no_sessions(database: Database, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ORM sessions the database is asked for (only ``ping`` and ``schema_revisions``
    should ask)."""
    asked: list[str] = []
    made = database.session

    def noted() -> Any:
        asked.append("session")
        return made()

    monkeypatch.setattr(database, "session", noted)
    return asked


def checked_out(database: Database) -> int:
    return database.engine.pool.checkedout()  # type: ignore[attr-defined,no-any-return]


def test_creating_a_game_and_playing_its_moves_make_no_orm_session(database, no_sessions):
    created = games.create_game(
        SqlUnitOfWork(database), [Player(name="Amira"), Player(bot="greedy")]
    )
    token = created.seats[0]["token"]
    for _ in range(3):
        with SqlUnitOfWork(database) as uow:
            game = uow.games.get(created.game_id)
            assert game is not None
            card = str(game.state.hands[0][0])
        playing.play_card(SqlUnitOfWork(database), playing.PlayCard(created.game_id, token, card))
    assert len(audit.moves(SqlUnitOfWork(database), created.game_id)) == 6
    assert no_sessions == []
    assert checked_out(database) == 0


def test_the_health_check_still_goes_through_a_session(database, no_sessions):
    """The yardstick bench/api.py measures moves against stays as it was: a pool checkout
    and ``SELECT 1``."""
    SqlUnitOfWork(database).ping()
    assert no_sessions == ["session"]
    assert checked_out(database) == 0


def test_a_committed_unit_of_work_gives_its_connection_back(database):
    game = a_move_to_save(database)
    with SqlUnitOfWork(database) as uow:
        uow.games.save(game)
        uow.commit()
    assert checked_out(database) == 0
    assert len(audit.moves(SqlUnitOfWork(database), game.id)) == 1


def test_one_left_without_a_commit_gives_it_back_and_keeps_nothing(database):
    game = a_move_to_save(database)
    with SqlUnitOfWork(database) as uow:
        uow.games.save(game)
    assert checked_out(database) == 0
    assert audit.moves(SqlUnitOfWork(database), game.id) == []


def test_one_that_lost_a_race_gives_it_back(database):
    _, stale = a_won_race(database)
    with pytest.raises(ConcurrentUpdate), SqlUnitOfWork(database) as uow:
        uow.games.save(stale)
        uow.commit()
    assert checked_out(database) == 0


def test_one_that_raised_gives_it_back_and_keeps_nothing(database):
    game = a_move_to_save(database)
    with pytest.raises(KeyError), SqlUnitOfWork(database) as uow:
        uow.games.save(game)
        raise KeyError("a bug after the write")
    assert checked_out(database) == 0
    assert audit.moves(SqlUnitOfWork(database), game.id) == []


def test_one_rolled_back_can_go_on_and_commit_what_follows(database):
    first, second = a_move_to_save(database), a_move_to_save(database)
    with SqlUnitOfWork(database) as uow:
        uow.games.save(first)
        uow.rollback()
        uow.games.save(second)
        uow.commit()
    assert audit.moves(SqlUnitOfWork(database), first.id) == []
    assert len(audit.moves(SqlUnitOfWork(database), second.id)) == 1
    assert checked_out(database) == 0


def test_a_unit_of_work_that_sends_nothing_takes_no_connection(database):
    with SqlUnitOfWork(database) as uow:
        assert uow.games.get("no such game\x00") is None  # refused before any statement
        assert checked_out(database) == 0


def test_the_pool_hands_out_the_connection_given_back_last(database, backend):
    """After a burst opened several connections, the steady load keeps to the warm ones."""
    if backend != "postgresql":
        pytest.skip("SQLite's pool is its own")
    first, second, third = (database.engine.connect() for _ in range(3))
    drivers = [c.connection.driver_connection for c in (first, second, third)]
    for connection in (third, first, second):  # second is given back last
        connection.close()
    with database.engine.connect() as again:
        assert again.connection.driver_connection is drivers[1]
