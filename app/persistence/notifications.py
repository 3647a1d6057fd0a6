"""News of committed events, across processes: PostgreSQL's NOTIFY and one LISTEN per process.

A writer announces ``<game id>:<version>`` on the channel inside the transaction that appends
the events, so the notice is delivered exactly when (and only if) they commit. A process keeps
ONE listening connection (``Listener``), whatever the number of its streams, and hands each
notice to a callback. SQLite has no such thing: there the callback is fed by polling the
versions of the games being watched (the ``Watcher`` in app/services/hub.py does that, and
does it on PostgreSQL too, less often, as a safety net and after a reconnect).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping

from sqlalchemy import func, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

CHANNEL = "basra_games"
log = logging.getLogger(__name__)


def announce_versions(session: Session, versions: Mapping[str, int]) -> None:
    """NOTIFY each game's new version inside the open transaction (PostgreSQL only)."""
    if not versions or session.get_bind().dialect.name != "postgresql":
        return
    for game_id, version in versions.items():
        session.execute(select(func.pg_notify(CHANNEL, f"{game_id}:{version}")))


def parse_notice(payload: str) -> tuple[str, int] | None:
    game_id, _, version = payload.rpartition(":")
    if not game_id or not version.isdigit():
        return None
    return game_id, int(version)


def libpq_url(database_url: str) -> str:
    """A SQLAlchemy URL (``postgresql+psycopg://...``) as psycopg's own connect() takes it."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(False)


class Listener:
    """One connection that LISTENs, reconnecting for ever; ``on_notice(game_id, version)``
    for each notice and ``on_connect()`` after each (re)connection, when notices sent while
    it was away are lost and the caller must look for itself."""

    def __init__(
        self,
        database_url: str,
        on_notice: Callable[[str, int], None],
        on_connect: Callable[[], None],
        wake_every: float = 5.0,
        on_idle: Callable[[], None] | None = None,
    ) -> None:
        self.conninfo = libpq_url(database_url)
        self.on_notice = on_notice
        self.on_connect = on_connect
        self.on_idle = on_idle
        self.wake_every = wake_every
        self.stopping = threading.Event()
        self.connected = threading.Event()
        self.reconnects = 0

    def run(self) -> None:
        backoff = 0.1
        while not self.stopping.is_set():
            try:
                self._listen()
                backoff = 0.1
            except Exception as error:  # the server went away: wait, then connect again
                self.connected.clear()
                log.warning("stream listener lost its connection: %s", type(error).__name__)
                self.stopping.wait(backoff)
                backoff = min(backoff * 2, 2.0)

    def _listen(self) -> None:
        import psycopg

        with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5) as connection:
            connection.execute(f"LISTEN {CHANNEL}")
            self.connected.set()
            self.reconnects += 1
            self.on_connect()
            while not self.stopping.is_set():
                for notice in connection.notifies(timeout=self.wake_every, stop_after=256):
                    parsed = parse_notice(notice.payload)
                    if parsed is not None:
                        self.on_notice(*parsed)
                if self.on_idle is not None:
                    self.on_idle()
                connection.execute("SELECT 1")  # notice a dead server even when all is quiet

    def stop(self) -> None:
        self.stopping.set()
