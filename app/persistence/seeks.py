"""Seeks on both databases, over SQLAlchemy Core, on the connection (and in the transaction)
of the unit of work's games repository: a pass's games and the seeks it settles commit
together.

What keeps a seek from being matched twice is the same on both: ``settle`` updates a seek
only while it is waiting, and a pass that finds it settled loses its transaction. What keeps
passes from doing the same work twice is each database's: on PostgreSQL an advisory lock
held to the end of the pass's transaction, on SQLite the gate its writers queue at
(write_gate.py), taken before the pass reads. A settled seek is announced on PostgreSQL with
a NOTIFY in the same transaction, so the long polls of every process hear of it exactly when
it commits; SQLite's are polled (app/live/seek_waits.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, bindparam, case, func, insert, select, text, update

from app.persistence.models import SeekRow
from app.persistence.repository import SqlGameRepository
from app.persistence.sqlite import SqliteGameRepository
from app.persistence.statements import storable, utc
from app.services.errors import ConcurrentUpdate
from app.services.model import EXPIRED, MATCHED, WAITING, MatchedSeat, SeekRecord
from app.services.ports import SeekRepository

SEEKS: Table = SeekRow.__table__  # type: ignore[assignment]
SEEK_CHANNEL = "basra_seeks"  # NOTIFY ``<seek id>:1`` once a seek stops waiting
_SEEK_FIELDS = tuple(field.name for field in fields(SeekRecord))
_TIMES = ("created_at", "expires_at", "settled_at", "bots_at")
# Any number that no other advisory lock of this database uses: the pairing passes' own.
_PAIRING_LOCK = 0x62617372  # "basr"
# A pass that waits longer than this for another gives up; the next one starts afresh.
_LOCK_TIMEOUT = text("SET LOCAL lock_timeout = '5s'")
_LOCK_FOR_PAIRING = text("SELECT pg_advisory_xact_lock(:key)")
_NOTIFY = text("SELECT pg_notify(:channel, :notice)")
# Built once: a statement built anew each call costs SQLAlchemy its cache key again.
_INSERT = insert(SEEKS)
_BY_ID = select(SEEKS).where(SEEKS.c.id == bindparam("seek_id"))
_WAITING_OF = (
    select(SEEKS).where(SEEKS.c.player_id == bindparam("player_id"), SEEKS.c.status == WAITING)
    .limit(1)
)  # fmt: skip
# What a pass reads: the kinds with a partner (a GROUP BY over the index of the waiting seeks'
# kinds), then their seeks; a seek alone of its kind is never read.
_PAIRED_KINDS = (
    select(SEEKS.c.kind).where(SEEKS.c.status == WAITING)
    .group_by(SEEKS.c.kind).having(func.count() > 1)
)  # fmt: skip
_PAIRABLE = (
    select(SEEKS).where(SEEKS.c.status == WAITING, SEEKS.c.kind.in_(_PAIRED_KINDS))
    .order_by(SEEKS.c.created_at, SEEKS.c.id).limit(bindparam("limit"))
)  # fmt: skip
_OF_KIND = (
    select(SEEKS).where(SEEKS.c.status == WAITING, SEEKS.c.kind == bindparam("kind"))
    .order_by(SEEKS.c.created_at, SEEKS.c.id).limit(bindparam("limit"))
)  # fmt: skip
_DUE = (
    select(SEEKS).where(SEEKS.c.status == WAITING, SEEKS.c.bots_at <= bindparam("now"))
    .order_by(SEEKS.c.bots_at, SEEKS.c.id).limit(bindparam("limit"))
)  # fmt: skip
_EXPIRE = (
    update(SEEKS).where(SEEKS.c.status == WAITING, SEEKS.c.expires_at <= bindparam("due"))
    .values(status=EXPIRED, settled_at=bindparam("settled")).returning(SEEKS.c.id)
)  # fmt: skip
_COUNT_WAITING = select(func.count()).select_from(SEEKS).where(SEEKS.c.status == WAITING)
_NOTIFY_EACH = text(
    "SELECT pg_notify(:channel, notice) FROM unnest(CAST(:notices AS text[])) AS notice"
)


class SqlSeekRepository(SeekRepository):
    def __init__(self, games: SqlGameRepository) -> None:
        self.games = games
        self.on_postgres = games.engine.dialect.name == "postgresql"

    @property
    def connection(self) -> Connection:
        return self.games.connection  # sends the games' held writes first: they keep their order

    def add(self, seek: SeekRecord) -> None:
        self._queue()
        self.games.insert_row(_INSERT, {name: getattr(seek, name) for name in _SEEK_FIELDS})

    def get(self, seek_id: str) -> SeekRecord | None:
        if not storable(seek_id):
            return None
        row = self.games.read_alone(_BY_ID, {"seek_id": seek_id}).mappings()
        return _record(row.first())

    def waiting_of(self, player_id: str) -> SeekRecord | None:
        found = self.connection.execute(_WAITING_OF, {"player_id": player_id})
        return _record(found.mappings().first())

    def pairable(self, limit: int, kind: str | None = None) -> list[SeekRecord]:
        if kind is None:
            return self._records(_PAIRABLE, {"limit": limit})
        return self._records(_OF_KIND, {"kind": kind, "limit": limit})

    def due_for_bots(self, now: datetime, limit: int, kind: str | None = None) -> list[SeekRecord]:
        statement = _DUE if kind is None else _DUE.where(SEEKS.c.kind == kind)
        return self._records(statement, {"now": now, "limit": limit})

    def expire(self, now: datetime) -> list[str]:
        self._queue()
        found = self.connection.execute(_EXPIRE, {"due": now, "settled": now})
        ids = [row.id for row in found]
        if ids and self.on_postgres:
            notices = [f"{seek_id}:1" for seek_id in ids]
            self.connection.execute(_NOTIFY_EACH, {"channel": SEEK_CHANNEL, "notices": notices})
        return ids

    def count_waiting(self) -> int:
        return int(self.connection.scalar(_COUNT_WAITING) or 0)

    def _records(self, statement: Any, values: dict[str, Any]) -> list[SeekRecord]:
        found = self.connection.execute(statement, values)
        return [seek for row in found.mappings()
                if (seek := _record(row)) is not None]  # fmt: skip

    def statuses(self, seek_ids: Sequence[str]) -> dict[str, str]:
        wanted = [seek_id for seek_id in seek_ids if storable(seek_id)]
        query = select(SEEKS.c.id, SEEKS.c.status).where(SEEKS.c.id.in_(wanted))
        return {row.id: row.status for row in self.connection.execute(query)}

    def lock_pairing(self) -> None:
        if self.on_postgres:
            self.connection.execute(_LOCK_TIMEOUT)
            self.connection.execute(_LOCK_FOR_PAIRING, {"key": _PAIRING_LOCK})
        else:
            self._queue()

    def settle(
        self,
        seek_id: str,
        status: str,
        now: datetime,
        game_id: str | None = None,
        seat: int | None = None,
    ) -> None:
        self._queue()
        result = self.connection.execute(
            update(SEEKS)
            .where(SEEKS.c.id == seek_id, SEEKS.c.status == WAITING)
            .values(status=status, settled_at=now, game_id=game_id, seat=seat)
        )
        if result.rowcount != 1:
            raise ConcurrentUpdate(f"seek {seek_id} stopped waiting meanwhile")
        if self.on_postgres:
            self.connection.execute(_NOTIFY, {"channel": SEEK_CHANNEL, "notice": f"{seek_id}:1"})

    def match(self, seats: Sequence[MatchedSeat], now: datetime) -> None:
        """One UPDATE for every seek a pass seats, and on PostgreSQL one statement for their
        notices: two statements a pass, not two a seek."""
        if not seats:
            return
        self._queue()
        ids = [one.seek_id for one in seats]
        result = self.connection.execute(
            update(SEEKS)
            .where(SEEKS.c.id.in_(ids), SEEKS.c.status == WAITING)
            .values(
                status=MATCHED,
                settled_at=now,
                game_id=case({one.seek_id: one.game_id for one in seats}, value=SEEKS.c.id),
                seat=case({one.seek_id: one.seat for one in seats}, value=SEEKS.c.id),
            )
        )
        if result.rowcount != len(set(ids)):
            raise ConcurrentUpdate(f"of seeks {ids}, some stopped waiting meanwhile")
        if self.on_postgres:
            notices = [f"{seek_id}:1" for seek_id in ids]
            self.connection.execute(_NOTIFY_EACH, {"channel": SEEK_CHANNEL, "notices": notices})

    def _queue(self) -> None:
        """On SQLite, queue at the writers' gate before this transaction writes (or, for a
        pass, reads what it will write from): seek writers then go one at a time."""
        if isinstance(self.games, SqliteGameRepository):
            self.games.before_writing()


def _record(row: Any) -> SeekRecord | None:
    if row is None:
        return None
    values = {name: row[name] for name in _SEEK_FIELDS}
    for name in _TIMES:
        values[name] = utc(values[name])
    return SeekRecord(**values)
