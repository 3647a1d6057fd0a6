"""The ports the use cases run on (cosmicpython's ``unit_of_work.py``): the repositories of
games, players, seeks and analyses, the unit of work that holds them in one transaction, and
``retrying``, how a use case runs a transaction that may lose a race. ``app.persistence``
implements them over SQLite and PostgreSQL, ``app.persistence.memory`` with dicts; a use case
sees only these methods. What they carry is model.py's."""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence, Set
from datetime import datetime
from types import TracebackType
from typing import Protocol, Self, TypeVar

from app.services.errors import Busy, ConcurrentUpdate
from app.services.log import EventRecord, RawEvent
from app.services.model import (
    MATCHED,
    AnalysisRecord,
    GameRecord,
    GameSummary,
    MatchedSeat,
    Outcome,
    PlayedGame,
    PlayerRecord,
    Progress,
    SeekRecord,
    StoredResult,
)

T = TypeVar("T")
ATTEMPTS = 5


class GameRepository(Protocol):
    """Games, their seats and their logs. Writes join the unit of work's transaction.
    A protocol, so that a decorator of a repository (game_images.py) may forward what it
    does not change rather than restate it; the repositories subclass it."""

    @abc.abstractmethod
    def get(
        self, game_id: str, for_update: bool = False, idempotency_key: str | None = None
    ) -> GameRecord | None:
        """The game and its seats; ``for_update`` holds writers of it off until commit.
        ``idempotency_key``: the caller asks ``stored_result`` for this key next, and the
        answers stored under it may come with the game, in the same query."""

    @abc.abstractmethod
    def add(self, game: GameRecord) -> None:
        """A new game, its seats and its first log entries."""

    @abc.abstractmethod
    def save(self, game: GameRecord) -> None:
        """Write a loaded game back with its new log entries, only if nobody moved it on
        since it was loaded (else ``ConcurrentUpdate``)."""

    @abc.abstractmethod
    def take_due(self, now: datetime, skip: Set[str]) -> GameRecord | None:
        """A game whose deadline is ``now`` or earlier (none in ``skip``), for update; one
        another transaction holds is passed over, so many sweepers share the work."""

    @abc.abstractmethod
    def game_of_token(self, token_hash: str) -> str | None:
        """The game a seat token belongs to, if any."""

    @abc.abstractmethod
    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[EventRecord]:
        """The log after entry ``after``, in order (the first ``limit`` entries)."""

    @abc.abstractmethod
    def raw_events(self, game_id: str) -> list[RawEvent]:
        """The whole log with each entry's data as the stored JSON text, undecoded."""

    @abc.abstractmethod
    def events_of_type(self, game_id: str, kind: str) -> list[EventRecord]:
        """The log entries of one type, in order."""

    @abc.abstractmethod
    def progress(self, game_id: str) -> Progress | None:
        """The game's status, version and scores (no state, no seats)."""

    @abc.abstractmethod
    def versions(self, game_ids: Sequence[str]) -> dict[str, int]:
        """The version of each of these games (unknown ids left out), in one query."""

    @abc.abstractmethod
    def page(
        self, status: str | None, limit: int, before: tuple[datetime, str] | None
    ) -> list[GameSummary]:
        """Up to ``limit`` games, newest first, created before ``before`` (time, id)."""

    @abc.abstractmethod
    def stale_bots_only_games(self, before: datetime, limit: int) -> list[tuple[str, datetime]]:
        """Active games with no human seat, unchanged since ``before``: (id, updated_at)."""

    @abc.abstractmethod
    def count_bots_only_games(self, up_to: int) -> int:
        """How many active games have no human seat, counted up to ``up_to`` at most."""

    @abc.abstractmethod
    def touch(self, game_id: str, seen: datetime, now: datetime) -> bool:
        """Set ``updated_at`` to ``now`` if it is still ``seen``: a claim one caller wins."""

    @abc.abstractmethod
    def stored_result(self, game_id: str, seat: int, key: str) -> StoredResult | None:
        """The answer stored under a seat's Idempotency-Key."""

    @abc.abstractmethod
    def store_result(self, game_id: str, seat: int, key: str, stored: StoredResult) -> None:
        """Keep an answer for the retries of the same key."""

    @abc.abstractmethod
    def expire_results(self, before: datetime, limit: int) -> int:
        """Forget up to ``limit`` stored answers kept since before ``before``, the oldest
        first; how many."""

    @abc.abstractmethod
    def compact_logs(self, before: datetime, limit: int) -> int:
        """Store the logs of up to ``limit`` games over since before ``before`` (the longest
        over first) in their compact form, read back the same by every method here; how
        many games were swept."""

    @abc.abstractmethod
    def rematch_id(self, game_id: str) -> str | None:
        """The game made as the rematch of this one, if any (there is one at most: a second
        added is a ``ConcurrentUpdate``)."""


class PlayerRepository(abc.ABC):
    """Players. Writes join the unit of work's transaction, with the games' own."""

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
        """The players (bots left out) with at least ``least_rated_games`` rated games, the
        highest rated first."""

    @abc.abstractmethod
    def forget_guests(self, before: datetime, limit: int) -> int:
        """Delete up to ``limit`` guests made before ``before`` that never played: players of
        a bearer token of their own (not a signed subject, not a bot) that hold no seat of
        any game and have no waiting seek; how many."""


class SeekRepository(abc.ABC):
    """Seeks. Writes join the unit of work's transaction, with the games it creates."""

    @abc.abstractmethod
    def add(self, seek: SeekRecord) -> None:
        """A new waiting seek; a second waiting seek of one player is a lost race
        (``ConcurrentUpdate``): the database keeps at most one."""

    @abc.abstractmethod
    def get(self, seek_id: str) -> SeekRecord | None:
        """The seek, whatever its status."""

    @abc.abstractmethod
    def waiting_of(self, player_id: str) -> SeekRecord | None:
        """The player's waiting seek, if it has one."""

    @abc.abstractmethod
    def pairable(self, limit: int, kind: str | None = None) -> list[SeekRecord]:
        """The waiting seeks a pass can pair, the oldest first (``limit`` at most): those of
        ``kind``, or without it those of every kind that has two or more waiting. A seek alone
        of its kind is never read, however many such seeks wait."""

    @abc.abstractmethod
    def due_for_bots(self, now: datetime, limit: int, kind: str | None = None) -> list[SeekRecord]:
        """The waiting seeks whose ``bots_at`` has come (of ``kind`` alone if given), the
        longest due first."""

    @abc.abstractmethod
    def expire(self, now: datetime) -> list[str]:
        """Settle every waiting seek whose ``expires_at`` has come as ``expired``, in one
        statement; their ids (their waiters hear of them as of ``settle``'s)."""

    @abc.abstractmethod
    def count_waiting(self) -> int:
        """How many seeks wait."""

    @abc.abstractmethod
    def statuses(self, seek_ids: Sequence[str]) -> dict[str, str]:
        """The status of each of these seeks (unknown ones left out), in one query."""

    @abc.abstractmethod
    def lock_pairing(self) -> None:
        """Hold other pairing passes off until this transaction ends (PostgreSQL: an
        advisory lock; SQLite: its writers' gate). Only spares them work: ``settle`` is
        what keeps a seek from being matched twice."""

    @abc.abstractmethod
    def settle(
        self,
        seek_id: str,
        status: str,
        now: datetime,
        game_id: str | None = None,
        seat: int | None = None,
    ) -> None:
        """End a seek's wait, only if it is still waiting (else ``ConcurrentUpdate``, and the
        whole transaction is lost: a seek is matched, cancelled or expired once). Its waiters,
        in every process, hear of it once the transaction commits."""

    def match(self, seats: Sequence[MatchedSeat], now: datetime) -> None:
        """``settle`` each of these seeks as ``matched`` to its game and seat, all or none: a
        pass's whole work in one go (the database's repository sends one statement for all
        of them, and one to announce them)."""
        for one in seats:
            self.settle(one.seek_id, MATCHED, now, one.game_id, one.seat)


class AnalysisRepository(abc.ABC):
    """Analyses, one row a game. The lease (``owner``, ``lease_until``) is what lets any number
    of processes and instances offer to compute one while exactly one does: ``claim`` takes a
    row nobody holds, or whose holder let its lease run out (its process died); the holder
    renews it with each step of progress, and only the holder may store the result. Writes
    join the unit of work's transaction."""

    @abc.abstractmethod
    def get(self, game_id: str) -> AnalysisRecord | None:
        """The game's analysis, its result included once done."""

    @abc.abstractmethod
    def add(self, record: AnalysisRecord) -> None:
        """A new analysis; one already there is a lost race (``ConcurrentUpdate``)."""

    @abc.abstractmethod
    def claim(self, game_id: str, owner: str, now: datetime, until: datetime) -> bool:
        """Take the lease of a running analysis nobody holds (or whose lease ran out before
        ``now``) for ``owner`` until ``until``; False if another holds it or it is done."""

    @abc.abstractmethod
    def progress(self, game_id: str, owner: str, done: int, until: datetime) -> bool:
        """Record ``done`` and renew the lease, only while ``owner`` holds it."""

    @abc.abstractmethod
    def finish(self, game_id: str, owner: str, result: bytes, now: datetime) -> bool:
        """Store the result and mark it done, only while ``owner`` holds the lease."""


class AbstractUnitOfWork(abc.ABC):
    """One transaction: ``with uow:`` opens it, ``uow.commit()`` makes it last, leaving
    the block without a commit rolls it back. Entering again opens a new one."""

    games: GameRepository
    players: PlayerRepository  # in the same transaction as ``games``
    seeks: SeekRepository
    analyses: AnalysisRepository

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.rollback()

    @abc.abstractmethod
    def commit(self) -> None:
        """Make the transaction's writes last (``ConcurrentUpdate`` on a lost race)."""

    @abc.abstractmethod
    def rollback(self) -> None:
        """Forget the transaction's writes."""

    @abc.abstractmethod
    def ping(self) -> None:
        """Check that the store answers (``Unavailable`` if not)."""

    @abc.abstractmethod
    def schema_revisions(self) -> tuple[frozenset[str], frozenset[str]]:
        """The store's schema version(s) now, and the newest this code ships: the store is
        ready for this code when they are the same (``Unavailable`` if it does not answer)."""


def retrying(attempt: Callable[[], T], attempts: int = ATTEMPTS) -> T:
    """Run ``attempt`` (one whole transaction) again while it loses a race.

    A lost race (the version check, a duplicate log entry, a lock) rolls the whole
    transaction back, so nothing is ever half-written; the next attempt reloads the game
    and decides again, which may now refuse (e.g. not your turn).
    """
    for _ in range(attempts):
        try:
            return attempt()
        except ConcurrentUpdate:
            continue
    raise Busy("the game is changing too fast; try again")


def retrying_locked(attempt: Callable[[bool], T], attempts: int = ATTEMPTS) -> T:
    """``retrying`` for a use case that may load its game without a lock: the first attempt
    runs as ``attempt(False)`` (nothing is held while it decides, and the version check of
    its save is the guard), every retry after a lost race as ``attempt(True)``, loading for
    update, so that writers racing for one game take turns and each gets through."""
    locked = False

    def once() -> T:
        nonlocal locked
        try:
            return attempt(locked)
        finally:
            locked = True

    return retrying(once, attempts)
