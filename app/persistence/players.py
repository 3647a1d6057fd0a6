"""The players repository on both databases, over SQLAlchemy Core, on the connection (and
so in the transaction) of the unit of work's games repository: a game's end and the ratings
it changes are written together or not at all."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, bindparam, case, delete, exists, insert, select, update

from app.persistence.game_list import older_than, seats_of
from app.persistence.models import GAMES, SEATS, PlayerRow, SeekRow
from app.persistence.repository import SqlGameRepository
from app.persistence.statements import now, storable, utc
from app.services.errors import ConcurrentUpdate
from app.services.model import ACTIVE, Outcome, PlayedGame, PlayerRecord, Seat
from app.services.ports import PlayerRepository

PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]
_RECORD = ("id", "name", "bot", "mu", "sigma", "rated_games", "played", "won", "lost", "drawn")
_RECORD_COLUMNS = [PLAYERS.c[name] for name in _RECORD]
# Built once (every request with a player's bearer sends it): a statement built anew each
# call costs SQLAlchemy its cache key again.
_OF_TOKEN = select(*_RECORD_COLUMNS).where(PLAYERS.c.token_hash == bindparam("token_hash"))
_BY_ID = select(*_RECORD_COLUMNS).where(PLAYERS.c.id == bindparam("player_id"))
_BY_ID_FOR_UPDATE = _BY_ID.with_for_update()
SEEKS: Table = SeekRow.__table__  # type: ignore[assignment]
# Guests that never played, the oldest first (by the partial index ix_players_guests).
_IDLE_GUESTS = (
    select(PLAYERS.c.id)
    .where(
        PLAYERS.c.played == 0, PLAYERS.c.token_hash.is_not(None),
        PLAYERS.c.created_at < bindparam("before"), PLAYERS.c.bot.is_(None),
        PLAYERS.c.subject.is_(None),
        ~exists().where(SEATS.c.player_id == PLAYERS.c.id),
        ~exists().where(SEEKS.c.player_id == PLAYERS.c.id, SEEKS.c.status == "waiting"),
    )
    .order_by(PLAYERS.c.created_at).limit(bindparam("limit"))
)  # fmt: skip
# A player's seats with their games; the seat to move is read out of the stored state of an
# active game only.
_TURN = case((GAMES.c.status == ACTIVE, GAMES.c.snapshot["turn"].as_integer()))
_PLAYED = select(
    SEATS.c.game_id, SEATS.c.seat, SEATS.c.created_at, GAMES.c.status, GAMES.c.winner,
    GAMES.c.rated, GAMES.c.ratings, GAMES.c.updated_at, GAMES.c.score_0, GAMES.c.score_1,
    _TURN.label("turn"),
).join(GAMES, GAMES.c.id == SEATS.c.game_id)  # fmt: skip


class SqlPlayerRepository(PlayerRepository):
    def __init__(self, games: SqlGameRepository) -> None:
        # The games repository whose connection (and transaction) every statement here uses.
        self.game_store = games

    def add(self, player: PlayerRecord, token_hash: str | None, subject: str | None) -> None:
        row = {name: getattr(player, name) for name in _RECORD}
        self.game_store.before_writing()
        self.game_store.connection.execute(
            insert(PLAYERS),
            [row | {"token_hash": token_hash, "subject": subject, "created_at": now()}],
        )  # a taken id, token or subject is an IntegrityError: the unit of work's ConcurrentUpdate

    def get(self, player_id: str, for_update: bool = False) -> PlayerRecord | None:
        if not storable(player_id):
            return None
        if for_update:
            found = self.game_store.connection.execute(_BY_ID_FOR_UPDATE, {"player_id": player_id})
        else:
            found = self.game_store.read_alone(_BY_ID, {"player_id": player_id})
        row = found.mappings().first()
        return None if row is None else PlayerRecord(**row)

    def id_of_token(self, token_hash: str) -> str | None:
        query = select(PLAYERS.c.id).where(PLAYERS.c.token_hash == token_hash)
        return self.game_store.connection.scalars(query).first()

    def of_token(self, token_hash: str) -> PlayerRecord | None:
        found = self.game_store.read_alone(_OF_TOKEN, {"token_hash": token_hash})
        row = found.mappings().first()
        return None if row is None else PlayerRecord(**row)

    def id_of_subject(self, subject: str) -> str | None:
        if not storable(subject):
            return None
        query = select(PLAYERS.c.id).where(PLAYERS.c.subject == subject)
        return self.game_store.connection.scalars(query).first()

    def rename(self, player_id: str, name: str) -> None:
        self.game_store.before_writing()
        statement = update(PLAYERS).where(PLAYERS.c.id == player_id).values(name=name)
        self.game_store.connection.execute(statement)

    def record(self, outcome: Outcome) -> None:
        column = PLAYERS.c[outcome.result]
        values: dict[str, Any] = {"played": PLAYERS.c.played + 1, outcome.result: column + 1}
        statement = update(PLAYERS).where(PLAYERS.c.id == outcome.player_id)
        if outcome.rating is not None:
            mu, sigma = outcome.rating
            values |= {"mu": mu, "sigma": sigma, "rated_games": PLAYERS.c.rated_games + 1}
            statement = statement.where(PLAYERS.c.rated_games == outcome.seen_rated_games)
        self.game_store.before_writing()
        result = self.game_store.connection.execute(statement.values(**values))
        if result.rowcount != 1:
            raise ConcurrentUpdate(f"player {outcome.player_id} was rated meanwhile")

    def games(
        self, player_id: str, status: str | None, limit: int, before: tuple[datetime, str] | None
    ) -> list[PlayedGame]:
        """The page in one query, then the seats of all its games in one more (game_list.py)."""
        query = _PLAYED.where(SEATS.c.player_id == player_id)
        if status:
            query = query.where(GAMES.c.status == status)
        if before is not None:
            query = query.where(older_than(before, SEATS.c.created_at, SEATS.c.game_id))
        query = query.order_by(SEATS.c.created_at.desc(), SEATS.c.game_id.desc()).limit(limit)
        rows = self.game_store.connection.execute(query).mappings().all()
        seats = seats_of(self.game_store.connection, [row["game_id"] for row in rows])
        return [_played(row, seats.get(row["game_id"], [])) for row in rows]

    def best(self, limit: int, least_rated_games: int) -> Sequence[PlayerRecord]:
        query = (
            select(*_RECORD_COLUMNS)
            .where(PLAYERS.c.rated_games >= least_rated_games, PLAYERS.c.bot.is_(None))
            .order_by(PLAYERS.c.mu.desc(), PLAYERS.c.id)
            .limit(limit)
        )
        return [PlayerRecord(**row) for row in self.game_store.connection.execute(query).mappings()]

    def forget_guests(self, before: datetime, limit: int) -> int:
        self.game_store.before_writing()
        ids = list(self.game_store.connection.scalars(
            _IDLE_GUESTS, {"before": before, "limit": limit}))  # fmt: skip
        if not ids:
            return 0
        # Checked again in the DELETE: a guest that took a seat meanwhile stays.
        gone = self.game_store.connection.execute(
            delete(PLAYERS).where(
                PLAYERS.c.id.in_(ids), PLAYERS.c.played == 0,
                ~exists().where(SEATS.c.player_id == PLAYERS.c.id),
            )
        )  # fmt: skip
        return int(gone.rowcount)


def _played(row: Any, seats: list[Seat]) -> PlayedGame:
    times = {name: utc(row[name]) for name in ("created_at", "updated_at")}
    return PlayedGame(
        game_id=row["game_id"], seat=row["seat"], status=row["status"], winner=row["winner"],
        rated=row["rated"], ratings=row["ratings"], scores=[row["score_0"], row["score_1"]],
        turn=row["turn"], seats=seats, **times,  # type: ignore[arg-type]  # never NULL
    )  # fmt: skip
