"""SQLite's hot path: a move's statements sent straight to the sqlite3 module.

In process a statement costs SQLite a few microseconds; through SQLAlchemy's execution
machinery it cost a move about 2 ms of its ~5 (docs/performance.md). Here the load (the
game's row with its seats as a JSON array, one statement), the version-checked UPDATE, the
log's INSERT and a stored idempotent answer go to the driver as they are. Values are stored
and read exactly as SQLAlchemy stores and reads them: every conversion is the column type's
own bind or result processor for this engine's dialect, taken once. The UPDATE checks the
version it loaded (no row: ``ConcurrentUpdate``), the log's primary key refuses a second writer
of the same step, and SQLite serialises writers (their order kept by write_gate.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import orjson
from sqlalchemy import Dialect, Engine, Table, bindparam, insert, update

from app.persistence.models import EVENTS, GAMES, IDEMPOTENT, SEATS
from app.persistence.repository import SqlGameRepository
from app.persistence.statements import (
    CHANGING_COLUMNS,
    CHANGING_RECORD_COLUMNS,
    EVENT_COLUMNS,
    LOADED_COLUMNS,
    SEAT_COLUMNS,
    assignment,
    game_row,
    insert_result,
    insert_text,
    now,
    seat_rows,
    storable,
    stored_state,
    utc,
)
from app.persistence.stored_answers import packed
from app.persistence.write_gate import WriteGate
from app.services.errors import ConcurrentUpdate, Unavailable
from app.services.log import EventRecord
from app.services.model import GameRecord, Seat, StoredResult

# json_group_array cannot order what it gathers before SQLite 3.44: the seats are sorted after.
_LOAD = (
    f"SELECT {', '.join(LOADED_COLUMNS)}, (SELECT json_group_array(json_array("
    + ", ".join(SEAT_COLUMNS)
    + ")) FROM seats WHERE seats.game_id = games.id) FROM games WHERE id = ?"
)
# The indexed columns of a save, set only when they changed: SQLite rewrites an index whose
# column an UPDATE sets, even to the value it had (two more pages written a move when both are).
_INDEXED = ("status", "deadline")


def _save_statement(unchanged: frozenset[str]) -> str:
    assignments = (assignment(name, f":{name}") for name in CHANGING_COLUMNS
                   if name not in unchanged)  # fmt: skip
    where = "WHERE id = :game_id AND version = :expected_version"
    return f"UPDATE games SET {', '.join(assignments)} {where}"


# The forms of a save, by the indexed columns it leaves as they are, built once.
_SAVES = {
    unchanged: _save_statement(unchanged)
    for unchanged in (frozenset(), frozenset({"status"}), frozenset({"deadline"}),
                      frozenset(_INDEXED))
}  # fmt: skip


def _positional(_name: str) -> str:
    return "?"


_APPEND = insert_text("events", EVENT_COLUMNS, _positional)
_STORE_RESULT = insert_result(_positional)
# A join's seats and a new game's rows, rarely written: through SQLAlchemy, whose column types
# convert them.
_SAVE_SEAT = (
    update(SEATS)
    .where(SEATS.c.game_id == bindparam("seat_game"), SEATS.c.seat == bindparam("seat_number"))
    .values(
        name=bindparam("name"),
        seed=bindparam("seed"),
        token_hash=bindparam("token_hash"),
        player_id=bindparam("player_id"),
    )
)
_LOCK_WORDS = ("locked", "busy")

Convert = Callable[[Any], Any]


class SqliteGameRepository(SqlGameRepository):
    """``SqlGameRepository`` with the statements of a move sent by the sqlite3 module."""

    def __init__(self, engine: Engine, gate: WriteGate | None = None) -> None:
        super().__init__(engine)
        self.convert = _conversions(engine.dialect)
        self.gate = gate
        self.holding_gate = False

    def before_writing(self) -> None:
        """Queue at the gate before this unit of work's first write (write_gate.py)."""
        if self.gate is not None and not self.holding_gate:
            self.gate.enter()
            self.holding_gate = True

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self.finished()  # the next writer need not wait for this answer to be built

    def finished(self) -> None:
        if self.holding_gate:
            self.holding_gate = False
            assert self.gate is not None
            self.gate.leave()

    def get(
        self, game_id: str, for_update: bool = False, idempotency_key: str | None = None
    ) -> GameRecord | None:
        """``for_update`` changes nothing here: SQLite has no row locks, and the version
        check of ``save`` is the guard. A stored answer is read by ``stored_result`` (in
        process, a query costs microseconds)."""
        if not storable(game_id):
            return None
        with _translated():
            row = self._driver().execute(_LOAD, (game_id,)).fetchone()
        if row is None:
            return None
        read = self.convert.read
        fields = {name: read[name](value) for name, value in zip(LOADED_COLUMNS, row, strict=False)}
        fields["deadline"] = utc(fields["deadline"])
        seats = sorted(orjson.loads(row[-1]))  # by seat number, the first of each
        return GameRecord(**fields, seats=[Seat(*seat) for seat in seats])

    def add(self, game: GameRecord) -> None:
        """A new game's rows, through SQLAlchemy (a game is created once: not the hot path)."""
        self.connection.execute(insert(GAMES), [game_row(game)])
        self.connection.execute(insert(SEATS), seat_rows(game))
        self._append(game)

    def save(self, game: GameRecord) -> None:
        write = self.convert.write_game
        values = {name: getattr(game, name) for name in CHANGING_RECORD_COLUMNS}
        values |= stored_state(game)
        stored = {name: write[name](value) for name, value in values.items()}
        stored |= {"game_id": game.id, "expected_version": game.loaded_version}
        unchanged = frozenset(_unchanged_indexed(game))
        self.before_writing()
        with _translated():
            if self._driver().execute(_SAVES[unchanged], stored).rowcount != 1:
                raise ConcurrentUpdate(game.id)
        self._save_seats(game)  # a join's, rarely: through SQLAlchemy
        self._append(game)

    def _save_seats(self, game: GameRecord) -> None:
        for number in sorted(game.changed_seats):
            seat = game.seats[number]
            self.connection.execute(_SAVE_SEAT, {"seat_game": game.id, "seat_number": number,
                "name": seat.name, "seed": seat.seed, "token_hash": seat.token_hash,
                "player_id": seat.player_id})  # fmt: skip

    def _append(self, game: GameRecord) -> None:
        """A (game_id, seq) taken already is a lost race (``ConcurrentUpdate``)."""
        if game.new_events:
            rows = [
                _event_values(game.id, entry, self.convert.write_data) for entry in game.new_events
            ]
            with _translated():
                self._driver().executemany(_APPEND, rows)

    def store_result(self, game_id: str, seat: int, key: str, stored: StoredResult) -> None:
        write = self.convert.write_result
        answer = write["answer"](packed(game_id, stored.result))
        row = (game_id, seat, key, stored.request_hash, answer, write["created_at"](now()))
        self.before_writing()
        with _translated():
            self._driver().execute(_STORE_RESULT, row)

    def _driver(self) -> sqlite3.Connection:
        """The sqlite3 connection of this unit of work, in its transaction."""
        return self.connection.connection.driver_connection  # type: ignore[return-value]


def _unchanged_indexed(game: GameRecord) -> Iterator[str]:
    """The indexed columns whose value the save would write as it was loaded."""
    if game.status == game.loaded_status:
        yield "status"
    if game.deadline == game.loaded_deadline:
        yield "deadline"


class _Conversions:
    """Each column's own conversions for a dialect: to what is stored, from what is read."""

    def __init__(self, dialect: Dialect) -> None:
        self.read = {name: _reader(GAMES, name, dialect) for name in LOADED_COLUMNS}
        self.write_game = {name: _writer(GAMES, name, dialect) for name in CHANGING_COLUMNS}
        self.write_data = _writer(EVENTS, "data", dialect)
        self.write_result = {name: _writer(IDEMPOTENT, name, dialect)
                             for name in ("answer", "created_at")}  # fmt: skip


@cache
def _conversions(dialect: Dialect) -> _Conversions:
    return _Conversions(dialect)


def _reader(table: Table, name: str, dialect: Dialect) -> Convert:
    column_type = table.c[name].type.dialect_impl(dialect)
    return column_type.result_processor(dialect, None) or _same


def _writer(table: Table, name: str, dialect: Dialect) -> Convert:
    column_type = table.c[name].type.dialect_impl(dialect)
    return column_type.bind_processor(dialect) or _same


def _same(value: Any) -> Any:
    return value


def _event_values(game_id: str, entry: EventRecord, data: Convert) -> Sequence[Any]:
    return (game_id, entry.seq, entry.type, data(entry.data), entry.at, entry.hash)


@contextmanager
def _translated() -> Iterator[None]:
    """The service's exception for a driver error, as ``unit_of_work.translated`` says."""
    try:
        yield
    except sqlite3.IntegrityError as error:  # a duplicate log step or idempotency key
        raise ConcurrentUpdate(str(error)) from error
    except sqlite3.OperationalError as error:
        if any(word in str(error).lower() for word in _LOCK_WORDS):
            raise ConcurrentUpdate(str(error)) from error
        raise Unavailable("the database is not answering; try again") from error
