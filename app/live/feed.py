"""Reading a game's stream records from its event log: the one read every stream makes.

Records come from the log itself, after a version the reader already has, so a stream that
resumes from any version misses nothing and repeats nothing. How far the log was read comes
from the database too, never from the reader: a version past the game's own (a made-up
``Last-Event-ID``) reads as the game's version, so a stream's cursor never runs ahead of the
log, where it would wait for records that are already there, or never come.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.live.records import GameFacts, Record, record_of
from app.services.errors import NotFound
from app.services.model import ACTIVE, WAITING
from app.services.ports import AbstractUnitOfWork

PAGE = 500  # events read at once; a long match has a few hundred


@dataclass(frozen=True, slots=True)
class Page:
    records: list[Record]
    through: int  # the log was read up to this version
    ended: bool  # the game is over and nothing follows ``through``


def read(uow: AbstractUnitOfWork, game_id: str, after: int, limit: int = PAGE) -> Page:
    """The records after version ``after``; NotFound for an unknown game."""
    with uow:
        # The events first, then the game: the row is then at least as new as the events, so
        # an `over` among them finds the final scores.
        events = uow.games.events(game_id, after, limit)
        progress = uow.games.progress(game_id)
    if progress is None:
        raise NotFound(f"no game {game_id!r}")
    facts = GameFacts(progress.status, progress.scores)
    records = [r for e in events if (r := record_of(e.seq, e.type, e.data, facts))]
    through = events[-1].seq if events else min(after, progress.version)
    return Page(records, through, is_ended(progress.status) and through >= progress.version)


def is_ended(status: str) -> bool:
    """No more events will come (finished, or any end status added later)."""
    return status not in (WAITING, ACTIVE)
