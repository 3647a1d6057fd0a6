"""One writer at a time on an SQLite file, queued by the kernel instead of by SQLite's sleeps.

SQLite lets one connection write at a time. A connection that finds the file locked waits in
SQLite's busy handler, which sleeps 1, 2, 5, 10, 15, 20, 25... ms between tries however soon
the lock is freed: with several gunicorn workers writing moves, those sleeps made SQLite's
slowest moves several times slower than PostgreSQL's (docs/performance.md). The hot path's
writes (``SqliteGameRepository``) first take this gate: a lock held by one thread of one
process at a time (a ``threading.Lock``, then ``flock`` on a file beside the database), which
the next waiter gets the moment it is released. It only orders writers: the version check and
SQLite's own lock still guard every write, and writes that do not take the gate (creating a
game, a join) wait in SQLite's busy handler as before.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path


class WriteGate:
    """Process-wide and machine-wide: one holder at a time. A thread that enters again before
    it leaves (a unit of work inside another's) goes through: a plain lock would wait for
    itself forever."""

    def __init__(self, database_file: Path) -> None:
        self.path = database_file.with_name(database_file.name + ".write-gate")
        self._threads = threading.RLock()
        self._depth = 0  # how many times the holding thread entered; guarded by _threads
        self._fd: int | None = None
        self._pid = 0

    def enter(self) -> None:
        self._threads.acquire()
        if self._depth == 0:
            try:
                fcntl.flock(self._file(), fcntl.LOCK_EX)  # releases the GIL while it waits
            except BaseException:
                self._threads.release()
                raise
        self._depth += 1

    def leave(self) -> None:
        self._depth -= 1
        if self._depth == 0:
            fcntl.flock(self._file(), fcntl.LOCK_UN)
        self._threads.release()

    def _file(self) -> int:
        """This process's own descriptor (one opened before a fork would be shared, and
        ``flock`` would not keep the two processes apart)."""
        if self._fd is None or self._pid != os.getpid():
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            self._pid = os.getpid()
        return self._fd
