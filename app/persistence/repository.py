"""Loading and saving games inside one session (one transaction per request)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, Text, bindparam, cast, func, insert, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from app.persistence.models import EventRow, GameRow, IdempotentResponseRow, SeatRow
from app.persistence.notifications import announce_versions

GAMES: Table = GameRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
EVENTS: Table = EventRow.__table__  # type: ignore[assignment]
IDEMPOTENT: Table = IdempotentResponseRow.__table__  # type: ignore[assignment]
# What a move, a join or a deal can change in a game's row.
_CHANGING_GAME_COLUMNS = (
    "status",
    "version",
    "snapshot",
    "client_seed",
    "winner",
    "last_hash",
    "updated_at",
)


# The hot path's statements, built once: building and keying them anew on every move
# costs more than running them.
_LOAD = (
    select(GAMES, SEATS)
    .join(SEATS, SEATS.c.game_id == GAMES.c.id)
    .where(GAMES.c.id == bindparam("game_id"))
    .order_by(SEATS.c.seat)
)
_LOAD_FOR_UPDATE = _LOAD.with_for_update(of=GAMES)  # PostgreSQL serialises writers; SQLite ignores
_SAVE = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("game_id"), GAMES.c.version == bindparam("expected_version"))
    .values({name: bindparam(name) for name in _CHANGING_GAME_COLUMNS})
)
_INSERT_EVENTS = insert(EVENTS)
_EVENTS_AFTER = (
    select(EVENTS.c.seq, EVENTS.c.type, EVENTS.c.data)
    .where(EVENTS.c.game_id == bindparam("game_id"), EVENTS.c.seq > bindparam("after"))
    .order_by(EVENTS.c.seq)
    .limit(bindparam("limit"))
)
_PROGRESS = select(GAMES.c.status, GAMES.c.version, GAMES.c.snapshot).where(
    GAMES.c.id == bindparam("game_id")
)


class ConcurrentUpdate(Exception):
    """Another request changed the game first; the caller may reload and try again."""


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session
        self._appended: dict[str, int] = {}  # game id -> newest seq appended, for commit()

    def get_with_seats(
        self,
        game_id: str,
        for_update: bool = False,
    ) -> tuple[GameRow, list[SeatRow]] | None:
        """The game and its seats in one round trip: the hot path of every move.

        Read with Core and handed back as detached rows: the ORM's identity map and unit of
        work cost more than the rest of a move, and ``save_game`` writes what changed.
        """
        if not _storable(game_id):
            return None
        query = _LOAD_FOR_UPDATE if for_update else _LOAD
        rows = self.session.execute(query, {"game_id": game_id}).mappings().all()
        if not rows:
            return None
        game = GameRow(**{column.name: rows[0][column] for column in GAMES.c})
        seats = [SeatRow(**{column.name: row[column] for column in SEATS.c}) for row in rows]
        return game, seats

    def save_game(self, game: GameRow, expected_version: int) -> None:
        """Write a loaded game back, only if nobody moved it on since it was loaded.

        The version check in the UPDATE is the guard that holds on every database
        (SQLite ignores FOR UPDATE); a lost race shows as no row updated.
        """
        values = {name: getattr(game, name) for name in _CHANGING_GAME_COLUMNS}
        result = self.session.execute(
            _SAVE, {**values, "game_id": game.id, "expected_version": expected_version}
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            raise ConcurrentUpdate(game.id)

    def save_seat(self, seat: SeatRow) -> None:
        self.session.execute(
            update(SEATS)
            .where(SEATS.c.game_id == seat.game_id, SEATS.c.seat == seat.seat)
            .values(name=seat.name, seed=seat.seed, token_hash=seat.token_hash)
        )

    def seats(self, game_id: str) -> list[SeatRow]:
        query = select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.seat)
        return list(self.session.scalars(query))

    def game_id_of_token(self, token_hash: str) -> str | None:
        query = select(SeatRow.game_id).where(SeatRow.token_hash == token_hash).limit(1)
        return self.session.scalars(query).first()

    def add_game(self, game: GameRow, seats: Sequence[SeatRow]) -> None:
        self.session.add(game)
        self.session.flush()
        self.session.add_all(seats)

    def append_events(self, rows: Sequence[dict[str, Any]]) -> None:
        """Insert new events (dicts of the events table's columns); a (game_id, seq) taken
        already is a lost race (IntegrityError)."""
        if rows:
            self.session.execute(_INSERT_EVENTS, list(rows))
            for row in rows:
                game_id = row["game_id"]
                self._appended[game_id] = max(row["seq"], self._appended.get(game_id, 0))

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[EventRow]:
        query = (
            select(EventRow)
            .where(EventRow.game_id == game_id, EventRow.seq > after)
            .order_by(EventRow.seq)
        )
        if limit is not None:
            query = query.limit(limit)
        return list(self.session.scalars(query))

    def events_after(self, game_id: str, after: int, limit: int) -> list[tuple[int, str, Any]]:
        """(seq, type, data) of the events after ``after``, oldest first: the live stream's read."""
        values = {"game_id": game_id, "after": after, "limit": limit}
        rows = self.session.execute(_EVENTS_AFTER, values)
        return [(row.seq, row.type, row.data) for row in rows]

    def progress(self, game_id: str) -> tuple[str, int, dict[str, Any]] | None:
        """The game's status, version and snapshot, or None if there is no such game."""
        if not _storable(game_id):
            return None
        row = self.session.execute(_PROGRESS, {"game_id": game_id}).first()
        return None if row is None else (row.status, row.version, row.snapshot)

    def versions(self, game_ids: Sequence[str]) -> dict[str, int]:
        """The current version of each of these games (unknown ids are left out)."""
        query = select(GAMES.c.id, GAMES.c.version).where(GAMES.c.id.in_(list(game_ids)))
        return {row.id: row.version for row in self.session.execute(query)}

    def raw_events(self, game_id: str) -> list[Any]:
        """The log as stored: (seq, type, data, at, hash) with ``data`` the JSON text itself,
        undecoded, for the audit's byte-for-byte checkpoints (services/audit_cache.py)."""
        query = (
            select(EVENTS.c.seq, EVENTS.c.type, cast(EVENTS.c.data, Text).label("data"),
                   EVENTS.c.at, EVENTS.c.hash)
            .where(EVENTS.c.game_id == game_id)
            .order_by(EVENTS.c.seq)
        )  # fmt: skip
        return list(self.session.execute(query))

    def events_of_type(self, game_id: str, event_type: str) -> list[EventRow]:
        query = (
            select(EventRow)
            .where(EventRow.game_id == game_id, EventRow.type == event_type)
            .order_by(EventRow.seq)
        )
        return list(self.session.scalars(query))

    def last_event(self, game_id: str) -> EventRow | None:
        query = (
            select(EventRow)
            .where(EventRow.game_id == game_id)
            .order_by(EventRow.seq.desc())
            .limit(1)
        )
        return self.session.scalars(query).first()

    def idempotent_response(
        self, game_id: str, seat: int, key: str
    ) -> IdempotentResponseRow | None:
        return self.session.get(IdempotentResponseRow, (game_id, seat, key))

    def add_idempotent_response(self, row: IdempotentResponseRow) -> None:
        self.session.execute(insert(IDEMPOTENT), [_values(row, IDEMPOTENT)])

    def page(
        self, status: str | None, limit: int, before: tuple[datetime, str] | None
    ) -> list[GameRow]:
        query = select(GameRow)
        if status:
            query = query.where(GameRow.status == status)
        if before is not None:
            created, game_id = before
            query = query.where(
                (GameRow.created_at < created)
                | ((GameRow.created_at == created) & (GameRow.id < game_id))
            )
        query = query.order_by(GameRow.created_at.desc(), GameRow.id.desc()).limit(limit)
        return list(self.session.scalars(query))

    def stale_bots_only_games(self, before: datetime, limit: int) -> list[tuple[str, datetime]]:
        """Active games with no human seat, unchanged since ``before``: (id, updated_at)."""
        human = select(SEATS.c.game_id).where(SEATS.c.game_id == GAMES.c.id, SEATS.c.bot.is_(None))
        query = (
            select(GAMES.c.id, GAMES.c.updated_at)
            .where(GAMES.c.status == "active", GAMES.c.updated_at < before, ~human.exists())
            .order_by(GAMES.c.updated_at)
            .limit(limit)
        )
        return [(row.id, row.updated_at) for row in self.session.execute(query)]

    def touch(self, game_id: str, seen: datetime, now: datetime) -> bool:
        """Set ``updated_at`` to ``now`` if it is still ``seen``: a claim one caller wins."""
        result = self.session.execute(
            update(GAMES)
            .where(GAMES.c.id == game_id, GAMES.c.updated_at == seen)
            .values(updated_at=now)
        )
        return result.rowcount == 1  # type: ignore[attr-defined]

    def count(self) -> int:
        return int(self.session.scalar(select(func.count()).select_from(GameRow)) or 0)

    def commit(self) -> None:
        """Commit, turning a lost race (duplicate key, SQLite busy) into
        ConcurrentUpdate; the transaction is rolled back whole."""
        try:
            announce_versions(self.session, self._appended)
            self.session.commit()
        except (IntegrityError, OperationalError) as error:
            self.session.rollback()
            if isinstance(error, OperationalError) and not _is_lock_error(error):
                raise
            raise ConcurrentUpdate(str(error.orig)) from error
        finally:
            self._appended = {}


def _values(row: object, table: Table) -> dict[str, object]:
    return {column.name: getattr(row, column.name) for column in table.c}


def _storable(text: str) -> bool:
    """No stored id holds NUL, and PostgreSQL refuses to even compare a text that does."""
    return "\x00" not in text


def _is_lock_error(error: OperationalError) -> bool:
    text = str(error.orig).lower()
    return "locked" in text or "busy" in text or "could not serialize" in text
