"""How long the server keeps what it need not keep for good, and in what form.

A move's stored answer serves the retries of its ``Idempotency-Key`` for
``IDEMPOTENCY_SECONDS`` (a day, as payment APIs promise), then it is forgotten, and a request
with that key is answered as a new one would be (most often 409 ``not_your_turn``: the move it
carries was made). The game's log keeps every move: once the game has been over for
``LOG_COMPACTION_SECONDS`` its log is kept in one compressed value instead of a row an entry
(app/persistence/compacted_logs.py), which every reader of the log reads the same.

A guest (a player made by ``POST /players``, with a token of its own) that has never taken a
seat of any game and has no waiting seek is forgotten ``GUEST_SECONDS`` (30 days) after it was
made: its row is deleted and its token stops working. A guest that took a seat is kept, as is
every player an integrator's signed token names (made again on its next request if need be)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from app.services.errors import ServiceError
from app.services.ports import AbstractUnitOfWork

log = logging.getLogger("basra.retention")

DEFAULT_IDEMPOTENCY_SECONDS = 86_400
EXPIRY_BATCH = 1_000  # rows a transaction: a short one, however many expired
EXPIRY_BATCHES = 20  # a pass at most; the next sweep goes on
# An hour: the replays and audits right after a match read its rows, which cost no decoding.
DEFAULT_LOG_COMPACTION_SECONDS = 3_600
# Games a sweep compacts at most (a few ms each): a backlog, as after an upgrade, is worked
# through at ~20 games a second a process, a small share of one core.
COMPACTION_BATCH = 20
DEFAULT_GUEST_SECONDS = 30 * 86_400
GUEST_BATCH = 500  # guests a sweep forgets at most


def expire_idempotency(
    uow: AbstractUnitOfWork, now: datetime, keep_seconds: float = DEFAULT_IDEMPOTENCY_SECONDS
) -> int:
    """Forget the stored answers older than ``keep_seconds``, in bounded batches; how many."""
    before = now - timedelta(seconds=keep_seconds)
    forgotten = 0
    for _ in range(EXPIRY_BATCHES):
        done = _batch(
            uow, lambda: uow.games.expire_results(before, EXPIRY_BATCH), "expiring stored answers"
        )
        forgotten += done
        if done < EXPIRY_BATCH:
            break
    return forgotten


def compact_logs(
    uow: AbstractUnitOfWork, now: datetime, after_seconds: float = DEFAULT_LOG_COMPACTION_SECONDS
) -> int:
    """Compact the logs of one batch of games over for ``after_seconds``; how many were swept."""
    before = now - timedelta(seconds=after_seconds)
    return _batch(uow, lambda: uow.games.compact_logs(before, COMPACTION_BATCH), "compacting logs")


def forget_guests(
    uow: AbstractUnitOfWork, now: datetime, keep_seconds: float = DEFAULT_GUEST_SECONDS
) -> int:
    """Forget one batch of the guests made ``keep_seconds`` ago that never played; how many."""
    before = now - timedelta(seconds=keep_seconds)
    return _batch(uow, lambda: uow.players.forget_guests(before, GUEST_BATCH), "forgetting guests")


def _batch(uow: AbstractUnitOfWork, work: Callable[[], int], doing: str) -> int:
    """``work`` in a transaction of its own; 0 when the database is busy or away (the next
    sweep goes on)."""
    try:
        with uow:
            done = work()
            uow.commit()
    except ServiceError as error:
        log.warning("%s stopped: %s", doing, error.detail)
        return 0
    return done
