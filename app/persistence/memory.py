"""The unit of work in memory, with a repository of each port (games, players, seeks,
analyses): what service tests (and anything else that needs games without a database) run on.
Same contract as the SQL ones: a transaction's writes land on commit only, and what a database
would refuse (a stale save, a rating written over another, a second waiting seek of one player,
a seek settled twice, a lease taken twice) is a ``ConcurrentUpdate``."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from datetime import UTC, datetime

from app.services.errors import ConcurrentUpdate
from app.services.log import EventRecord, RawEvent
from app.services.model import (
    ACTIVE,
    DONE,
    EXPIRED,
    RUNNING,
    WAITING,
    AnalysisRecord,
    GameRecord,
    GameSummary,
    Outcome,
    PlayedGame,
    PlayerRecord,
    Progress,
    Seat,
    SeekRecord,
    StoredResult,
)
from app.services.ports import (
    AbstractUnitOfWork,
    AnalysisRepository,
    GameRepository,
    PlayerRepository,
    SeekRepository,
)


@dataclass
class PlayerStore:
    """Committed players, and who each bearer token (by hash) or subject is."""

    players: dict[str, PlayerRecord] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)  # "token:<hash>" | "subject:<sub>" -> id
    made: dict[str, datetime] = field(default_factory=dict)  # when each player was made
    forgotten: set[str] = field(default_factory=set)  # deleted by this transaction


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


class MemorySeekRepository(SeekRepository):
    """Seeks as committed, and this transaction's writes aside; ``commit`` refuses what a
    database would (a second waiting seek of one player, a seek settled twice)."""

    def __init__(self, seeks: dict[str, SeekRecord]) -> None:
        self.committed = seeks
        self.pending: dict[str, SeekRecord] = {}

    def add(self, seek: SeekRecord) -> None:
        self.pending[seek.id] = copy.deepcopy(seek)

    def get(self, seek_id: str) -> SeekRecord | None:
        seek = self.pending.get(seek_id) or self.committed.get(seek_id)
        return copy.deepcopy(seek)

    def waiting_of(self, player_id: str) -> SeekRecord | None:
        return next((s for s in self._waiting() if s.player_id == player_id), None)

    def pairable(self, limit: int, kind: str | None = None) -> list[SeekRecord]:
        waiting = self._waiting()
        kinds = Counter(seek.kind for seek in waiting)
        if kind is None:
            found = [seek for seek in waiting if kinds[seek.kind] > 1]
        else:
            found = [seek for seek in waiting if seek.kind == kind]
        return [copy.deepcopy(seek) for seek in found[:limit]]

    def due_for_bots(self, now: datetime, limit: int, kind: str | None = None) -> list[SeekRecord]:
        due = [seek for seek in self._waiting() if seek.bots_at is not None
               and seek.bots_at <= now and kind in (None, seek.kind)]  # fmt: skip
        due.sort(key=lambda seek: (seek.bots_at, seek.id))
        return [copy.deepcopy(seek) for seek in due[:limit]]

    def expire(self, now: datetime) -> list[str]:
        ids = [seek.id for seek in self._waiting() if seek.expires_at <= now]
        for seek_id in ids:
            self.settle(seek_id, EXPIRED, now)
        return ids

    def count_waiting(self) -> int:
        return len(self._waiting())

    def _waiting(self) -> list[SeekRecord]:
        """The waiting seeks as this transaction sees them, the oldest first (not copies)."""
        seeks = {**self.committed, **self.pending}.values()
        return sorted((s for s in seeks if s.status == WAITING), key=lambda s: (s.created_at, s.id))

    def statuses(self, seek_ids: Sequence[str]) -> dict[str, str]:
        seeks = self.committed
        return {seek_id: seeks[seek_id].status for seek_id in seek_ids if seek_id in seeks}

    def lock_pairing(self) -> None:
        return None  # one process: its passes run one after another

    def settle(self, seek_id: str, status: str, now: datetime, game_id: str | None = None,
               seat: int | None = None) -> None:  # fmt: skip
        seek = self.get(seek_id)
        if seek is None or seek.status != WAITING:
            raise ConcurrentUpdate(seek_id)
        seek.status, seek.settled_at, seek.game_id, seek.seat = status, now, game_id, seat
        self.pending[seek_id] = seek

    def commit(self) -> None:
        for seek in self.pending.values():
            stored = self.committed.get(seek.id)
            if stored is not None and stored.status != WAITING:
                raise ConcurrentUpdate(seek.id)  # settled by another transaction first
            if seek.status == WAITING and any(
                other.player_id == seek.player_id and other.status == WAITING
                and other.id != seek.id for other in self.committed.values()
            ):  # fmt: skip
                raise ConcurrentUpdate(seek.player_id)  # the one-waiting-seek index
        self.committed.update(self.pending)
        self.pending = {}


class MemoryAnalysisRepository(AnalysisRepository):
    def __init__(self, analyses: dict[str, AnalysisRecord]) -> None:
        self.committed = analyses
        self.pending: dict[str, AnalysisRecord] = {}
        self.added: set[str] = set()
        self.claimed: dict[str, int] = {}  # game -> its claims when this transaction read it

    def get(self, game_id: str) -> AnalysisRecord | None:
        found = self.pending.get(game_id) or self.committed.get(game_id)
        return copy.deepcopy(found)

    def add(self, record: AnalysisRecord) -> None:
        if record.game_id in self.committed or record.game_id in self.pending:
            raise ConcurrentUpdate(record.game_id)
        self.pending[record.game_id] = copy.deepcopy(record)
        self.added.add(record.game_id)

    def claim(self, game_id: str, owner: str, now: datetime, until: datetime) -> bool:
        record = self.get(game_id)
        if record is None or not record.unclaimed(now):
            return False
        self.claimed[game_id] = record.claims
        record.owner, record.lease_until, record.updated_at = owner, until, now
        record.claims += 1
        self.pending[game_id] = record
        return True

    def progress(self, game_id: str, owner: str, done: int, until: datetime) -> bool:
        record = self._held(game_id, owner)
        if record is not None:
            record.done, record.lease_until = done, until
        return record is not None

    def finish(self, game_id: str, owner: str, result: bytes, now: datetime) -> bool:
        record = self._held(game_id, owner)
        if record is not None:
            record.status, record.result, record.updated_at = DONE, result, now
            record.owner = record.lease_until = None
        return record is not None

    def _held(self, game_id: str, owner: str) -> AnalysisRecord | None:
        record = self.get(game_id)
        if record is None or record.owner != owner or record.status != RUNNING:
            return None
        self.pending[game_id] = record
        return record

    def commit(self) -> None:
        for game_id in self.added:
            if game_id in self.committed:
                raise ConcurrentUpdate(game_id)  # the primary key
        for game_id, claims in self.claimed.items():
            if self.committed[game_id].claims != claims:
                raise ConcurrentUpdate(game_id)  # another claim committed first
        self.committed.update(self.pending)
        self.pending, self.added, self.claimed = {}, set(), {}


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
