"""PostgreSQL's move statements prepared once per connection and sent through libpq
(app/persistence/libpq.py): prepared again when psycopg has dropped them, read as a cursor
reads them, refused when a value has no text form, and a lost race still a lost race."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import psycopg
import pytest
from psycopg.types.json import Json

from app.persistence import Database, SqlUnitOfWork
from app.persistence.libpq import OnConnection, Prepared, _text
from app.services import audit

from .test_moves_in_two_messages import against_a_bot, hand, play
from .test_unit_of_work import loaded


@pytest.fixture
def database(database_url: str, backend: str) -> Iterator[Database]:
    if backend != "postgresql":
        pytest.skip("libpq is PostgreSQL's")
    db = Database(database_url, pool_size=1)  # the same connection for every unit of work
    yield db
    db.dispose()


def the_connection(database: Database) -> psycopg.Connection:
    with database.engine.connect() as connection:
        driver = connection.connection.driver_connection
    assert isinstance(driver, psycopg.Connection)
    return driver


def test_a_statement_dropped_by_deallocate_all_is_prepared_again(database):
    game_id, token = against_a_bot(database)
    first, second = hand(database, game_id)[:2]
    play(SqlUnitOfWork(database), game_id, token, first)  # the load and the save prepared
    driver = the_connection(database)
    driver.execute("DEALLOCATE ALL")  # what psycopg sends when it rolls a transaction back
    driver.commit()

    played = play(SqlUnitOfWork(database), game_id, token, second)

    assert played.moves[0]["card"] == second
    assert [move["card"] for move in audit.moves(SqlUnitOfWork(database), game_id)][::2] == [
        first,
        second,
    ]
    assert audit.verify(SqlUnitOfWork(database), game_id)["ok"]


def test_a_row_read_through_libpq_is_the_row_a_cursor_reads(database):
    game_id, token = against_a_bot(database)
    play(SqlUnitOfWork(database), game_id, token, hand(database, game_id)[0])
    with SqlUnitOfWork(database) as uow:
        through_libpq = uow.games.get(game_id)  # idle: sent alone
    with SqlUnitOfWork(database) as uow:
        through_a_cursor = uow.games.get(game_id, for_update=True)  # in a transaction
    assert through_libpq is not None and through_a_cursor is not None
    assert vars(through_libpq) == vars(through_a_cursor)
    assert through_libpq.updated_at.tzinfo is not None


def test_a_lost_race_sent_through_libpq_is_psycopgs_own_error(database):
    """The save's version check divides by zero when no row matched, as a cursor sees it."""
    game_id, _token = against_a_bot(database)
    statement = Prepared.of("SELECT 1 / count(*) FROM games WHERE id = %(game_id)s AND false")
    with database.engine.connect() as connection:
        driver = connection.connection.driver_connection
        assert isinstance(driver, psycopg.Connection)
        driver.commit()  # idle, as a move's statements find it
        on_connection = OnConnection.of(connection.info, driver)
        with pytest.raises(psycopg.errors.DivisionByZero):
            on_connection.execute(statement, {"game_id": game_id})
        assert driver.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_a_value_goes_as_the_text_postgresql_reads_or_is_refused():
    moment = datetime(2026, 12, 1, 21, 30, 5, 123456, tzinfo=UTC)
    assert _text(None, "utf-8") is None
    assert _text(True, "utf-8") == b"true" and _text(0, "utf-8") == b"0"
    assert _text("Amira ع", "utf-8") == "Amira ع".encode()
    assert _text(moment, "utf-8") == b"2026-12-01T21:30:05.123456+00:00"
    assert _text(Json({"a": [1]}), "utf-8") == _text({"a": [1]}, "utf-8") == b'{"a":[1]}'
    with pytest.raises(TypeError, match="time zone"):
        _text(moment.replace(tzinfo=None), "utf-8")
    with pytest.raises(TypeError, match="float"):
        _text(1.5, "utf-8")


def test_placeholders_become_numbered_parameters_once_each():
    statement = Prepared.of("SELECT %(a)s, %(b)s WHERE %(a)s IS NOT NULL")
    assert statement.text == b"SELECT $1, $2 WHERE $1 IS NOT NULL"
    assert statement.parameters == ("a", "b")
    assert statement.name != Prepared.of("SELECT 1").name


def test_a_new_connection_prepares_its_own(database):
    game_id, token = against_a_bot(database)
    cards = hand(database, game_id)
    play(SqlUnitOfWork(database), game_id, token, cards[0])
    database.engine.dispose()  # every pooled connection closed: the next one is new
    played = play(SqlUnitOfWork(database), game_id, token, cards[1])
    assert played.moves[0]["card"] == cards[1]
    assert loaded(database, game_id).version == played.state["version"]
