"""How long the server keeps what it need not keep for good: a move's stored answer serves the
retries of its ``Idempotency-Key`` for ``IDEMPOTENCY_SECONDS`` (a day, as payment APIs promise),
then it is forgotten, and a request with that key is answered as a new one would be (most
often 409 ``not_your_turn``: the move it carries was made). The game's log keeps every move."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from app.services.errors import ServiceError
from app.services.unit_of_work import AbstractUnitOfWork

log = logging.getLogger("basra.retention")

DEFAULT_IDEMPOTENCY_SECONDS = 86_400
EXPIRY_BATCH = 1_000  # rows a transaction: a short one, however many expired
EXPIRY_BATCHES = 20  # a pass at most; the next sweep goes on


def expire_idempotency(
    uow: AbstractUnitOfWork, now: datetime, keep_seconds: float = DEFAULT_IDEMPOTENCY_SECONDS
) -> int:
    """Forget the stored answers older than ``keep_seconds``, in bounded batches; how many."""
    before = now - timedelta(seconds=keep_seconds)
    forgotten = 0
    for _ in range(EXPIRY_BATCHES):
        try:
            with uow:
                done = uow.games.expire_results(before, EXPIRY_BATCH)
                uow.commit()
        except ServiceError as error:  # busy or unavailable: the next sweep goes on
            log.warning("expiring stored answers stopped: %s", error.detail)
            break
        forgotten += done
        if done < EXPIRY_BATCH:
            break
    return forgotten
