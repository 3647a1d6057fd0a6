"""Loading and saving games inside one session (one transaction per request)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from app.persistence.models import EventRow, GameRow, IdempotentResponseRow, SeatRow


class ConcurrentUpdate(Exception):
    """Another request changed the game first; the caller may reload and try again."""


class GameRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, game_id: str, for_update: bool = False) -> GameRow | None:
        query = select(GameRow).where(GameRow.id == game_id)
        if for_update:  # PostgreSQL serialises writers here; SQLite ignores it
            query = query.with_for_update()
        return self.session.scalars(query).one_or_none()

    def get_with_seats(
        self,
        game_id: str,
        for_update: bool = False,
    ) -> tuple[GameRow, list[SeatRow]] | None:
        """The game and its seats in one round trip (the hot path of every move)."""
        query = (
            select(GameRow, SeatRow)
            .join(SeatRow, SeatRow.game_id == GameRow.id)
            .where(GameRow.id == game_id)
            .order_by(SeatRow.seat)
        )
        if for_update:  # PostgreSQL serialises writers here; SQLite ignores it
            query = query.with_for_update(of=GameRow)
        rows = self.session.execute(query).all()
        if not rows:
            return None
        return rows[0][0], [seat for _, seat in rows]

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

    def append_events(self, rows: Sequence[EventRow]) -> None:
        self.session.add_all(rows)

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[EventRow]:
        query = (
            select(EventRow)
            .where(EventRow.game_id == game_id, EventRow.seq > after)
            .order_by(EventRow.seq)
        )
        if limit is not None:
            query = query.limit(limit)
        return list(self.session.scalars(query))

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
        self.session.add(row)

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

    def count(self) -> int:
        return int(self.session.scalar(select(func.count()).select_from(GameRow)) or 0)

    def commit(self) -> None:
        """Commit, turning a lost race (stale version, duplicate key, SQLite busy) into
        ConcurrentUpdate; the transaction is rolled back whole."""
        try:
            self.session.commit()
        except StaleDataError as error:
            self.session.rollback()
            raise ConcurrentUpdate(str(error)) from error
        except (IntegrityError, OperationalError) as error:
            self.session.rollback()
            if isinstance(error, OperationalError) and not _is_lock_error(error):
                raise
            raise ConcurrentUpdate(str(error.orig)) from error


def _is_lock_error(error: OperationalError) -> bool:
    text = str(error.orig).lower()
    return "locked" in text or "busy" in text or "could not serialize" in text
