"""The pairing passes of one server process: one right after each new seek, over its kind
(in the request that made it, so a compatible seek already waiting is paired before the
answer; seeks of a kind made at once share the pass that reads them all), and one
every ``interval`` seconds on a ``Sweeper`` thread, for what only time brings: a wider rating
gap, a seek's ``bot_after``, its expiry. Any number of processes and instances may pass at
once (app/services/matchmaking.py says why each seek is still matched once).

Each pass tells this process's long polls at once which seeks it settled (app/live/
seek_waits.py); those of other processes hear of it through the database.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime

from app.background.sweeper import Sweeper
from app.live.seek_waits import SeekWaits
from app.services.matchmaking import bot_players, pair_seeks
from app.services.ports import AbstractUnitOfWork

log = logging.getLogger("basra.matchmaking")
_KIND_MEMORY = 60.0  # seconds a kind's latest pass is remembered


def _recent(began: dict[str, float], now: float) -> dict[str, float]:
    return {kind: at for kind, at in began.items() if now - at < _KIND_MEMORY}


class Matchmaker:
    def __init__(
        self,
        uow: Callable[[], AbstractUnitOfWork],
        waits: SeekWaits,
        clock: Callable[[], datetime],
        interval: float = 1.0,
    ) -> None:
        self.uow = uow
        self.waits = waits
        self.clock = clock
        self.sweeper = Sweeper(self.pass_once, interval, name="pairing")
        self.passing = threading.RLock()  # held by the pass under way in this process
        # When the latest pass of this process began (time.monotonic), a whole one and one
        # of each kind.
        self.began = 0.0
        self.began_kind: dict[str, float] = {}

    def pass_once(self, now: datetime | None = None, kind: str | None = None) -> int:
        """One pass as if it were ``now`` (the app's clock if not given), over ``kind`` alone
        if given; how many seeks it settled. The passes of this process run one at a time."""
        with self.passing:
            began = time.monotonic()
            if kind is None:
                self.began = began
            else:
                self.began_kind = {**_recent(self.began_kind, began), kind: began}
            done = pair_seeks(self.uow(), now or self.clock(), bot_players, kind=kind)
        self.waits.settled(done.settled)
        return len(done.settled)

    def pair_now(self, kind: str) -> None:
        """A pass over the kind of a seek a request has just committed, unless a pass of this
        process that read it began since (a burst of seeks in one process makes a few passes,
        not one each). A failure is the next pass's to mend, never the request's (its seek is
        made)."""
        asked = time.monotonic()
        with self.passing:
            if max(self.began, self.began_kind.get(kind, 0.0)) > asked:
                return
            try:
                self.pass_once(kind=kind)
            except Exception:
                log.exception("the pairing pass after a new seek failed; the next one will try")

    def start(self) -> None:
        self.sweeper.start()

    def stop(self) -> None:
        self.sweeper.stop()
