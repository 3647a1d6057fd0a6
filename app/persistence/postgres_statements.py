"""The SQL ``PostgresGameRepository`` (postgres.py) sends through psycopg, and the values its
parameters take: texts built once, apart from the repository that decides when each is sent.

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

from collections.abc import Sequence
from dataclasses import asdict

from app.persistence.notifications import CHANNEL, notice_text
from app.persistence.statements import (
    CHANGING_COLUMNS,
    LOADED_COLUMNS,
    SEAT_COLUMNS,
    assignment,
    insert_result,
    json_text,
)
from app.services.log import EventRecord
from app.services.model import GameRecord

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
