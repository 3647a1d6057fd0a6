"""News of committed events, across processes: PostgreSQL's NOTIFY and one LISTEN per process.

A writer announces ``<game id>:<version>`` on the channel inside the transaction that appends
the events, so the notice is delivered exactly when (and only if) they commit. A move's notice
also carries the public stream records it added (``Notice``), so that with a thousand streams
in four processes a move costs no process a read of the log. A process keeps
ONE listening connection (``Listener``), whatever the number of its streams, and hands each
notice to a callback. SQLite has no such thing: there the callback is fed by polling the
versions of the games being watched (the ``Watcher`` in app/live/watcher.py does that, and
does it on PostgreSQL too, less often, as a safety net and after a reconnect).
"""

from __future__ import annotations

import logging
import select
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson
from sqlalchemy.engine import make_url

from app.live.feed import Page
from app.live.records import Record

if TYPE_CHECKING:
    from app.live.news import News, NewsSink

CHANNEL = "basra_games"
log = logging.getLogger(__name__)


# A notice with its records must fit PostgreSQL's 8,000 bytes; a longer one goes without.
MAX_NOTICE = 7500


@dataclass(frozen=True, slots=True)
class Notice:
    """``<game id>:<version>``, or, with the public records the commit added (so that no
    listener need read them from the log), ``<game id>:<version>:<after>:<ended>:<records>``:
    the records follow version ``after``, ``ended`` is 1 when nothing will follow, and
    ``records`` is a JSON list of ``[id, event, data]``."""

    game_id: str
    version: int
    page: Page | None = None  # the records after ``after``, read up to ``version``
    after: int | None = None


def notice_text(game_id: str, version: int, after: int, ended: bool, records: list[Record]) -> str:
    """The notice of a commit that moved ``game_id`` from ``after`` to ``version``."""
    bare = f"{game_id}:{version}"
    rows = [[record.id, record.event, record.data] for record in records]
    # orjson: every move on PostgreSQL sends one, and the standard library took 7 us of it.
    text = f"{bare}:{after}:{int(ended)}:{orjson.dumps(rows).decode()}"
    return text if len(text.encode()) <= MAX_NOTICE else bare


def parse_notice(payload: str) -> Notice | None:
    parts = payload.split(":", 4)
    if len(parts) == 2:
        game_id, version = parts
        if not game_id or not version.isdigit():
            return None
        return Notice(game_id, int(version))
    if len(parts) != 5 or not all(part.isdigit() for part in parts[1:4]):
        return None
    game_id, version, after, ended, rows = parts
    try:
        records = [Record(int(n), str(event), dict(data)) for n, event, data in orjson.loads(rows)]
    except (ValueError, TypeError):
        return Notice(game_id, int(version))  # the version alone still says what is new
    page = Page(records, int(version), ended == "1")
    return Notice(game_id, int(version), page, int(after))


def libpq_url(database_url: str) -> str:
    """A SQLAlchemy URL (``postgresql+psycopg://...``) as psycopg's own connect() takes it."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(False)


class Listener:
    """One connection that LISTENs, reconnecting for ever, and tells ``sink`` (the process's
    hub, app/live/watcher.py ``NewsSink``): the notices that arrived together, of the games it
    watches, each as ``(game_id, version, after, page)`` (``page``: the records it carried
    after ``after``, or None); each (re)connection, when notices sent while it was away are
    lost and the sink must look for itself; and, between batches, that it may do other work
    (it says when it wants to be woken, at the latest every ``wake_every`` seconds)."""

    def __init__(
        self, database_url: str, sink: NewsSink, wake_every: float = 5.0, channel: str = CHANNEL
    ) -> None:
        self.conninfo = libpq_url(database_url)
        self.sink = sink
        self.channel = channel  # the games' (the default), or the seeks' (persistence/seeks.py)
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
            arrived: list[str] = []
            # A notice that comes in while the connection runs a statement (the LISTEN, the
            # liveness check below) is handed to this; the others are read off the socket.
            connection.add_notify_handler(lambda notice: arrived.append(notice.payload))
            connection.execute(f"LISTEN {self.channel}")
            self.connected.set()
            self.reconnects += 1
            self.sink.reconnected()
            # The wait is ours, not psycopg's ``notifies(timeout=...)``, whose wait resumes
            # tens of thousands of times a second as its timeout runs out (35,000 at 0.05 s).
            # At 700 notices a second this thread's CPU went from 82-98 to 36-41 ms a second
            # (docs/performance.md, "Live streams and the worker class"). libpq reads the socket.
            pgconn, encoding = connection.pgconn, connection.info.encoding
            poller = select.poll()
            poller.register(pgconn.socket, select.POLLIN)
            checked, wait = time.monotonic(), 0.0  # idle() at once: it may have work held
            while not self.stopping.is_set():
                if not arrived and poller.poll(wait * 1000):
                    pgconn.consume_input()  # OperationalError if the server went away
                while (pending := pgconn.notifies()) is not None:
                    arrived.append(pending.extra.decode(encoding))
                # Every notice of one read from the socket is handed over together: the hub
                # then writes each game's streams once for all of them.
                news = self._news(arrived)
                arrived.clear()
                if news:
                    self.sink.news(news)
                soon = self.sink.idle()
                wait = self.wake_every if soon is None else min(self.wake_every, soon)
                if time.monotonic() - checked >= self.wake_every:
                    connection.execute("SELECT 1")  # notice a dead server even when all is quiet
                    checked = time.monotonic()

    def _news(self, payloads: list[str]) -> list[News]:
        """The notices of games this process watches (the others' records are not parsed)."""
        news: list[News] = []
        for payload in payloads:
            if not self.sink.watches(payload.partition(":")[0]):
                continue
            if (parsed := parse_notice(payload)) is not None:
                news.append((parsed.game_id, parsed.version, parsed.after, parsed.page))
        return news

    def stop(self) -> None:
        self.stopping.set()
