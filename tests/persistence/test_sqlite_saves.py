"""SQLite's save sets an indexed column of games only when the move changed it: SQLite
rewrites an index whose column an UPDATE sets, even to the value it had, which cost every
move two more pages in the WAL (docs/performance.md, "SQLite")."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event

from app.persistence import Database, SqlUnitOfWork
from app.services import games, playing
from app.services.creation import Player

from .test_unit_of_work import loaded


@pytest.fixture
def database(database_url: str, backend: str) -> Iterator[Database]:
    if backend != "sqlite":
        pytest.skip("PostgreSQL updates a row whose indexed values stay in place (HOT)")
    db = Database(database_url)
    yield db
    db.dispose()


@pytest.fixture
def updates(database: Database) -> Iterator[list[str]]:
    """The UPDATE statements of games that the driver runs, as SQLite traces them."""
    sent: list[str] = []

    def trace(dbapi_connection, _record):  # type: ignore[no-untyped-def]
        dbapi_connection.set_trace_callback(
            lambda sql: sent.append(sql) if sql.startswith("UPDATE games") else None
        )

    event.listen(database.engine, "connect", trace)
    database.engine.dispose()  # connections from now on are traced
    yield sent


def against_a_bot(database: Database, **rules: object) -> tuple[str, str]:
    created = games.create_game(
        SqlUnitOfWork(database), [Player(name="Amira"), Player(bot="greedy")], rules=rules
    )
    return created.game_id, created.seats[0]["token"]


def play_first_card(database: Database, game_id: str, token: str, now: datetime) -> None:
    card = str(loaded(database, game_id).state.hands[0][0])
    playing.play_card(SqlUnitOfWork(database), playing.PlayCard(game_id, token, card), now=now)


def test_a_move_that_changes_no_indexed_column_sets_none(database, updates):
    game_id, token = against_a_bot(database)
    play_first_card(database, game_id, token, datetime.now(UTC))
    (update,) = updates
    assert " status = " not in update and " deadline = " not in update
    assert loaded(database, game_id).status == "active"


def test_a_clocked_move_sets_its_new_deadline_and_a_last_move_its_status(database, updates):
    game_id, token = against_a_bot(database, turn_seconds=30)
    before = loaded(database, game_id).deadline
    now = datetime.now(UTC) + timedelta(seconds=5)
    play_first_card(database, game_id, token, now)
    (update,) = updates
    assert " deadline = " in update and " status = " not in update
    deadline = loaded(database, game_id).deadline
    assert deadline is not None and deadline != before
    # 30 s from when the answer was ready: the move's time (with its bot's reply) added.
    assert timedelta(0) <= deadline - (now + timedelta(seconds=30)) < timedelta(seconds=5)
    updates.clear()
    resigned = playing.resign_game(SqlUnitOfWork(database), game_id, token)
    assert resigned.state["status"] == "finished"
    assert " status = " in updates[-1] and " deadline = " in updates[-1]
    stored = loaded(database, game_id)
    assert stored.status == "finished" and stored.deadline is None
