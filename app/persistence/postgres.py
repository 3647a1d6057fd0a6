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
can answer. The statements' texts, built once, come first in this module, with why they read
as they do; what is asked of the psycopg connection itself (whether a transaction is open, one
statement sent in autocommit, JSON parameters wrapped, psycopg's errors as the service's) is at
its end. A statement sent with no transaction open is sent in psycopg's autocommit, set
for that statement alone (``autocommitted``): no BEGIN goes first.

Every statement of ``SqlGameRepository`` (the reads that are not hot) goes through
``self.connection``, which sends the held writes first: a use case reads its own writes.

The save's UPDATE checks the version it loaded. The statement fails when no row matched
(``1 / count(*)`` of the updated rows divides by zero), which aborts its transaction: the log
entries, the seats, the answer and the notice go with it. The log's primary key still refuses
a second writer of the same step, the answers' a second answer to one key, and a NOTIFY is
delivered only if its transaction commits. A load ``for_update`` (a retry after a lost race,
a join, a resignation, the sweeper) runs in a transaction, as every write after it does.

The load and the save are prepared by psycopg (``prepare=True``) the first time a connection
sends each: from then on only their values travel. psycopg keeps the names it prepared on each
connection, and forgets them when a rollback drops them on the server (it sends DEALLOCATE ALL
then), so the next send prepares again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.pq import TransactionStatus
from psycopg.types.json import Json
from sqlalchemy import Connection, CursorResult, Engine, Executable, Insert

from app.persistence.notifications import CHANNEL, notice_text
from app.persistence.repository import SqlGameRepository
from app.persistence.statements import (
    CHANGING_COLUMNS,
    CHANGING_RECORD_COLUMNS,
    LOADED_COLUMNS,
    SEAT_COLUMNS,
    assignment,
    game_row,
    insert_result,
    insert_text,
    json_text,
    now,
    seat_rows,
    storable,
    stored_state,
)
from app.persistence.stored_answers import packed, unpacked
from app.services.errors import ConcurrentUpdate, Unavailable
from app.services.log import EventRecord
from app.services.model import GameRecord, Seat, StoredResult

# The seats ride along with their game as one JSON array: one statement, one result.
_SEATS = (
    "(SELECT json_agg(json_build_array("
    + ", ".join(SEAT_COLUMNS)
    + ") ORDER BY seat) FROM seats WHERE seats.game_id = games.id)"
)
# The answers stored under one Idempotency-Key, every seat's (the seat is known only once the
# token is checked), each in hexadecimal (JSON has no bytes); ``seat IN`` lets the primary key
# (game_id, seat, key) find each directly.
_ANSWERS = (
    "(SELECT json_agg(json_build_array(seat, request_hash, encode(answer, 'hex')))"
    " FROM idempotent_responses"
    " AS answer WHERE answer.game_id = games.id AND answer.seat IN (0, 1, 2, 3)"
    " AND answer.key = %(key)s)"
)
LOAD = f"SELECT {', '.join(LOADED_COLUMNS)}, {_SEATS} FROM games WHERE id = %(game_id)s"
LOAD_WITH_ANSWERS = (
    f"SELECT {', '.join(LOADED_COLUMNS)}, {_SEATS}, {_ANSWERS} FROM games WHERE id = %(game_id)s"
)
# A locked load is two statements: the lock, then the load. In one statement, a load that
# waited for the lock sees the game's row as its holder left it (PostgreSQL reads a locked row
# again once the lock is free), but its sub-selects as they were when the statement began:
# two players joining at once were both given the seat the first had just taken, and a retry
# would miss the answer the lock holder stored. A statement sent after the lock sees them all.
LOCK = "SELECT 1 FROM games WHERE id = %(game_id)s FOR UPDATE"
# The log entries travel as one JSON array of objects, each entry's data spliced in as the
# JSON text it was hashed as: a json column keeps the text it is given, and PostgreSQL's
# json_to_recordset hands a json field on exactly as written (tests/services/test_log_hash.py,
# the audit's checkpoints). Five arrays as parameters cost psycopg ~25 us a move to send.
_NEW_ENTRIES = (
    "json_to_recordset(%(entries)s::json) AS entry(seq integer, type text, data json, at text,"
    " hash text)"
)
_SAVED = (
    "WITH saved AS (UPDATE games SET "
    + ", ".join(assignment(name, f"%({name})s") for name in CHANGING_COLUMNS)
    + " WHERE id = %(game_id)s AND version = %(expected_version)s RETURNING id),"
    " logged AS (INSERT INTO events (game_id, seq, type, data, at, hash)"
    " SELECT saved.id, entry.seq, entry.type, entry.data, entry.at, entry.hash"
    f" FROM saved, {_NEW_ENTRIES})"
)
# The seats a join changed, as one JSON array of objects.
_SEATED = (
    ", seated AS (UPDATE seats SET name = changed.name, seed = changed.seed,"
    " token_hash = changed.token_hash, player_id = changed.player_id FROM saved,"
    " json_to_recordset(%(seats)s::json)"
    " AS changed(seat integer, name text, seed text, token_hash text, player_id text)"
    " WHERE seats.game_id = saved.id AND seats.seat = changed.seat)"
)
# The answer kept for the retries of the move's Idempotency-Key: in the move's own statement,
# so that no move is ever written without it (a retry would then play the card again).
_ANSWERED = (
    ", answered AS (INSERT INTO idempotent_responses"
    " (game_id, seat, key, request_hash, answer, created_at)"
    " SELECT saved.id, %(answer_seat)s::integer, %(answer_key)s::text, %(request_hash)s::text,"
    " %(answer)s::bytea, %(created_at)s::timestamptz FROM saved)"  # typed: no column says here
)
# No row updated: somebody moved the game on since it was loaded. Dividing by the count
# makes that an error, which aborts the statement's transaction.
_CHECKED = " SELECT 1 / count(*), pg_notify(%(channel)s, %(notice)s) FROM saved"
# The four forms of a save, by (seats changed, answer kept), built once.
SAVE = {
    (seats, answer): _SAVED + (_SEATED if seats else "") + (_ANSWERED if answer else "") + _CHECKED
    for seats in (False, True)
    for answer in (False, True)
}
# The statements a move sends: each prepared the first time a connection sends it.
_PREPARED = frozenset((LOAD, LOAD_WITH_ANSWERS, *SAVE.values()))
APPEND = (
    "INSERT INTO events (game_id, seq, type, data, at, hash)"
    f" SELECT %(game_id)s, entry.seq, entry.type, entry.data, entry.at, entry.hash"
    f" FROM {_NEW_ENTRIES}"
)


def named(name: str) -> str:
    return f"%({name})s"


INSERT_RESULT = insert_result(named)
NOTIFY = "SELECT pg_notify(%(channel)s, %(notice)s)"


def prepared(statement: str) -> bool | None:
    """A move's statements are prepared at once; others after psycopg's usual five sends."""
    return True if statement in _PREPARED else None


def entries(new: Sequence[EventRecord]) -> dict[str, str]:
    """New log entries as the JSON text of ``_NEW_ENTRIES`` (none: ``[]``), in one encoding:
    each entry's data comes out as ``json_text`` of it alone would write it."""
    return {"entries": json_text([entry.to_dict() for entry in new])}


def changed_seats(game: GameRecord) -> str:
    """The seats ``game`` changed as the JSON text of ``_SEATED``."""
    return json_text([asdict(game.seats[number]) for number in sorted(game.changed_seats)])


def notice(game: GameRecord, after: int | None = None) -> dict[str, str]:
    """The NOTIFY of the game's new version; with what happened after version ``after`` when
    that is known (a save: the status, the scores and the events it appended), so that
    listeners need not read the log back."""
    if after is None:
        return {"channel": CHANNEL, "notice": f"{game.id}:{game.version}"}
    events = [(e.seq, e.type, e.data) for e in game.new_events]
    text = notice_text(game.id, game.version, after, game.status, game.state.scores, events)
    return {"channel": CHANNEL, "notice": text}


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

# What a lost race looks like from PostgreSQL: the save's version check (``_CHECKED``),
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
