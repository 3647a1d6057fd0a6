"""PostgreSQL's hot path: a move in four messages to the server, sent straight through psycopg.

Over SQLAlchemy a move sent eight (BEGIN, the locked load of the game, then of its seats,
the UPDATE, the log's INSERT, the NOTIFY, the COMMIT...), each paying SQLAlchemy's
statement machinery on top of the driver's. Here a move sends BEGIN, one load (the game's
row, locked, with its seats as a JSON array), one write and COMMIT:

- the writes a use case makes are held back until it commits (or reads again), then sent
  as few statements as possible: the version-checked UPDATE, the new log entries and the
  NOTIFY of the new version are ONE statement (data-modifying CTEs);
- the UPDATE still checks the version it loaded. The statement fails when no row matched
  (``1 / count(*)`` of the updated rows divides by zero), which aborts the transaction:
  the log entries and the notice go with it. The log's primary key still refuses a second
  writer of the same step, and a NOTIFY is delivered only if its transaction commits.

psycopg's pipeline mode was measured too (docs/performance.md): it saves waiting, but
costs more CPU on both sides than these few plain statements, and CPU is what bounds the
moves a server can answer.

Every statement of ``SqlGameRepository`` (the reads that are not hot) goes through
``self.session``, which sends the held writes first: a use case reads its own writes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.types.json import Json
from sqlalchemy.orm import Session

from app.persistence.json_codec import json_text
from app.persistence.notifications import CHANNEL, notice_text
from app.persistence.repository import (
    _CHANGING_COLUMNS,
    _CHANGING_RECORD_COLUMNS,
    _LOADED_COLUMNS,
    _RECORD_COLUMNS,
    _SEAT_COLUMNS,
    SqlGameRepository,
    _now,
    _storable,
    _stored_state,
)
from app.services.errors import ConcurrentUpdate, Unavailable
from app.services.feed import is_ended
from app.services.log import EventRecord
from app.services.model import GameRecord, Seat
from app.services.records import GameFacts, record_of
from app.services.unit_of_work import StoredResult

# The seats ride along with their game as one JSON array: one statement, one result.
_LOAD = (
    f"SELECT {', '.join(_LOADED_COLUMNS)}, (SELECT json_agg(json_build_array("
    + ", ".join(_SEAT_COLUMNS)
    + ") ORDER BY seat) FROM seats WHERE seats.game_id = games.id) FROM games"
    " WHERE id = %(game_id)s"
)
_LOAD_FOR_UPDATE = _LOAD + " FOR UPDATE OF games"
# The log entries travel as one JSON array of objects, each entry's data spliced in as the
# JSON text it was hashed as: a json column keeps the text it is given, and PostgreSQL's
# json_to_recordset hands a json field on exactly as written (tests/services/test_log_hash.py,
# the audit's checkpoints). Five arrays as parameters cost psycopg ~25 us a move to send.
_NEW_ENTRIES = (
    "json_to_recordset(%(entries)s::json) AS entry(seq integer, type text, data json, at text,"
    " hash text)"
)
_SAVE = (
    "WITH saved AS (UPDATE games SET "
    + ", ".join(f"{name} = %({name})s" for name in _CHANGING_COLUMNS)
    + " WHERE id = %(game_id)s AND version = %(expected_version)s RETURNING id),"
    " logged AS (INSERT INTO events (game_id, seq, type, data, at, hash)"
    " SELECT saved.id, entry.seq, entry.type, entry.data, entry.at, entry.hash"
    f" FROM saved, {_NEW_ENTRIES})"
    # No row updated: somebody moved the game on since it was loaded. Dividing by the
    # count makes that an error, which aborts the transaction.
    " SELECT 1 / count(*), pg_notify(%(channel)s, %(notice)s) FROM saved"
)
_APPEND = (
    "INSERT INTO events (game_id, seq, type, data, at, hash)"
    f" SELECT %(game_id)s, entry.seq, entry.type, entry.data, entry.at, entry.hash"
    f" FROM {_NEW_ENTRIES}"
)
_SAVE_SEAT = (
    "UPDATE seats SET name = %(name)s, seed = %(seed)s, token_hash = %(token_hash)s"
    " WHERE game_id = %(game_id)s AND seat = %(seat)s"
)
_INSERT_RESULT = (
    "INSERT INTO idempotent_responses (game_id, seat, key, request_hash, body, created_at)"
    " VALUES (%(game_id)s, %(seat)s, %(key)s, %(request_hash)s, %(body)s, %(created_at)s)"
)
_NOTIFY = "SELECT pg_notify(%(channel)s, %(notice)s)"
_JSON_COLUMNS = ("snapshot", "rules", "custom_deck", "body")

# What a lost race looks like from PostgreSQL: the version check above, a duplicate log
# step or idempotency key, a lock that could not be had.
_LOST_RACE = (
    pg_errors.DivisionByZero,
    pg_errors.UniqueViolation,
    pg_errors.LockNotAvailable,
    pg_errors.SerializationFailure,
    pg_errors.DeadlockDetected,
)

Statement = tuple[str, Mapping[str, Any] | Sequence[Mapping[str, Any]]]


class PostgresGameRepository(SqlGameRepository):
    """``SqlGameRepository`` with its hot statements combined and sent by psycopg."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self.held: list[Statement] = []  # writes not sent yet, in order
        super().__init__(session)

    @property
    def session(self) -> Session:
        """The session, once the held writes are sent (so they keep their order)."""
        if self.held:
            self._send()
        return self._session

    @session.setter
    def session(self, session: Session) -> None:
        self._session = session

    def get(self, game_id: str, for_update: bool = False) -> GameRecord | None:
        if not _storable(game_id):
            return None
        with _translated():
            row = (
                self._connection()
                .execute(_LOAD_FOR_UPDATE if for_update else _LOAD, {"game_id": game_id})
                .fetchone()
            )
        if row is None:
            return None
        fields = dict(zip(_LOADED_COLUMNS, row, strict=False))
        seats = [Seat(*seat) for seat in row[-1]]
        return GameRecord(**fields, seats=seats)

    def add(self, game: GameRecord) -> None:
        row = {name: getattr(game, name) for name in _RECORD_COLUMNS}
        row |= {"players": game.players, "rules": game.state.rules.to_dict()}
        row |= _stored_state(game)
        self.held.append((_insert("games", row), _jsonable(row)))
        seats = [{"game_id": game.id, **asdict(seat)} for seat in game.seats]
        self.held.append((_insert("seats", seats[0]), seats))
        if game.new_events:
            self.held.append((_APPEND, {"game_id": game.id, **_entries(game.new_events)}))
        self.held.append((_NOTIFY, _notice(game)))

    def save(self, game: GameRecord) -> None:
        values = {name: getattr(game, name) for name in _CHANGING_RECORD_COLUMNS}
        values |= _stored_state(game)
        values |= {"game_id": game.id, "expected_version": game.loaded_version}
        values |= _entries(game.new_events) | _notice(game, after=game.loaded_version)
        self.held.append((_SAVE, _jsonable(values)))
        for number in sorted(game.changed_seats):
            seat = game.seats[number]
            changed = {"game_id": game.id, "seat": number, "name": seat.name, "seed": seat.seed,
                       "token_hash": seat.token_hash}  # fmt: skip
            self.held.append((_SAVE_SEAT, changed))

    def store_result(self, game_id: str, seat: int, key: str, stored: StoredResult) -> None:
        row = {"game_id": game_id, "seat": seat, "key": key, "request_hash": stored.request_hash,
               "body": Json(stored.result), "created_at": _now()}  # fmt: skip
        self.held.append((_INSERT_RESULT, row))

    def forget_writes(self) -> None:
        self.held = []

    def commit(self) -> None:
        if self.held:
            self._send()
        self._session.commit()

    def _send(self) -> None:
        held, self.held = self.held, []
        connection = self._connection()
        with _translated(), connection.cursor() as cursor:
            for statement, parameters in held:
                if isinstance(parameters, Mapping):
                    cursor.execute(statement, parameters)
                else:
                    cursor.executemany(statement, parameters)

    def _connection(self) -> psycopg.Connection[Any]:
        """The session's psycopg connection, in the session's transaction."""
        return self._session.connection().connection.driver_connection  # type: ignore[return-value]


def _insert(table: str, row: Mapping[str, Any]) -> str:
    columns, values = ", ".join(row), ", ".join(f"%({name})s" for name in row)
    return f"INSERT INTO {table} ({columns}) VALUES ({values})"


def _entries(entries: Sequence[EventRecord]) -> dict[str, str]:
    """New log entries as the JSON text of ``_NEW_ENTRIES`` (none: ``[]``)."""
    objects = (
        f'{{"seq":{entry.seq},"type":{json_text(entry.type)},"data":{json_text(entry.data)},'
        f'"at":{json_text(entry.at)},"hash":{json_text(entry.hash)}}}'
        for entry in entries
    )
    return {"entries": f"[{','.join(objects)}]"}


def _notice(game: GameRecord, after: int | None = None) -> dict[str, str]:
    """The NOTIFY of the game's new version; with the public records it added after version
    ``after`` when that is known (a save), so that listeners need not read them back."""
    if after is None:
        return {"channel": CHANNEL, "notice": f"{game.id}:{game.version}"}
    facts = GameFacts(game.status, tuple(game.state.scores))
    records = [r for e in game.new_events if (r := record_of(e.seq, e.type, e.data, facts))]
    text = notice_text(game.id, game.version, after, is_ended(game.status), records)
    return {"channel": CHANNEL, "notice": text}


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    """psycopg sends a dict or list parameter as JSON only when it is wrapped."""
    for name in _JSON_COLUMNS:
        if name in row:
            row[name] = Json(row[name])
    return row


@contextmanager
def _translated() -> Iterator[None]:
    """The service's exception for what went wrong (as ``unit_of_work.translated`` does
    for SQLAlchemy's): a lost race to retry, or the database away."""
    try:
        yield
    except _LOST_RACE as error:
        raise ConcurrentUpdate(str(error)) from error
    except (psycopg.OperationalError, psycopg.InterfaceError) as error:
        raise Unavailable("the database is not answering; try again") from error
