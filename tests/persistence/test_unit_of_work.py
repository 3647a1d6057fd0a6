"""The SQL unit of work: the one place where database errors become the services' own, and
the version-checked save that makes a lost race a retry, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

from app.engine import Play
from app.persistence import Database, SqlUnitOfWork
from app.persistence.unit_of_work import translated
from app.services import audit, games
from app.services.creation import Player
from app.services.errors import ConcurrentUpdate, Unavailable
from app.services.model import GameRecord
from app.services.progress import execute


class DriverError(Exception):
    """What a DBAPI driver raises; SQLAlchemy wraps it as ``orig``."""


def wrapped(kind: type[OperationalError] | type[IntegrityError] | type[ProgrammingError],
            text: str) -> OperationalError | IntegrityError | ProgrammingError:  # fmt: skip
    return kind("SELECT 1", {}, DriverError(text))


@pytest.mark.parametrize("text", [
    "database is locked", "database table is busy",
    "could not serialize access due to concurrent update", "deadlock detected",
])  # fmt: skip
def test_a_lock_or_serialisation_failure_is_a_lost_race(text):
    assert isinstance(translated(wrapped(OperationalError, text)), ConcurrentUpdate)


def test_a_duplicate_key_is_a_lost_race():
    error = wrapped(IntegrityError, 'duplicate key value violates unique constraint "pk_events"')
    assert isinstance(translated(error), ConcurrentUpdate)


def test_a_database_that_does_not_answer_is_unavailable():
    error = wrapped(OperationalError, "connection to server at 127.0.0.1 refused")
    assert isinstance(translated(error), Unavailable)


def test_a_bug_in_a_statement_stays_a_bug():
    assert translated(wrapped(ProgrammingError, 'relation "gmaes" does not exist')) is None


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


def two_humans(database: Database) -> str:
    uow = SqlUnitOfWork(database)
    return games.create_game(uow, [Player(name="Amira"), Player(name="Badr")]).game_id


def loaded(database: Database, game_id: str) -> GameRecord:
    with SqlUnitOfWork(database) as uow:
        game = uow.games.get(game_id)
    assert game is not None
    return game


def play_first_card(game: GameRecord) -> None:
    seat = game.state.turn
    assert seat is not None
    execute(game, Play(seat, game.state.hands[seat][0]), [])


def a_move_to_save(database: Database) -> GameRecord:
    """A new game of two humans, loaded, with its first card played and not saved yet."""
    game = loaded(database, two_humans(database))
    play_first_card(game)
    return game


def a_won_race(database: Database) -> tuple[GameRecord, GameRecord]:
    """Two loads of one game each play a card; the first is saved and committed, so the
    second is stale: it was loaded at a version the game has since moved on from."""
    game_id = two_humans(database)
    first, stale = loaded(database, game_id), loaded(database, game_id)
    play_first_card(first)
    play_first_card(stale)
    with SqlUnitOfWork(database) as uow:
        uow.games.save(first)
        uow.commit()
    return first, stale


def test_two_transactions_saving_the_same_version_apply_once(database):
    first, second = a_won_race(database)
    with pytest.raises(ConcurrentUpdate), SqlUnitOfWork(database) as uow:
        uow.games.save(second)
        uow.commit()
    assert len(audit.moves(SqlUnitOfWork(database), first.id)) == 1


def test_leaving_without_a_commit_writes_nothing(database):
    game = a_move_to_save(database)
    with SqlUnitOfWork(database) as uow:
        uow.games.save(game)
    assert audit.moves(SqlUnitOfWork(database), game.id) == []
    assert audit.verify(SqlUnitOfWork(database), game.id)["ok"]
