"""Tables: games (with a snapshot of the current state), seats, the append-only event
log, stored idempotent results (a move's first answer, kept for its retries), players,
seeks and analyses.
Alembic's migrations must match these exactly."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from app.services.model import OVER_STATUSES

# Alembic needs stable constraint names to alter tables on SQLite (batch mode).
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Plain JSON, not JSONB: nothing queries inside these documents, and PostgreSQL stores
# and returns JSON text as is, which is cheaper on the hot path of every move.
JsonData = JSON()


# A game whose log the sweep has still to compact. Literal text, not parameters: the planner
# uses a partial index only for a query whose condition it can see implies the index's.
UNSWEPT = text(f"status IN ({', '.join(repr(s) for s in OVER_STATUSES)}) AND NOT log_swept")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(Integer)  # = seq of the last event in the log
    players: Mapped[int] = mapped_column(Integer)
    rules: Mapped[dict[str, Any]] = mapped_column(JsonData)
    snapshot: Mapped[dict[str, Any]] = mapped_column(JsonData)  # the engine state now
    # Its finished rounds, apart from the snapshot so that a move's snapshot stays the same
    # size however long the match: the JSON of their summaries, as a view shows them, written
    # only when a round ends. Text, not JSON: PostgreSQL need not check it on every move.
    rounds: Mapped[str] = mapped_column(Text, server_default=text("'[]'"))
    # The match total of each side (there are always two), beside the snapshot so that a
    # list of games need not load whole states to show them.
    score_0: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    score_1: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    server_seed: Mapped[str] = mapped_column(String(64))  # hex; published only once over
    commitment: Mapped[str] = mapped_column(String(64))
    client_seed: Mapped[str | None] = mapped_column(Text, nullable=True)  # fixed at the deal
    custom_deck: Mapped[list[str] | None] = mapped_column(JsonData, nullable=True)
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_hash: Mapped[str] = mapped_column(String(64))  # hash of event ``version``
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # When the sweeper must act, if nobody does first: the turn clock of an active game, the
    # end of a waiting game nobody joined. Stored, so a restart of every process loses none.
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    invite_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)  # SHA-256
    public: Mapped[bool] = mapped_column(  # joinable without the invite
        Boolean, default=False, server_default=false()
    )
    rated: Mapped[bool] = mapped_column(  # its players' ratings change when it ends
        Boolean, default=False, server_default=false()
    )
    # Once a rated game ended: each seat's rating before and after, for its final view.
    ratings: Mapped[list[dict[str, Any]] | None] = mapped_column(JsonData, nullable=True)
    # True once the sweep is done with the log of a game that is over: compacted into
    # ``compacted_logs``, or left in ``events`` because it did not read back the same.
    log_swept: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A rematch: the game it follows. Unique, so a game has one rematch at most, whichever
    # of its seats asks first and in whichever process.
    rematch_of: Mapped[str | None] = mapped_column(String(32), nullable=True)

    __table_args__ = (
        Index("ix_games_status_created", "status", "created_at"),
        Index("ix_games_created", "created_at"),
        Index("ix_games_deadline", "deadline"),
        # The games whose log the sweep has still to compact, the longest over first: only
        # those are in it, so it stays a few pages however many games have ended.
        Index("ix_games_log_unswept", "updated_at", postgresql_where=UNSWEPT, sqlite_where=UNSWEPT),
        Index("uq_games_rematch_of", "rematch_of", unique=True),
    )


class SeatRow(Base):
    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(16), nullable=True)
    seed: Mapped[str | None] = mapped_column(String(64), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    # The player holding the seat (a bot's: its level's player), and the game's creation time
    # beside it, so that a player's games are read newest first from one index.
    player_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (Index("ix_seats_player", "player_id", "created_at", "game_id"),)


_NEVER_PLAYED = text("played = 0 AND token_hash IS NOT NULL")


class PlayerRow(Base):
    """A player who lasts across games: its bearer token (hashed) or the subject an
    integrator's signed token names, its rating (openskill's mu and sigma) and its results."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    bot: Mapped[str | None] = mapped_column(String(16), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    subject: Mapped[str | None] = mapped_column(String(255), nullable=True, unique=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    # Also the version a rating's update checks: two games ending at once cannot both write.
    rated_games: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    played: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    won: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    lost: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    drawn: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        Index("ix_players_rated_mu", "rated_games", "mu"),
        # The guests that never played, the oldest first: the sweep forgets them
        # (services/retention.py).
        Index(
            "ix_players_guests",
            "created_at",
            postgresql_where=_NEVER_PLAYED,
            sqlite_where=_NEVER_PLAYED,
        ),
    )


class EventRow(Base):
    __tablename__ = "events"

    # The primary key (game_id, seq) is the guard against two writers appending the
    # same step: it holds on SQLite too, which ignores SELECT ... FOR UPDATE.
    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column(JsonData)
    at: Mapped[str] = mapped_column(String(32))  # ISO 8601 UTC, exactly as hashed
    hash: Mapped[str] = mapped_column(String(64))


class CompactedLogRow(Base):
    """The whole log of a game that is over, in one value (compacted_logs.py): its ``events``
    rows are deleted in the same transaction that writes it."""

    __tablename__ = "compacted_logs"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    log: Mapped[bytes] = mapped_column(LargeBinary)


class IdempotentResponseRow(Base):
    __tablename__ = "idempotent_responses"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    answer: Mapped[bytes] = mapped_column(LargeBinary)  # deflated JSON (stored_answers.py)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    # The oldest first, a batch at a time, once they expire (services/retention.py).
    __table_args__ = (Index("ix_idempotent_responses_created", "created_at"),)


_WAITING = text("status = 'waiting'")


class SeekRow(Base):
    """A player's wish to play (services/seeks.py): waiting until a pairing pass seats it."""

    __tablename__ = "seeks"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(40))  # the player's, copied for the seat
    rating: Mapped[float] = mapped_column(Float)  # the player's when it sought
    players: Mapped[int] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean)
    rules: Mapped[dict[str, Any]] = mapped_column(JsonData)  # every effective value
    kind: Mapped[str] = mapped_column(String(64))  # players, rated and rules: who sits together
    bot_after: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    settled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    game_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # When it may sit with bots: created_at + bot_after (None: humans only).
    bots_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (
        Index("ix_seeks_status_created", "status", "created_at"),
        # What a pass reads (services/ports.py: SeekRepository): the waiting seeks' kinds, the
        # seeks due for bots, the seeks out of time; each index holds the waiting seeks alone.
        Index(
            "ix_seeks_waiting_kind",
            "kind",
            "created_at",
            postgresql_where=_WAITING,
            sqlite_where=_WAITING,
        ),
        Index("ix_seeks_waiting_bots", "bots_at", postgresql_where=_WAITING, sqlite_where=_WAITING),
        Index(
            "ix_seeks_waiting_expiry",
            "expires_at",
            postgresql_where=_WAITING,
            sqlite_where=_WAITING,
        ),
        # One waiting seek per player, whatever the number of processes making them at once.
        Index(
            "uq_seeks_waiting_player",
            "player_id",
            unique=True,
            postgresql_where=_WAITING,
            sqlite_where=_WAITING,
        ),
    )


class AnalysisRow(Base):
    """A finished game's analysis (services/analysis.py): its progress and lease while it is
    computed, then its result, compressed. It goes with its game."""

    __tablename__ = "analyses"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    status: Mapped[str] = mapped_column(String(16))
    done: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    claims: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    result: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# The tables, for the statements written in SQLAlchemy Core.
GAMES: Table = GameRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
EVENTS: Table = EventRow.__table__  # type: ignore[assignment]
COMPACTED_LOGS: Table = CompactedLogRow.__table__  # type: ignore[assignment]
IDEMPOTENT: Table = IdempotentResponseRow.__table__  # type: ignore[assignment]
ANALYSES: Table = AnalysisRow.__table__  # type: ignore[assignment]
