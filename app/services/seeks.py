"""A seek, as the use cases see it, and the port of the repository that keeps seeks.

A seek is one player's wish to play: the table's size, ``rated``, the effective rules, and
when it may sit with bots. It is ``waiting`` until a pairing pass seats it (``matched``, with
its game and seat), its player cancels it, or ten minutes pass (``expired``); it changes once,
and never again after. Its player's name and rating are copied in when it is made, so that a
pass reads nothing but the waiting seeks.
"""

from __future__ import annotations

import abc
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

WAITING = "waiting"
MATCHED = "matched"
CANCELLED = "cancelled"
EXPIRED = "expired"
SEEK_STATUSES = (WAITING, MATCHED, CANCELLED, EXPIRED)
SEEK_SECONDS = 600  # a seek nobody matched expires after ten minutes


def kind_of(players: int, rated: bool, rules: Mapping[str, Any]) -> str:
    """What seeks must share to sit together: the table's size, ``rated`` and the effective
    rules (as a digest of their canonical JSON, so that the column stays short)."""
    canonical = json.dumps(dict(rules), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return f"{players}:{'rated' if rated else 'casual'}:{digest}"


@dataclass(slots=True)
class SeekRecord:
    id: str
    player_id: str
    name: str  # the player's, as the game's seat will show it
    rating: float  # the player's when it sought
    players: int
    rated: bool
    rules: dict[str, Any]  # every effective value
    kind: str  # ``kind_of`` the three above
    bot_after: int | None  # seconds; None: humans only
    status: str
    created_at: datetime
    expires_at: datetime
    settled_at: datetime | None = None  # when it stopped waiting
    game_id: str | None = None
    seat: int | None = None
    # When it may sit with bots (``created_at`` + ``bot_after``), kept so that a pass reads the
    # seeks due by an index rather than every seek that has a ``bot_after``.
    bots_at: datetime | None = None

    def waited(self, now: datetime) -> float:
        return (now - self.created_at).total_seconds()


@dataclass(frozen=True, slots=True)
class MatchedSeat:
    """A seek a pass seats: its game and its seat there."""

    seek_id: str
    game_id: str
    seat: int


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
