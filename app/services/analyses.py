"""A game's analysis as stored, and the port of the repository that keeps it.

One row a game, made by the first request for it: ``running`` with its progress (``done`` of
``total`` judged moves) until the worker that holds its lease stores the result and marks it
``done``. The lease (``owner``, ``lease_until``) is what lets any number of processes and
instances offer to compute it while exactly one does: ``claim`` takes a row nobody holds, or
whose holder let its lease run out (its process died); the holder renews it with each step of
progress, and only the holder may store the result.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from datetime import datetime

RUNNING = "running"
DONE = "done"


@dataclass(slots=True)
class AnalysisRecord:
    game_id: str
    status: str  # RUNNING or DONE
    done: int  # judged moves so far
    total: int  # moves to judge in all
    updated_at: datetime
    owner: str | None = None  # the worker computing it, while its lease lasts
    lease_until: datetime | None = None
    claims: int = 0  # how many times a worker took it up (1 unless one died on it)
    result: bytes | None = None  # once done: the judged moves, compact (services/analysis.py)

    def unclaimed(self, now: datetime) -> bool:
        """Running with nobody computing it: never taken up, or its holder's lease ran out."""
        return self.status == RUNNING and (
            self.owner is None or self.lease_until is None or self.lease_until <= now
        )


class AnalysisRepository(abc.ABC):
    """Analyses. Writes join the unit of work's transaction."""

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
