"""The list of games a page at a time, newest first, over SQLAlchemy Core on both databases:
the games in one query, then all their seats in another. With it the cursor that pages it,
shared by the list of a player's games (players.py), which is why it is apart from the games
repository (repository.py): that list takes the cursor from here, not from the repository."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, or_, select

from app.persistence.models import GAMES, SEATS
from app.persistence.statements import SEAT_COLUMNS
from app.services.model import WAITING, GameSummary, Seat


def games_page(
    connection: Connection, status: str | None, limit: int, before: tuple[datetime, str] | None
) -> list[GameSummary]:
    """Up to ``limit`` listed games (of ``status``, if given), created before ``before``."""
    names = ("id", "status", "version", "created_at", "score_0", "score_1", "winner", "rated")
    columns = [GAMES.c[name] for name in names]
    # The deck itself, not ``IS NOT NULL``: a JSON column stores Python's None as JSON
    # null, which SQL does not count as NULL (52 short codes per fixed game at most).
    query = select(*columns, GAMES.c.custom_deck)
    # A waiting game that is not public is joined by its invite only: not listed.
    query = query.where(or_(GAMES.c.status != WAITING, GAMES.c.public))
    if status:
        query = query.where(GAMES.c.status == status)
    if before is not None:
        query = query.where(older_than(before, GAMES.c.created_at, GAMES.c.id))
    query = query.order_by(GAMES.c.created_at.desc(), GAMES.c.id.desc()).limit(limit)
    games = connection.execute(query).mappings().all()
    seats = seats_of(connection, [game["id"] for game in games])
    return [_summary(game, seats.get(game["id"], [])) for game in games]


def older_than(before: tuple[datetime, str], created: Any, game_id: Any) -> Any:
    """A page's cursor: rows created before ``before`` (time, game id), the id breaking ties."""
    at, after_id = before
    return (created < at) | ((created == at) & (game_id < after_id))


# Built once, the ids a parameter expanded when sent: a statement built anew each call, an id
# at a time, cost SQLAlchemy more than the database's work on it (bench/player_games.py).
_SEATS_OF = (
    select(SEATS.c.game_id, *(SEATS.c[name] for name in SEAT_COLUMNS))
    .where(SEATS.c.game_id.in_(bindparam("game_ids", expanding=True)))
    .order_by(SEATS.c.seat)
)


def seats_of(connection: Connection, game_ids: Sequence[str]) -> dict[str, list[Seat]]:
    """The seats of many games in one query."""
    if not game_ids:
        return {}
    found: dict[str, list[Seat]] = {}
    for game_id, *seat in connection.execute(_SEATS_OF, {"game_ids": list(game_ids)}):
        found.setdefault(game_id, []).append(Seat(*seat))
    return found


def _summary(game: Any, seats: list[Seat]) -> GameSummary:
    scores = [game["score_0"], game["score_1"]]
    return GameSummary(game["id"], game["status"], game["version"], game["created_at"], seats,
                       scores, game["winner"], game["custom_deck"] is not None,
                       game["rated"])  # fmt: skip
