"""The repository and unit of work in memory: what service tests (and anything else that
needs games without a database) run on. Same contract as the SQL ones: a transaction's
writes land on commit only, and a stale save is a ``ConcurrentUpdate``."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from datetime import UTC, datetime

from app.persistence.memory_analyses import MemoryAnalysisRepository
from app.persistence.memory_players import MemoryPlayerRepository, PlayerStore
from app.persistence.memory_seeks import MemorySeekRepository
from app.services.errors import ConcurrentUpdate
from app.services.log import EventRecord, RawEvent
from app.services.model import (
    ACTIVE,
    WAITING,
    AnalysisRecord,
    GameRecord,
    GameSummary,
    Progress,
    Seat,
    SeekRecord,
    StoredResult,
)
from app.services.ports import AbstractUnitOfWork, GameRepository


@dataclass
class Store:
    """What a database would hold, committed transactions only."""

    games: dict[str, GameRecord] = field(default_factory=dict)
    logs: dict[str, list[EventRecord]] = field(default_factory=dict)
    results: dict[tuple[str, int, str], StoredResult] = field(default_factory=dict)
    results_at: dict[tuple[str, int, str], datetime] = field(default_factory=dict)
    players: PlayerStore = field(default_factory=PlayerStore)
    seeks: dict[str, SeekRecord] = field(default_factory=dict)
    analyses: dict[str, AnalysisRecord] = field(default_factory=dict)


class MemoryGameRepository(GameRepository):
    """Reads the store as committed, keeps its writes aside until commit."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pending = Store()

    def get(
        self, game_id: str, for_update: bool = False, idempotency_key: str | None = None
    ) -> GameRecord | None:
        stored = self.store.games.get(game_id)
        return _loaded(stored) if stored is not None else None

    def add(self, game: GameRecord) -> None:
        if game.id in self.store.games or game.id in self.pending.games:
            raise ConcurrentUpdate(game.id)
        if game.rematch_of is not None and self.rematch_id(game.rematch_of) is not None:
            raise ConcurrentUpdate(game.id)  # the unique rematch_of of the SQL games table
        self._write(game)

    def save(self, game: GameRecord) -> None:
        stored = self.store.games.get(game.id)
        if stored is None or stored.version != game.loaded_version:
            raise ConcurrentUpdate(game.id)
        self._write(game)

    def _write(self, game: GameRecord) -> None:
        game.saving(game.state.to_dict(), None)  # with its rounds: nothing is kept apart here
        saved = _loaded(game)  # a copy: later changes to ``game`` are not written
        saved.new_events.clear()
        self.pending.games[game.id] = saved
        self.pending.logs.setdefault(game.id, []).extend(game.new_events)

    def take_due(self, now: datetime, skip: Set[str]) -> GameRecord | None:
        due = [g for g in self.store.games.values()
               if g.deadline is not None and g.deadline <= now and g.id not in skip]  # fmt: skip
        if not due:
            return None
        return _loaded(min(due, key=lambda game: game.deadline or now))

    def game_of_token(self, token_hash: str) -> str | None:
        for game in self.store.games.values():
            if any(seat.token_hash == token_hash for seat in game.seats):
                return game.id
        return None

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[EventRecord]:
        found = [e for e in self.store.logs.get(game_id, []) if e.seq > after]
        return found if limit is None else found[:limit]

    def progress(self, game_id: str) -> Progress | None:
        game = self.store.games.get(game_id)
        if game is None:
            return None
        return Progress(game.status, game.version, tuple(game.state.scores))

    def versions(self, game_ids: Sequence[str]) -> dict[str, int]:
        games = self.store.games
        return {game_id: games[game_id].version for game_id in game_ids if game_id in games}

    def raw_events(self, game_id: str) -> list[RawEvent]:
        return [RawEvent(e.seq, e.type, json.dumps(e.data), e.at, e.hash)
                for e in self.store.logs.get(game_id, [])]  # fmt: skip

    def rematch_id(self, game_id: str) -> str | None:
        games = [*self.store.games.values(), *self.pending.games.values()]
        return next((game.id for game in games if game.rematch_of == game_id), None)

    def rematch_id_committed(self, game_id: str) -> str | None:
        found = (game.id for game in self.store.games.values() if game.rematch_of == game_id)
        return next(found, None)

    def stale_bots_only_games(self, before: datetime, limit: int) -> list[tuple[str, datetime]]:
        stale = [g for g in self.store.games.values() if g.status == ACTIVE
                 and all(s.bot for s in g.seats) and g.updated_at < before]  # fmt: skip
        return [(g.id, g.updated_at) for g in sorted(stale, key=lambda g: g.updated_at)][:limit]

    def count_bots_only_games(self, up_to: int) -> int:
        playing = [g for g in self.store.games.values()
                   if g.status == ACTIVE and all(s.bot for s in g.seats)]  # fmt: skip
        return min(len(playing), up_to)

    def touch(self, game_id: str, seen: datetime, now: datetime) -> bool:
        game = self.store.games.get(game_id)
        if game is None or game.updated_at != seen:
            return False
        game.updated_at = now  # a claim, not a change of the game: no transaction needed
        return True

    def events_of_type(self, game_id: str, kind: str) -> list[EventRecord]:
        return [e for e in self.store.logs.get(game_id, []) if e.type == kind]

    def page(
        self, status: str | None, limit: int, before: tuple[datetime, str] | None
    ) -> list[GameSummary]:
        games = sorted(self.store.games.values(), key=lambda g: (g.created_at, g.id), reverse=True)
        chosen = [g for g in games if (status is None or g.status == status)
                  and (g.status != WAITING or g.public)
                  and (before is None or (g.created_at, g.id) < before)]  # fmt: skip
        return [_summary(game) for game in chosen[:limit]]

    def stored_result(self, game_id: str, seat: int, key: str) -> StoredResult | None:
        return self.store.results.get((game_id, seat, key))

    def store_result(self, game_id: str, seat: int, key: str, stored: StoredResult) -> None:
        if (game_id, seat, key) in self.store.results:
            raise ConcurrentUpdate(key)
        self.pending.results[(game_id, seat, key)] = copy.deepcopy(stored)
        self.pending.results_at[(game_id, seat, key)] = datetime.now(UTC)

    def expire_results(self, before: datetime, limit: int) -> int:
        kept = self.store.results_at
        oldest = sorted((at, key) for key, at in kept.items() if at < before)[:limit]
        for _, key in oldest:
            del self.store.results[key], kept[key]
        return len(oldest)

    def compact_logs(self, before: datetime, limit: int) -> int:
        return 0  # in memory a log takes no room worth saving

    def commit(self) -> None:
        for game in self.pending.games.values():
            made = self.rematch_id_committed(game.rematch_of) if game.rematch_of else None
            if made is not None and made != game.id:
                raise ConcurrentUpdate(game.id)  # another transaction made the rematch first
        for game_id, log in self.pending.logs.items():
            stored = self.store.logs.setdefault(game_id, [])
            if log and stored and log[0].seq != stored[-1].seq + 1:
                raise ConcurrentUpdate(game_id)  # the (game, seq) key of the SQL log
            stored.extend(log)
        self.store.games.update(self.pending.games)
        self.store.results.update(self.pending.results)
        self.store.results_at.update(self.pending.results_at)
        self.pending = Store()


class MemoryUnitOfWork(AbstractUnitOfWork):
    def __init__(self, store: Store | None = None) -> None:
        self.store = store if store is not None else Store()
        self.games: MemoryGameRepository = MemoryGameRepository(self.store)
        self.players: MemoryPlayerRepository = MemoryPlayerRepository(
            self.store.players, self.store.games, self.store.seeks
        )
        self.seeks: MemorySeekRepository = MemorySeekRepository(self.store.seeks)
        self.analyses: MemoryAnalysisRepository = MemoryAnalysisRepository(self.store.analyses)
        self.commits = 0

    def __enter__(self) -> MemoryUnitOfWork:
        self.games = MemoryGameRepository(self.store)
        self.players = MemoryPlayerRepository(
            self.store.players, self.store.games, self.store.seeks
        )
        self.seeks = MemorySeekRepository(self.store.seeks)
        self.analyses = MemoryAnalysisRepository(self.store.analyses)
        return self

    def commit(self) -> None:
        self.seeks.commit()  # first: it may refuse, and then nothing is written
        self.analyses.commit()
        self.players.commit()
        self.games.commit()
        self.commits += 1

    def rollback(self) -> None:
        self.games.pending = Store()
        self.players.pending = PlayerStore()
        self.seeks.pending = {}
        self.analyses.pending, self.analyses.added, self.analyses.claimed = {}, set(), {}

    def ping(self) -> None:
        return None

    def schema_revisions(self) -> tuple[frozenset[str], frozenset[str]]:
        return frozenset(), frozenset()  # nothing to migrate in memory


def _loaded(game: GameRecord) -> GameRecord:
    """A deep copy, as if read from a database: the caller's changes stay its own."""
    copied = copy.deepcopy(game)
    copied.as_loaded()
    copied.changed_seats = set()
    return copied


def _summary(game: GameRecord) -> GameSummary:
    seats = [Seat(s.seat, s.name, s.bot, s.seed, s.token_hash, s.player_id) for s in game.seats]
    custom = game.custom_deck is not None
    return GameSummary(game.id, game.status, game.version, game.created_at, seats,
                       list(game.state.scores), game.winner, custom, game.rated)  # fmt: skip
