"""The deadline sweeper: one background thread per server process that, every few tenths
of a second, plays each turn whose clock ran out and ends each waiting game nobody joined,
so that deadlines hold even when no request arrives (API.md items 13 and 15).

Its one job is to call a sweep function (``app.services.progress.sweep``) on a timer.
Which process takes which game is the database's business (``FOR UPDATE SKIP LOCKED`` on
PostgreSQL, the version-checked update everywhere), so any number of processes and
instances may sweep at once and each expired turn is still played exactly once.

A plain ``threading.Thread``: under gunicorn's gevent workers it is patched into a
greenlet like every other thread, under gthread and sync workers it is a real thread.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from datetime import UTC, datetime

# A generator of its own: drawing from the global one in a background thread would change
# the random state other code (and hypothesis' checks) rely on, at moments nobody chose.
_JITTER = random.Random()

log = logging.getLogger("basra.sweeper")

Sweep = Callable[[datetime], int]  # handles what is due at ``now``; returns how many


class Sweeper:
    def __init__(self, sweep: Sweep, interval: float, name: str = "deadlines") -> None:
        """``name``: what it sweeps, for its thread and its log (the pairing pass runs on one
        too: app/background/matchmaker.py)."""
        if interval <= 0:
            raise ValueError("the sweep interval is a positive number of seconds")
        self.sweep = sweep
        self.interval = interval
        self.name = name
        self.swept = 0  # games handled by this process, for tests and logs
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"basra-{self.name}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to finish its current sweep and wait for it (at most ``timeout``)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def sweep_once(self, now: datetime | None = None) -> int:
        count = self.sweep(now or datetime.now(UTC))
        self.swept += count
        return count

    def _run(self) -> None:
        # Jitter spreads the instances' sweeps so they do not all wake at the same moment.
        while not self._stop.wait(self.interval * _JITTER.uniform(0.75, 1.25)):
            try:
                count = self.sweep_once()
            except Exception:  # a bad moment of the database must not end the thread
                log.exception("sweeping the %s failed; trying again next time", self.name)
                continue
            if count:
                log.info("swept %d (%s)", count, self.name)
