"""Players as the use cases see them, and the port that stores them (``app.persistence``
implements it for each database, ``app.persistence.memory`` with dicts)."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.services.model import Seat

# openskill's defaults (PlackettLuce): every new player starts here.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3
BOT_PREFIX = "bot-"  # a bot level's player is "bot-<level>"; other ids are hex, never so


def bot_player_id(level: str) -> str:
    return f"{BOT_PREFIX}{level}"


def bot_level_of(player_id: str) -> str | None:
    return player_id[len(BOT_PREFIX) :] if player_id.startswith(BOT_PREFIX) else None


@dataclass(slots=True)
class PlayerRecord:
    id: str
    name: str
    bot: str | None = None
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    rated_games: int = 0
    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a game that ended does to one of its players: one result counted and, for a rated
    game, the new rating (written only if ``rated_games`` is still ``seen_rated_games``)."""

    player_id: str
    result: str  # won | lost | drawn
    rating: tuple[float, float] | None = None  # (mu, sigma) after a rated game
    seen_rated_games: int = 0


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One seat a player held, as the player's history lists it, with the game's seats."""

    game_id: str
    seat: int
    created_at: datetime
    status: str
    winner: int | None
    rated: bool
    ratings: list[dict[str, Any]] | None
    updated_at: datetime
    scores: list[int]  # match totals per side
    turn: int | None  # the seat to move, in an active game
    seats: list[Seat]


class PlayerRepository(abc.ABC):
    """Writes join the unit of work's transaction, with the games' own."""

    @abc.abstractmethod
    def add(self, player: PlayerRecord, token_hash: str | None, subject: str | None) -> None:
        """A new player (a taken id, token or subject: ``ConcurrentUpdate``)."""

    @abc.abstractmethod
    def get(self, player_id: str, for_update: bool = False) -> PlayerRecord | None:
        """The player; ``for_update`` holds other writers of it off until commit (PostgreSQL:
        a game's end waits for another's that rates the same player, and need not retry)."""

    @abc.abstractmethod
    def id_of_token(self, token_hash: str) -> str | None:
        """The player whose bearer token hashes so."""

    def of_token(self, token_hash: str) -> PlayerRecord | None:
        """The player whose bearer token hashes so, read whole (the database's repository:
        in one query)."""
        player_id = self.id_of_token(token_hash)
        return self.get(player_id) if player_id is not None else None

    @abc.abstractmethod
    def id_of_subject(self, subject: str) -> str | None:
        """The player a signed token's subject names."""

    @abc.abstractmethod
    def rename(self, player_id: str, name: str) -> None:
        """The name the player's later seats take (the seats it holds keep theirs)."""

    @abc.abstractmethod
    def record(self, outcome: Outcome) -> None:
        """Count a result; with a rating, write it only if nobody rated the player since it
        was read (else ``ConcurrentUpdate``: the transaction is tried again)."""

    @abc.abstractmethod
    def games(
        self, player_id: str, status: str | None, limit: int, before: tuple[datetime, str] | None
    ) -> list[PlayedGame]:
        """Up to ``limit`` of the player's games, newest first, created before ``before``."""

    @abc.abstractmethod
    def best(self, limit: int, least_rated_games: int) -> Sequence[PlayerRecord]:
        """The players with at least ``least_rated_games`` rated games, the highest rated
        first."""
