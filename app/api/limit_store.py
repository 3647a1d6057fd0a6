"""Rate-limit counts in a SQLite file: one store for every worker process of an instance.

flask-limiter's ``memory://`` store counts per process, so gunicorn's N workers would let a
client make N times the limit. Production shares counts in Redis (``REDIS_URL``), across
instances too; without Redis this file, on the instance's own disk, is shared by the workers
of that instance (``limits.default_storage``, unless ``RATE_LIMIT_STORAGE`` names another
store). Each check is one short write transaction; the counts are disposable, so the file is
never synced to disk.

URI: ``basra-sqlite:///absolute/path/to/file.sqlite3``.
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from limits.storage import MovingWindowSupport, Storage

# Its own generator, not the global one shared with the rest of the process.
_PURGE_DRAW = random.Random()
SCHEME = "basra-sqlite"
LONGEST_WINDOW = 86400  # seconds: no limit here counts over more than a day
PURGE_ODDS = 0.001
_SCHEMA = """
CREATE TABLE IF NOT EXISTS hits (key TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS hits_key_at ON hits (key, at);
CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, value INTEGER NOT NULL,
                                     expires REAL NOT NULL);
"""


class SqliteFileStorage(Storage, MovingWindowSupport):
    STORAGE_SCHEME = [SCHEME]  # noqa: RUF012 (limits declares it an instance variable)

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: Any):
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        path = (uri or "").split("://", 1)[-1]
        if not path:
            raise ValueError(f"{SCHEME}:// needs a file path")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connection().executescript(_SCHEMA)  # its own transaction

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return sqlite3.Error

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            # One connection per thread (sqlite3's rule); autocommit, transactions by hand.
            connection = sqlite3.connect(self.path, timeout=5, isolation_level=None)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=OFF")
            self._local.connection = connection
        return connection

    class _Transaction:
        def __init__(self, connection: sqlite3.Connection) -> None:
            self.connection = connection

        def __enter__(self) -> sqlite3.Connection:
            # IMMEDIATE: take the write lock first, so a check and its hit are one step for
            # every process (a deferred transaction could count past the limit).
            self.connection.execute("BEGIN IMMEDIATE")
            return self.connection

        def __exit__(self, kind: Any, *_: Any) -> None:
            self.connection.execute("ROLLBACK" if kind else "COMMIT")

    def _transaction(self) -> SqliteFileStorage._Transaction:
        return self._Transaction(self._connection())

    # ------------------------------------------------------------ fixed windows
    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        now = time.time()
        with self._transaction() as db:
            db.execute("DELETE FROM counters WHERE key = ? AND expires <= ?", (key, now))
            db.execute(
                "INSERT INTO counters (key, value, expires) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = value + excluded.value",
                (key, amount, now + expiry),
            )
            row = db.execute("SELECT value FROM counters WHERE key = ?", (key,)).fetchone()
        return int(row[0])

    def get(self, key: str) -> int:
        row = (
            self._connection()
            .execute("SELECT value FROM counters WHERE key = ? AND expires > ?", (key, time.time()))
            .fetchone()
        )
        return int(row[0]) if row else 0

    def get_expiry(self, key: str) -> float:
        """When the key's fixed window ends (it started with its first hit); now if it has none
        or it has ended, as ``limits``' memory store answers."""
        now = time.time()
        row = (
            self._connection()
            .execute("SELECT expires FROM counters WHERE key = ? AND expires > ?", (key, now))
            .fetchone()
        )
        return float(row[0]) if row else now

    def check(self) -> bool:
        try:
            self._connection().execute("SELECT 1").fetchone()
        except sqlite3.Error:
            return False
        return True

    def reset(self) -> int | None:
        with self._transaction() as db:
            removed = db.execute("DELETE FROM counters").rowcount
            removed += db.execute("DELETE FROM hits").rowcount
        return removed

    def clear(self, key: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM counters WHERE key = ?", (key,))
            db.execute("DELETE FROM hits WHERE key = ?", (key,))

    # ------------------------------------------------------------ moving windows
    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        if amount > limit:
            return False
        now = time.time()
        with self._transaction() as db:
            db.execute("DELETE FROM hits WHERE key = ? AND at <= ?", (key, now - expiry))
            (count,) = db.execute("SELECT COUNT(*) FROM hits WHERE key = ?", (key,)).fetchone()
            if count + amount > limit:
                return False
            db.executemany("INSERT INTO hits (key, at) VALUES (?, ?)", [(key, now)] * amount)
            if _PURGE_DRAW.random() < PURGE_ODDS:  # keys nobody asks about again: drop old hits
                db.execute("DELETE FROM hits WHERE at <= ?", (now - LONGEST_WINDOW,))
        return True

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        """The oldest hit still in the window and how many there are: the window frees a slot
        when that hit is ``expiry`` old (``acquire_entry`` drops hits exactly that old)."""
        now = time.time()
        oldest, count = (
            self._connection()
            .execute(
                "SELECT MIN(at), COUNT(*) FROM hits WHERE key = ? AND at > ?", (key, now - expiry)
            )
            .fetchone()
        )
        return (float(oldest) if oldest is not None else now, int(count))
