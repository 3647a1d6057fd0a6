"""The players repository in memory, beside memory.py's games: same contract as the SQL one
(writes land on commit only; a rating written over another is a ``ConcurrentUpdate``)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from app.services.errors import ConcurrentUpdate
from app.services.model import (
    ACTIVE,
    WAITING,
    GameRecord,
    Outcome,
    PlayedGame,
    PlayerRecord,
    SeekRecord,
)
from app.services.ports import PlayerRepository


@dataclass
class PlayerStore:
    """Committed players, and who each bearer token (by hash) or subject is."""

    players: dict[str, PlayerRecord] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)  # "token:<hash>" | "subject:<sub>" -> id
    made: dict[str, datetime] = field(default_factory=dict)  # when each player was made
    forgotten: set[str] = field(default_factory=set)  # deleted by this transaction


class MemoryPlayerRepository(PlayerRepository):
    def __init__(
        self,
        store: PlayerStore,
        games: dict[str, GameRecord],
        seeks: dict[str, SeekRecord] | None = None,
    ) -> None:
        self.store = store
        self.pending = PlayerStore()
        self.game_rows = games
        self.seek_rows = seeks if seeks is not None else {}

    def add(self, player: PlayerRecord, token_hash: str | None, subject: str | None) -> None:
        keys = [f"token:{token_hash}"] if token_hash else []
        keys += [f"subject:{subject}"] if subject else []
        if self.get(player.id) is not None or any(self._key(key) for key in keys):
            raise ConcurrentUpdate(player.id)
        self.pending.players[player.id] = copy.copy(player)
        self.pending.keys.update(dict.fromkeys(keys, player.id))
        self.pending.made[player.id] = datetime.now(UTC)

    def get(self, player_id: str, for_update: bool = False) -> PlayerRecord | None:
        found = self.pending.players.get(player_id) or self.store.players.get(player_id)
        return copy.copy(found) if found is not None else None

    def _key(self, key: str) -> str | None:
        return self.pending.keys.get(key) or self.store.keys.get(key)

    def id_of_token(self, token_hash: str) -> str | None:
        return self._key(f"token:{token_hash}")

    def id_of_subject(self, subject: str) -> str | None:
        return self._key(f"subject:{subject}")

    def rename(self, player_id: str, name: str) -> None:
        player = self.get(player_id)
        if player is not None:
            player.name = name
            self.pending.players[player.id] = player

    def record(self, outcome: Outcome) -> None:
        player = self.get(outcome.player_id)
        if player is None:
            raise ConcurrentUpdate(outcome.player_id)
        if outcome.rating is not None:
            if player.rated_games != outcome.seen_rated_games:
                raise ConcurrentUpdate(outcome.player_id)
            player.mu, player.sigma = outcome.rating
            player.rated_games += 1
        player.played += 1
        setattr(player, outcome.result, getattr(player, outcome.result) + 1)
        self.pending.players[player.id] = player

    def games(
        self, player_id: str, status: str | None, limit: int, before: tuple[datetime, str] | None
    ) -> list[PlayedGame]:
        held = [
            PlayedGame(game.id, seat.seat, game.created_at, game.status, game.winner, game.rated,
                       game.ratings, game.updated_at, list(game.state.scores),
                       game.state.turn if game.status == ACTIVE else None,
                       copy.deepcopy(game.seats))
            for game in self.game_rows.values()
            for seat in game.seats
            if seat.player_id == player_id and (status is None or game.status == status)
        ]  # fmt: skip
        held.sort(key=lambda played: (played.created_at, played.game_id), reverse=True)
        if before is not None:
            held = [played for played in held if (played.created_at, played.game_id) < before]
        return held[:limit]

    def best(self, limit: int, least_rated_games: int) -> Sequence[PlayerRecord]:
        rated = [p for p in self.store.players.values()
                 if p.rated_games >= least_rated_games and p.bot is None]  # fmt: skip
        return sorted(rated, key=lambda player: (-player.mu, player.id))[:limit]

    def forget_guests(self, before: datetime, limit: int) -> int:
        seated = {seat.player_id for game in self.game_rows.values() for seat in game.seats}
        seeking = {s.player_id for s in self.seek_rows.values() if s.status == WAITING}
        guests = {pid for key, pid in self.store.keys.items() if key.startswith("token:")}
        idle = sorted((made, pid) for pid, made in self.store.made.items()
                      if pid in guests and made < before and pid not in seated | seeking
                      and self.store.players[pid].played == 0)  # fmt: skip
        self.pending.forgotten |= {pid for _, pid in idle[:limit]}
        return len(idle[:limit])

    def commit(self) -> None:
        for player_id, player in self.pending.players.items():
            stored = self.store.players.get(player_id)
            if stored is not None and stored.rated_games > player.rated_games:
                raise ConcurrentUpdate(player_id)  # rated by another transaction meanwhile
        self.store.players.update(self.pending.players)
        self.store.keys.update(self.pending.keys)
        self.store.made.update(self.pending.made)
        for pid in self.pending.forgotten:
            del self.store.players[pid], self.store.made[pid]
            self.store.keys = {key: held for key, held in self.store.keys.items() if held != pid}
        self.pending = PlayerStore()
