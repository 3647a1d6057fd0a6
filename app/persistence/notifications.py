"""News of committed events, across processes: PostgreSQL's NOTIFY and one LISTEN per process.

A writer announces ``<game id>:<version>`` on the channel inside the transaction that appends
the events, so the notice is delivered exactly when (and only if) they commit. A save's notice
also says what happened (``notice_text``: the game's status and scores, and the events it
appended), so that with thousands of streams in several processes a move costs no process a
read of the log; the live adapter (app/live/notices.py) turns that into stream records. A
process keeps ONE listening connection, whatever the number of its streams and long polls:
``listen_async``, on the event loop of the process's hub (app/live/hub.py). SQLite has no such
thing: there the hub polls the versions of the games being watched (and does so on PostgreSQL
too, less often, as a safety net and after a reconnect).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

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
