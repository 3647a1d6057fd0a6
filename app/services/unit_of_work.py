"""The ports the use cases run on: a repository of games (and one of seeks, seeks.py) and a
unit of work around them (cosmicpython's ``unit_of_work.py``). ``app.persistence``
implements them with SQLAlchemy, ``app.persistence.memory`` with dicts; a use case sees
only these methods."""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar

from app.services.analyses import AnalysisRepository
from app.services.errors import Busy, ConcurrentUpdate
from app.services.log import EventRecord, RawEvent
from app.services.model import GameRecord, GameSummary, Progress
from app.services.player_store import PlayerRepository
from app.services.seeks import SeekRepository

T = TypeVar("T")
ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class StoredResult:
    """The first answer to a move sent with an Idempotency-Key, for its retries."""

    request_hash: str
    result: dict[str, Any]


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
