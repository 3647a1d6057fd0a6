"""PostgreSQL's move statements prepared by psycopg once per connection: prepared at a
connection's first move, prepared again when a rollback has dropped them, read as they read in a
transaction, and a lost race still a lost race."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from app.persistence import Database, SqlUnitOfWork
from app.persistence.postgres import LOAD, SAVE
from app.services import audit
from app.services.errors import ConcurrentUpdate

from .test_moves_in_two_messages import against_a_bot, hand, play
from .test_unit_of_work import loaded


@pytest.fixture
def database(database_url: str, backend: str) -> Iterator[Database]:
    if backend != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    db = Database(database_url, pool_size=1)  # the same connection for every unit of work
    yield db
    db.dispose()


def prepared_on(database: Database) -> dict[str, tuple[object, int]]:
    """The statements prepared on the pool's one connection, as the server knows them: when
    each was prepared, and how many times it ran since."""
    with database.engine.connect() as connection:
        driver = connection.connection.driver_connection
        assert isinstance(driver, psycopg.Connection)
        rows = driver.execute(
            "SELECT statement, prepare_time, generic_plans + custom_plans"
            " FROM pg_prepared_statements"
        ).fetchall()
        driver.commit()
    return {statement: (prepared, runs) for statement, prepared, runs in rows}


def the_one(prepared: dict[str, tuple[object, int]], statement: str) -> tuple[object, int]:
    before_its_values = statement.split("%(")[0]  # the server shows $1, $2... after
    (found,) = [seen for sent, seen in prepared.items() if sent.startswith(before_its_values)]
    return found


def test_a_moves_load_and_save_are_prepared_once_and_run_by_every_move(database):
    game_id, token = against_a_bot(database)
    cards = hand(database, game_id)
    play(SqlUnitOfWork(database), game_id, token, cards[0])
    first = prepared_on(database)
    for card in cards[1:4]:
        play(SqlUnitOfWork(database), game_id, token, card)
    later = prepared_on(database)
    for statement in (LOAD, SAVE[False, False]):
        prepared, runs = the_one(first, statement)
        prepared_later, runs_later = the_one(later, statement)
        assert prepared_later == prepared  # not prepared again
        assert runs_later == runs + 3  # one run a move


def test_a_move_after_a_rollback_dropped_the_statements_prepares_them_again(database):
    game_id, token = against_a_bot(database)
    first, second = hand(database, game_id)[:2]
    play(SqlUnitOfWork(database), game_id, token, first)  # the load and the save prepared
    with SqlUnitOfWork(database) as uow:
        uow.games.events(game_id)  # a read in a transaction, rolled back at the end
    with database.engine.connect() as connection:
        driver = connection.connection.driver_connection
        assert isinstance(driver, psycopg.Connection)
        driver.execute("DEALLOCATE ALL")  # and dropped on the server, whatever psycopg knows
        driver.commit()

    played = play(SqlUnitOfWork(database), game_id, token, second)

    assert played.moves[0]["card"] == second
    assert [move["card"] for move in audit.moves(SqlUnitOfWork(database), game_id)][::2] == [
        first,
        second,
    ]
    assert audit.verify(SqlUnitOfWork(database), game_id)["ok"]


def test_a_row_loaded_alone_is_the_row_loaded_in_a_transaction(database):
    game_id, token = against_a_bot(database)
    play(SqlUnitOfWork(database), game_id, token, hand(database, game_id)[0])
    with SqlUnitOfWork(database) as uow:
        alone = uow.games.get(game_id)  # idle: sent alone, autocommitted
    with SqlUnitOfWork(database) as uow:
        in_a_transaction = uow.games.get(game_id, for_update=True)
    assert alone is not None and in_a_transaction is not None
    assert vars(alone) == vars(in_a_transaction)
    assert alone.updated_at.tzinfo is not None


def test_a_save_that_lost_its_race_alone_is_a_lost_race_and_leaves_the_connection_idle(database):
    """The save's version check divides by zero when no row matched."""
    game_id, _token = against_a_bot(database)
    with SqlUnitOfWork(database) as uow:
        game = uow.games.get(game_id)
    assert game is not None
    with SqlUnitOfWork(database) as uow:
        game.loaded_version -= 1  # somebody else moved the game on since
        uow.games.save(game)
        with pytest.raises(ConcurrentUpdate):
            uow.commit()
    with database.engine.connect() as connection:
        driver = connection.connection.driver_connection
        assert isinstance(driver, psycopg.Connection)
        assert driver.autocommit is False
        assert driver.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE
    assert loaded(database, game_id).version == game.loaded_version + 1


def test_a_new_connection_prepares_its_own(database):
    game_id, token = against_a_bot(database)
    cards = hand(database, game_id)
    play(SqlUnitOfWork(database), game_id, token, cards[0])
    database.engine.dispose()  # every pooled connection closed: the next one is new
    played = play(SqlUnitOfWork(database), game_id, token, cards[1])
    assert played.moves[0]["card"] == cards[1]
    assert loaded(database, game_id).version == played.state["version"]
