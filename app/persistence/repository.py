"""What the games repository does alike on both databases, over SQLAlchemy Core: one pooled
connection per unit of work, its transaction, and the reads and writes that are not a move's.

A move's own statements (the load, the save, the log's entries, a stored answer) are each
database's, sent by its driver: ``PostgresGameRepository`` (postgres.py) and
``SqliteGameRepository`` (sqlite.py), over the columns of statements.py. Everything here goes
through one Core connection of the engine's pool, checked out at the first statement and given
back by ``close``. No ORM session: nothing here is an ORM object, and a session's bookkeeping
(its transaction, its snapshot of an identity map, its rollback) cost a move about 0.1-0.2 ms
for nothing (docs/performance.md, "Where a move's cost goes")."""

from __future__ import annotations

from collections.abc import Sequence, Set
from contextlib import suppress
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import (
    Connection,
    CursorResult,
    Engine,
    Executable,
    Insert,
    bindparam,
    delete,
    func,
    select,
    tuple_,
    update,
)
from sqlalchemy.exc import SQLAlchemyError

from app.persistence.compacted_logs import compact_logs, log_query, stored_log
from app.persistence.game_list import games_page
from app.persistence.models import GAMES, IDEMPOTENT, SEATS
from app.persistence.statements import storable
from app.persistence.stored_answers import unpacked
from app.services.log import EventRecord, RawEvent
from app.services.model import ACTIVE, GameRecord, GameSummary, Progress, StoredResult
from app.services.ports import GameRepository

_PROGRESS = select(GAMES.c.status, GAMES.c.version, GAMES.c.score_0, GAMES.c.score_1).where(
    GAMES.c.id == bindparam("game_id")
)


class SqlGameRepository(GameRepository):
    """The part of the games repository both databases share; ``Database.repository`` gives
    each its own, which adds a move's statements."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._pooled: Connection | None = None

    @property
    def connection(self) -> Connection:
        """This unit of work's connection, in a transaction: checked out of the pool at the
        first statement, begun again after a commit. A transaction begun here, not by Core's
        autobegin, because the drivers' own paths (postgres.py, sqlite.py) send statements
        Core does not see, and ``commit`` must still reach the driver."""
        connection = self._checked_out()
        if not connection.in_transaction():
            connection.begin()
        return connection

    def _checked_out(self) -> Connection:
        """This unit of work's connection, checked out of the pool at the first call, with no
        transaction begun by Core (postgres.py's statements sent alone need none)."""
        connection = self._pooled
        if connection is None:
            connection = self._pooled = self.engine.connect()
        return connection

    def read_alone(
        self, statement: Executable, parameters: dict[str, Any] | None = None
    ) -> CursorResult[Any]:
        """A read that needs no transaction (one row by its key, as a request's bearer or
        seek names it), sent at once. Here it joins the unit of work's transaction like any
        statement; on PostgreSQL, first in its unit of work, it goes alone (postgres.py)."""
        return self.connection.execute(statement, parameters)

    def insert_row(self, statement: Insert, row: dict[str, Any]) -> None:
        """One row of ``statement``'s table, in the unit of work's transaction. On PostgreSQL
        it is held with the unit's other writes (postgres.py): an insert alone in its unit of
        work is then sent as a transaction of its own, one message to the server."""
        self.connection.execute(statement, row)

    def before_writing(self) -> None:
        """A write is about to be sent: SQLite queues its writers at a gate first (sqlite.py)."""

    def forget_writes(self) -> None:
        """The transaction is being rolled back: forget any write not sent yet (none here)."""

    def finished(self) -> None:
        """The unit of work's transaction is over (committed, rolled back or abandoned)."""

    def commit(self) -> None:
        """Commit the transaction (a NOTIFY, on PostgreSQL, goes with its writes:
        ``PostgresGameRepository``)."""
        if self._pooled is not None:
            self._pooled.commit()

    def rollback(self) -> None:
        """Undo what was not committed; the connection stays for what follows."""
        if self._pooled is not None:
            self._pooled.rollback()

    def close(self) -> None:
        """Give the connection back to the pool, undoing what was not committed: closing a
        connection in a transaction rolls it back, once (the pool then need not). A lost
        connection cannot roll back; it is given back all the same and the pool drops it."""
        connection, self._pooled = self._pooled, None
        if connection is not None:
            with suppress(SQLAlchemyError):
                connection.close()

    def take_due(self, now: datetime, skip: Set[str]) -> GameRecord | None:
        """The game whose deadline passed longest ago, locked for this transaction; on
        PostgreSQL one another transaction holds is passed over (SKIP LOCKED), so sweepers
        in many processes share the work. SQLite has no row locks: its writers are
        serialised, and the version check in ``save`` stops a second one."""
        query = select(GAMES.c.id).where(GAMES.c.deadline.is_not(None), GAMES.c.deadline <= now)
        if skip:
            query = query.where(GAMES.c.id.not_in(sorted(skip)))
        query = query.order_by(GAMES.c.deadline).limit(1).with_for_update(skip_locked=True)
        game_id = self.connection.scalars(query).first()
        return self.get(game_id, for_update=True) if game_id is not None else None

    def game_of_token(self, token_hash: str) -> str | None:
        query = select(SEATS.c.game_id).where(SEATS.c.token_hash == token_hash).limit(1)
        return self.connection.scalars(query).first()

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[EventRecord]:
        return _records(self._log(game_id, after=after, limit=limit))

    def progress(self, game_id: str) -> Progress | None:
        if not storable(game_id):
            return None
        row = self.connection.execute(_PROGRESS, {"game_id": game_id}).first()
        return (
            None if row is None else Progress(row.status, row.version, (row.score_0, row.score_1))
        )

    def versions(self, game_ids: Sequence[str]) -> dict[str, int]:
        query = select(GAMES.c.id, GAMES.c.version).where(GAMES.c.id.in_(list(game_ids)))
        return {row.id: row.version for row in self.connection.execute(query)}

    def events_of_type(self, game_id: str, kind: str) -> list[EventRecord]:
        return _records(self._log(game_id, kind=kind))

    def _log(
        self, game_id: str, after: int = 0, limit: int | None = None, kind: str | None = None
    ) -> list[RawEvent]:
        """The log's rows after ``after`` (of one ``kind``; the first ``limit``), in whichever
        form it is stored, read in one statement (one snapshot: a compaction committed
        meanwhile cannot hide both forms)."""
        query = log_query(game_id, after, limit, kind)
        return stored_log(game_id, self.connection.execute(query).all(), after, limit, kind)

    def page(
        self, status: str | None, limit: int, before: tuple[datetime, str] | None
    ) -> list[GameSummary]:
        return games_page(self.connection, status, limit, before)

    def raw_events(self, game_id: str) -> list[RawEvent]:
        """The data as the JSON text stored, undecoded, for the audit's byte-for-byte
        checkpoints (services/audit_cache.py)."""
        return self._log(game_id)

    def compact_logs(self, before: datetime, limit: int) -> int:
        return compact_logs(self.connection, before, limit)

    def rematch_id(self, game_id: str) -> str | None:
        query = select(GAMES.c.id).where(GAMES.c.rematch_of == game_id)
        return self.connection.scalars(query).first()

    def stale_bots_only_games(self, before: datetime, limit: int) -> list[tuple[str, datetime]]:
        human = select(SEATS.c.game_id).where(SEATS.c.game_id == GAMES.c.id, SEATS.c.bot.is_(None))
        query = (
            select(GAMES.c.id, GAMES.c.updated_at)
            .where(GAMES.c.status == ACTIVE, GAMES.c.updated_at < before, ~human.exists())
            .order_by(GAMES.c.updated_at)
            .limit(limit)
        )
        return [(row.id, row.updated_at) for row in self.connection.execute(query)]

    def count_bots_only_games(self, up_to: int) -> int:
        human = select(SEATS.c.game_id).where(SEATS.c.game_id == GAMES.c.id, SEATS.c.bot.is_(None))
        playing = (
            select(GAMES.c.id).where(GAMES.c.status == ACTIVE, ~human.exists()).limit(up_to)
        ).subquery()
        return int(self.connection.execute(select(func.count()).select_from(playing)).scalar_one())

    def expire_results(self, before: datetime, limit: int) -> int:
        key = (IDEMPOTENT.c.game_id, IDEMPOTENT.c.seat, IDEMPOTENT.c.key)
        oldest = (
            select(*key).where(IDEMPOTENT.c.created_at < before)
            .order_by(IDEMPOTENT.c.created_at).limit(limit)
        )  # fmt: skip
        result = self.connection.execute(delete(IDEMPOTENT).where(tuple_(*key).in_(oldest)))
        return int(result.rowcount)

    def touch(self, game_id: str, seen: datetime, now: datetime) -> bool:
        result = self.connection.execute(
            update(GAMES)
            .where(GAMES.c.id == game_id, GAMES.c.updated_at == seen)
            .values(updated_at=now)
        )
        return bool(result.rowcount == 1)

    def stored_result(self, game_id: str, seat: int, key: str) -> StoredResult | None:
        query = select(IDEMPOTENT.c.request_hash, IDEMPOTENT.c.answer).where(
            IDEMPOTENT.c.game_id == game_id, IDEMPOTENT.c.seat == seat, IDEMPOTENT.c.key == key
        )
        row = self.connection.execute(query).first()
        if row is None:
            return None
        return StoredResult(row.request_hash, unpacked(game_id, row.answer))


def _records(rows: list[RawEvent]) -> list[EventRecord]:
    return [EventRecord(r.seq, r.type, orjson.loads(r.data), r.at, r.hash) for r in rows]
