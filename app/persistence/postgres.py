"""PostgreSQL's hot path: a move in two messages to the server, sent by the driver itself.

Over SQLAlchemy a move sent eight (BEGIN, the locked load of the game, then of its seats,
the UPDATE, the log's INSERT, the NOTIFY, the COMMIT...), each paying SQLAlchemy's
statement machinery on top of the driver's. Here a move sends two:

- the load: the game's row with its seats as a JSON array and, for a move sent with an
  Idempotency-Key, the answers stored under that key; one statement, one snapshot. A unit
  of work that begins with a load not ``for_update`` sends it outside any transaction
  (no BEGIN), since a lone read needs none;
- the write: the writes a use case makes are held back until it commits (or reads again),
  then sent as few statements as possible. A save is ONE statement (data-modifying CTEs):
  the version-checked UPDATE, the new log entries, the seats it changed, the answer kept
  for the move's Idempotency-Key, and the NOTIFY of the new version. When that statement
  is all a unit of work writes and no transaction is open, it is sent alone, autocommitted:
  PostgreSQL runs it as a transaction of its own, so the move and its stored answer are
  written together or not at all, and no COMMIT need follow.

psycopg's pipeline mode was measured too (docs/performance.md): it saves waiting, but costs more
CPU on both sides than these few plain statements, and CPU is what bounds the moves a server
can answer. The statements' texts, and why they read as they do, are in postgres_statements.py;
what is asked of the psycopg connection itself (whether a transaction is open, one statement
sent in autocommit, JSON parameters wrapped, psycopg's errors as the service's) is at the end
of this module. A statement sent with no transaction open is sent in psycopg's autocommit, set
for that statement alone (``autocommitted``): no BEGIN goes first.

Every statement of ``SqlGameRepository`` (the reads that are not hot) goes through
``self.connection``, which sends the held writes first: a use case reads its own writes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.pq import TransactionStatus
from psycopg.types.json import Json
from sqlalchemy import Connection, CursorResult, Engine, Executable, Insert

from app.persistence.postgres_statements import (
    APPEND,
    INSERT_RESULT,
    LOAD,
    LOAD_WITH_ANSWERS,
    LOCK,
    NOTIFY,
    SAVE,
    changed_seats,
    entries,
    named,
    notice,
    prepared,
)
from app.persistence.repository import SqlGameRepository
from app.persistence.statements import (
    CHANGING_RECORD_COLUMNS,
    LOADED_COLUMNS,
    game_row,
    insert_text,
    now,
    seat_rows,
    storable,
    stored_state,
)
from app.persistence.stored_answers import packed, unpacked
from app.services.errors import ConcurrentUpdate, Unavailable
from app.services.model import GameRecord, Seat, StoredResult

_CURSOR = "basra_cursor"  # where a pooled connection keeps the cursor of ``_cursor``

Statement = tuple[str, Mapping[str, Any] | Sequence[Mapping[str, Any]]]


class PostgresGameRepository(SqlGameRepository):
    """``SqlGameRepository`` with its hot statements combined and sent by psycopg."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.held: list[Statement] = []  # writes not sent yet, in order
        self.held_save: dict[str, Any] | None = None  # the parameters of a held save
        # The answers read with the last game loaded: (game, key) -> seat -> answer.
        self.answers: dict[tuple[str, str], dict[int, StoredResult]] = {}

    @property
    def connection(self) -> Connection:
        """The connection, once the held writes are sent (so they keep their order)."""
        if self.held:
            self._send()
        return super().connection

    def get(
        self, game_id: str, for_update: bool = False, idempotency_key: str | None = None
    ) -> GameRecord | None:
        """Without ``for_update`` and first in its unit of work, the load is sent outside
        any transaction; with ``idempotency_key`` the key's answers come along."""
        self.answers = {}
        if not storable(game_id):
            return None
        if self.held:
            self._send()  # a use case reads its own writes
        parameters, statement = {"game_id": game_id}, LOAD
        if idempotency_key is not None:
            statement, parameters["key"] = LOAD_WITH_ANSWERS, idempotency_key
        with translated():
            driver = self._driver()
            cursor = self._cursor(driver)
            if not for_update and idle(driver):
                with autocommitted(driver):
                    row = cursor.execute(statement, parameters, prepare=True).fetchone()
            else:
                self._connection()  # in its transaction
                if for_update:  # the load after the lock sees what was waited for
                    cursor.execute(LOCK, parameters)
                row = cursor.execute(statement, parameters, prepare=True).fetchone()
        if row is None:
            return None
        if statement is LOAD_WITH_ANSWERS:
            assert idempotency_key is not None
            answers = {seat: StoredResult(request_hash, unpacked(game_id, bytes.fromhex(answer)))
                       for seat, request_hash, answer in row[-1] or ()}  # fmt: skip
            self.answers[(game_id, idempotency_key)] = answers
            row = row[:-1]
        fields = dict(zip(LOADED_COLUMNS, row, strict=False))
        seats = [Seat(*seat) for seat in row[-1]]
        return GameRecord(**fields, seats=seats)

    def read_alone(
        self, statement: Executable, parameters: dict[str, Any] | None = None
    ) -> CursorResult[Any]:
        """First in its unit of work (no transaction open, no write held), the read is sent
        in psycopg's autocommit: no BEGIN goes before it, so it is one round trip where a
        transaction's read took two, and nothing is left to roll back. Later in the unit of
        work, it is read in the transaction, and sees its writes."""
        if self.held or not idle(driver := self._driver()):
            return self.connection.execute(statement, parameters)
        with autocommitted(driver):
            return self._checked_out().execute(statement, parameters)

    def stored_result(self, game_id: str, seat: int, key: str) -> StoredResult | None:
        """The answer read with the game when it was loaded with this key, else a query."""
        answers = self.answers.get((game_id, key))
        if answers is not None:
            return answers.get(seat)
        return super().stored_result(game_id, seat, key)

    def add(self, game: GameRecord) -> None:
        row = game_row(game)
        self._hold(insert_text("games", list(row), named), jsonable(row))
        seats = seat_rows(game)
        self._hold(insert_text("seats", list(seats[0]), named), seats)
        if game.new_events:
            self._hold(APPEND, {"game_id": game.id, **entries(game.new_events)})
        self._hold(NOTIFY, notice(game))

    def insert_row(self, statement: Insert, row: dict[str, Any]) -> None:
        self._hold(insert_text(statement.table.name, list(row), named), jsonable(dict(row)))

    def save(self, game: GameRecord) -> None:
        values = {name: getattr(game, name) for name in CHANGING_RECORD_COLUMNS}
        values |= stored_state(game)
        values |= {"game_id": game.id, "expected_version": game.loaded_version}
        values |= entries(game.new_events) | notice(game, after=game.loaded_version)
        if game.changed_seats:
            values["seats"] = changed_seats(game)
        self._hold(SAVE[bool(game.changed_seats), False], jsonable(values))
        self.held_save = values

    def store_result(self, game_id: str, seat: int, key: str, stored: StoredResult) -> None:
        """Kept by the statement of the game's save when it is held (it is, in a move): the
        move and its answer are written together or not at all."""
        answer = {"request_hash": stored.request_hash, "answer": packed(game_id, stored.result),
                  "created_at": now()}  # fmt: skip
        saved = self.held_save
        if saved is not None and saved["game_id"] == game_id and "answer_key" not in saved:
            saved |= answer | {"answer_seat": seat, "answer_key": key}
            self.held[-1] = (SAVE["seats" in saved, True], saved)
            return
        self._hold(INSERT_RESULT, {"game_id": game_id, "seat": seat, "key": key, **answer})

    def forget_writes(self) -> None:
        self.held, self.held_save, self.answers = [], None, {}

    def finished(self) -> None:
        self.answers = {}

    def commit(self) -> None:
        """A lone held statement with no transaction open is sent autocommitted: it is a
        transaction of its own, and neither BEGIN nor COMMIT need be sent."""
        if len(self.held) == 1 and isinstance(self.held[0][1], Mapping):
            connection = self._driver()
            if idle(connection):
                ((statement, parameters),) = self.held
                self.forget_writes()
                assert isinstance(parameters, Mapping)  # checked above: one statement
                with translated(), autocommitted(connection):
                    self._cursor(connection).execute(
                        statement, parameters, prepare=prepared(statement)
                    )
                return  # the unit of work's end gives the connection back, as after a read
        if self.held:
            self._send()
        super().commit()

    def _hold(
        self, statement: str, parameters: Mapping[str, Any] | Sequence[Mapping[str, Any]]
    ) -> None:
        self.held.append((statement, parameters))
        self.held_save = None  # a later answer is no longer the last held write's

    def _send(self) -> None:
        held, self.held, self.held_save = self.held, [], None
        cursor = self._cursor(self._connection())
        with translated():
            for statement, parameters in held:
                if isinstance(parameters, Mapping):
                    cursor.execute(statement, parameters, prepare=prepared(statement))
                else:
                    cursor.executemany(statement, parameters)

    def _cursor(self, driver: psycopg.Connection[Any]) -> psycopg.Cursor[Any]:
        """The cursor kept for this repository's statements on ``driver``: a cursor finds its
        columns' loaders once, and a new one for each statement costs about 40 us more
        (docs/performance.md). Kept in the pooled connection's ``info``, which lives as long
        as the connection to the server; a new connection gets a new cursor."""
        info = self._checked_out().info
        cursor: psycopg.Cursor[Any] | None = info.get(_CURSOR)
        if cursor is None or cursor.closed or cursor.connection is not driver:
            cursor = info[_CURSOR] = driver.cursor()
        return cursor

    def _connection(self) -> psycopg.Connection[Any]:
        """The psycopg connection of this unit of work, in its transaction."""
        return super().connection.connection.driver_connection  # type: ignore[return-value]

    def _driver(self) -> psycopg.Connection[Any]:
        """The psycopg connection of this unit of work, with no transaction begun for it: a
        statement sent alone on it while it is idle is a transaction of its own."""
        return self._checked_out().connection.driver_connection  # type: ignore[return-value]


# What is asked of the psycopg connection itself.

_JSON_COLUMNS = ("snapshot", "rules", "custom_deck", "body", "ratings")

# What a lost race looks like from PostgreSQL: the save's version check (postgres_statements.py),
# a duplicate log step or idempotency key, a lock that could not be had.
_LOST_RACE = (
    pg_errors.DivisionByZero,
    pg_errors.UniqueViolation,
    pg_errors.LockNotAvailable,
    pg_errors.SerializationFailure,
    pg_errors.DeadlockDetected,
)


def idle(connection: psycopg.Connection[Any]) -> bool:
    """No transaction open on the connection (nothing sent since the last commit)."""
    # libpq's own status, an int: ``connection.info`` makes an object and an enum each time
    return connection.pgconn.transaction_status == TransactionStatus.IDLE


@contextmanager
def autocommitted(connection: psycopg.Connection[Any]) -> Iterator[None]:
    """Statements sent as transactions of their own: psycopg sends no BEGIN before them.
    The connection is never given back to the pool in autocommit: a broken or interrupted
    one is closed instead (the pool then drops it)."""
    connection.autocommit = True
    try:
        yield
    finally:
        if idle(connection):
            connection.autocommit = False
        else:
            connection.close()


def jsonable(row: dict[str, Any]) -> dict[str, Any]:
    """psycopg sends a dict or list parameter as JSON only when it is wrapped."""
    for name in _JSON_COLUMNS:
        if name in row:
            row[name] = Json(row[name])
    return row


@contextmanager
def translated() -> Iterator[None]:
    """The service's exception for what went wrong (as ``unit_of_work.translated`` does
    for SQLAlchemy's): a lost race to retry, or the database away."""
    try:
        yield
    except _LOST_RACE as error:
        raise ConcurrentUpdate(str(error)) from error
    except (psycopg.OperationalError, psycopg.InterfaceError) as error:
        raise Unavailable("the database is not answering; try again") from error
