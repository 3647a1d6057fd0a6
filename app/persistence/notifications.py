"""News of committed events, across processes: PostgreSQL's NOTIFY and one LISTEN per process.

A writer announces ``<game id>:<version>`` on the channel inside the transaction that appends
the events, so the notice is delivered exactly when (and only if) they commit. A save's notice
also says what happened (``notice_text``: the game's status and scores, and the events it
appended), so that with thousands of streams in several processes a move costs no process a
read of the log; the live adapter (app/live/notices.py) turns that into stream records. A
process keeps ONE listening connection, whatever the number of its streams: ``Listener`` on a
thread of its own (the plain WSGI app), ``listen_async`` on the stream processes' event loop.
SQLite has no such thing: there the listeners poll the versions of the games being watched
(and do so on PostgreSQL too, less often, as a safety net and after a reconnect).
"""

from __future__ import annotations

import asyncio
import logging
import select
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import orjson
from sqlalchemy.engine import make_url

CHANNEL = "basra_games"
log = logging.getLogger(__name__)


# A notice with its events must fit PostgreSQL's 8,000 bytes; a longer one goes without.
MAX_NOTICE = 7500


def notice_text(
    game_id: str,
    version: int,
    after: int,
    status: str,
    scores: Sequence[int],
    events: Sequence[tuple[int, str, dict[str, Any]]],
) -> str:
    """The notice of a commit that moved ``game_id`` from ``after`` to ``version``:
    ``<game id>:<version>:<after>:<[status, scores, [[seq, type, data], ...]]>``, or the bare
    ``<game id>:<version>`` when that would not fit."""
    bare = f"{game_id}:{version}"
    happened = [status, list(scores), [list(event) for event in events]]
    # orjson: every move on PostgreSQL sends one, and the standard library took 7 us of it.
    text = f"{bare}:{after}:{orjson.dumps(happened).decode()}"
    return text if len(text.encode()) <= MAX_NOTICE else bare


def libpq_url(database_url: str) -> str:
    """A SQLAlchemy URL (``postgresql+psycopg://...``) as psycopg's own connect() takes it."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(False)


class PayloadSink(Protocol):
    """What a ``Listener`` tells, and asks, whoever listens through it (the live adapter)."""

    def watches(self, key: str) -> bool:
        """Whether anyone in this process follows this game or seek (else its notices are
        skipped before they are parsed)."""
        ...

    def news(self, payloads: list[str]) -> None:
        """The notices that arrived together, as sent."""
        ...

    def reconnected(self) -> None:
        """After each (re)connection: notices sent meanwhile are lost; look for yourself."""
        ...

    def idle(self) -> float | None:
        """After each batch of notices, and at least every ``wake_every`` seconds: the seconds
        until it wants to be called again sooner, if it does."""
        ...


class Listener:
    """One connection that LISTENs on a thread, reconnecting for ever, and tells ``sink``: the
    notices that arrived together, of the games (or seeks) it watches; each (re)connection, when
    notices sent while it was away are lost and the sink must look for itself; and, between
    batches, that it may do other work (at the latest every ``wake_every`` seconds)."""

    def __init__(
        self, database_url: str, sink: PayloadSink, wake_every: float = 5.0, channel: str = CHANNEL
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
            # (measured on the threaded hub). libpq reads the socket.
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

    def _news(self, payloads: list[str]) -> list[str]:
        """The notices of games this process watches (the others are not parsed)."""
        return [p for p in payloads if self.sink.watches(p.partition(":")[0])]

    def stop(self) -> None:
        self.stopping.set()


async def listen_async(
    database_url: str,
    channels: Sequence[str],
    heard: Callable[[str, str], None],
    connected: Callable[[], Awaitable[None]],
    idle: Callable[[], Awaitable[None]],
    wake_every: float = 1.0,
) -> None:
    """One asynchronous connection that LISTENs on ``channels`` until cancelled, reconnecting
    for ever: each notice goes to ``heard(channel, payload)`` as it arrives; ``connected`` is
    awaited after each (re)connection (notices sent meanwhile are lost), ``idle`` at least
    every ``wake_every`` seconds, and a ``SELECT 1`` then notices a dead server."""
    import psycopg

    conninfo, backoff = libpq_url(database_url), 0.1
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(
                conninfo, autocommit=True, connect_timeout=5
            ) as connection:
                for channel in channels:
                    await connection.execute(f"LISTEN {channel}")
                backoff = 0.1
                await connected()
                while True:
                    async for notice in connection.notifies(timeout=wake_every):
                        heard(notice.channel, notice.payload)
                    await idle()
                    await connection.execute("SELECT 1")
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the server went away: wait, then connect again
            log.warning("stream listener lost its connection: %s", type(error).__name__)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 2.0)
