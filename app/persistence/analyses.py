"""Analyses on both databases, over SQLAlchemy Core, on the connection (and in the transaction)
of the unit of work's games repository.

What keeps an analysis from being computed twice is the same on both: ``claim`` is one UPDATE
that takes the lease only where nobody holds it (or its holder's ran out), so of the processes
that race for it one sees a row changed; ``progress`` and ``finish`` change the row only for
the holder. The primary key keeps a game to one analysis.
"""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, insert, or_, select, update

from app.persistence.models import ANALYSES
from app.persistence.repository import SqlGameRepository
from app.persistence.sqlite import SqliteGameRepository
from app.persistence.statements import storable, utc
from app.services.model import DONE, RUNNING, AnalysisRecord
from app.services.ports import AnalysisRepository

_FIELDS = tuple(field.name for field in fields(AnalysisRecord))
_INSERT = insert(ANALYSES)
_BY_ID = select(ANALYSES).where(ANALYSES.c.game_id == bindparam("game_id"))


class SqlAnalysisRepository(AnalysisRepository):
    def __init__(self, games: SqlGameRepository) -> None:
        self.games = games

    @property
    def connection(self) -> Connection:
        return self.games.connection

    def get(self, game_id: str) -> AnalysisRecord | None:
        if not storable(game_id):
            return None
        row = self.connection.execute(_BY_ID, {"game_id": game_id}).mappings().first()
        if row is None:
            return None
        values = {name: row[name] for name in _FIELDS}
        values["updated_at"] = utc(values["updated_at"])
        values["lease_until"] = utc(values["lease_until"])
        if values["result"] is not None:
            values["result"] = bytes(values["result"])
        return AnalysisRecord(**values)

    def add(self, record: AnalysisRecord) -> None:
        self._queue()
        self.games.insert_row(_INSERT, {name: getattr(record, name) for name in _FIELDS})

    def claim(self, game_id: str, owner: str, now: datetime, until: datetime) -> bool:
        table = ANALYSES.c
        free = or_(table.owner.is_(None), table.lease_until.is_(None), table.lease_until <= now)
        return self._changed(
            update(ANALYSES)
            .where(table.game_id == game_id, table.status == RUNNING, free)
            .values(owner=owner, lease_until=until, claims=table.claims + 1, updated_at=now)
        )

    def progress(self, game_id: str, owner: str, done: int, until: datetime) -> bool:
        return self._held(game_id, owner, done=done, lease_until=until)

    def finish(self, game_id: str, owner: str, result: bytes, now: datetime) -> bool:
        return self._held(
            game_id, owner, status=DONE, result=result, owner=None, lease_until=None,
            updated_at=now,
        )  # fmt: skip

    def _held(self, game_id: str, holder: str, **values: Any) -> bool:
        table = ANALYSES.c
        return self._changed(
            update(ANALYSES)
            .where(table.game_id == game_id, table.owner == holder, table.status == RUNNING)
            .values(**values)
        )

    def _changed(self, statement: Any) -> bool:
        self._queue()
        return bool(self.connection.execute(statement).rowcount == 1)

    def _queue(self) -> None:
        """On SQLite, queue at the writers' gate before this transaction writes."""
        if isinstance(self.games, SqliteGameRepository):
            self.games.before_writing()
