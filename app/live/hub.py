"""The process's hub of live streams and long polls, on an event loop: every stream and long
poll of seeks this process holds, for as long as they last.

One channel per watched game, shared by its streams (channel.py): the game's newest version
announced, the records read so far in a ring of bounded size. A stream is an asynchronous
generator that waits on a ``Watch`` of its own; when a game moves on, its channel wakes every
stream of the game, and each one sends the records after its own cursor (rendered once per
cursor for all of them). An idle stream is then an event, a suspended generator and a socket:
a few kilobytes, where a thread per stream cost a thread's stack and a share of the GIL's
turns. A stream that fell further behind than the ring (a client that reads slowly: the send
waits for it alone) reads the log itself, from its own last version, so a slow reader holds up
nobody and memory does not grow with it. Long polls of seeks wait on seek_waits.py's events.

Where the news comes from: on PostgreSQL, one asynchronous LISTEN per process for the games'
and the seeks' channels (app/persistence/notifications.py), whose notices say what happened
(app/live/notices.py turns that into records), plus a slow poll as a safety net; on SQLite, a
poll of the watched games' versions and seeks' statuses, one query each, a few times a
second. Reads of the database go through the loop's default executor's few threads: none is
held while a stream waits.

Which loop: the served entrance's (app/asgi.py starts the hub on it, and the Flask views hand
it what they accepted, app/live/handoff.py); where there is none (Flask's test client, a plain
WSGI server), one loop on a thread of its own in the process, and the request's thread takes
what the hub yields through app/live/bridge.py.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable, Coroutine
from typing import Any

from app.live import feed
from app.live.channel import Channel, Render, Watch
from app.live.feed import Page
from app.live.notices import parse_notice
from app.live.seek_waits import SeekWaits, Statuses
from app.persistence.notifications import CHANNEL, listen_async
from app.persistence.seeks import SEEK_CHANNEL
from app.services.ports import AbstractUnitOfWork

log = logging.getLogger(__name__)


class Hub:
    def __init__(
        self,
        uow: Callable[[], AbstractUnitOfWork],
        statuses: Statuses,
        database_url: str | None = None,
        poll_seconds: float = 0.25,
        safety_poll: float = 5.0,
    ) -> None:
        """``database_url``: PostgreSQL's, to LISTEN on (None: poll only, as on SQLite)."""
        self.uow = uow
        self.seeks = SeekWaits(statuses)
        self.database_url = database_url
        self.poll_seconds = poll_seconds
        self.safety_poll = safety_poll
        self.channels: dict[str, Channel] = {}
        self.closing = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        self.last_poll = 0.0

    # ------------------------------------------------------------ the process's life
    def start(self) -> None:
        """On the running loop, once: the listener (PostgreSQL), or the poller (SQLite)."""
        assert self.loop is None, "the hub runs on one loop"
        self.loop = self.seeks.loop = asyncio.get_running_loop()
        if self.database_url is not None:
            wake_every = min(1.0, self.safety_poll)
            channels = (CHANNEL, SEEK_CHANNEL)
            news = (self._heard, self._poll, self._idle)
            self._spawn(listen_async(self.database_url, channels, *news, wake_every))
        else:
            self._spawn(self._polling())

    def close_soon(self) -> None:
        """From any thread (a signal handler): end every stream and long poll now, so that
        their clients reconnect elsewhere (streams with Last-Event-ID) while this one stops."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._close)

    def _close(self) -> None:
        self.closing = True
        for channel in self.channels.values():
            channel.wake()
        self.seeks.close()

    async def stop(self) -> None:
        """On the hub's loop: end every stream and long poll, and the listener or poller."""
        self._close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    def shutdown(self, timeout: float = 5.0) -> None:
        """From a thread other than the loop's (an app's end, in tests and tools): ``stop``,
        and wait for it."""
        if self.loop is not None and not self.loop.is_closed():
            asyncio.run_coroutine_threadsafe(self.stop(), self.loop).result(timeout)

    @property
    def clients(self) -> int:
        return sum(len(channel.watches) for channel in self.channels.values())

    # ------------------------------------------------------------ streams
    async def follow(
        self, game_id: str, first: Page, keepalive: float, lifetime: float, render: Render,
        watch: Watch | None = None,
    ) -> AsyncGenerator[bytes, None]:  # fmt: skip
        """The records after ``first``'s start as the body's bytes, a batch at a time, live;
        a keep-alive when ``keepalive`` seconds passed without one. Ends after the game's last
        record, after ``lifetime`` seconds, when the client leaves or the server stops."""
        batch, cursor, ended = first.records, first.through, first.ended
        del first  # a stream lives for an hour: it keeps none of the history it was sent
        if batch:
            yield render(batch)
        del batch
        if ended or self.closing:
            return
        watch = watch or Watch()
        channel = self._join(game_id, cursor)
        channel.watches.add(watch)
        loop = asyncio.get_running_loop()
        closes = loop.time() + lifetime
        try:
            while not (self.closing or watch.gone):
                if channel.ring_from <= cursor < channel.through:
                    wire, page = channel.wire(cursor, render)
                    cursor = page.through
                    yield wire
                    if page.ended:
                        return
                    continue
                if channel.ended and cursor >= channel.through:
                    return
                if cursor < channel.ring_from:  # fell out of the ring: read the log alone
                    read = await self._read(game_id, cursor)
                    if read is not None and (read.records or read.through > cursor):
                        if read.records:
                            yield render(read.records)
                        if read.ended:
                            return
                        cursor = read.through
                        continue
                remaining = closes - loop.time()
                if remaining <= 0:
                    return
                watch.wake.clear()
                try:
                    async with asyncio.timeout(min(keepalive, remaining)):
                        await watch.wake.wait()
                except TimeoutError:
                    if loop.time() < closes:
                        yield render([])
        finally:
            channel.watches.discard(watch)
            self._leave(channel)

    def _join(self, game_id: str, through: int) -> Channel:
        channel = self.channels.get(game_id)
        if channel is None:
            channel = Channel(game_id, through=through, known=through, ring_from=through)
            self.channels[game_id] = channel
            # A notice between the stream's first read and now found no channel: read once.
            self._spawn(self._fetch(channel, at_least_once=True))
        channel.watchers += 1
        return channel

    def _leave(self, channel: Channel) -> None:
        channel.watchers -= 1
        if channel.watchers == 0 and self.channels.get(channel.game_id) is channel:
            del self.channels[channel.game_id]

    # ------------------------------------------------------------ news
    def _heard(self, channel_name: str, payload: str) -> None:
        key = payload.partition(":")[0]
        if channel_name == SEEK_CHANNEL:
            self.seeks.heard([key])
            return
        channel = self.channels.get(key)
        if channel is None or (notice := parse_notice(payload)) is None:
            return
        channel.known = max(channel.known, notice.version)
        page = notice.page
        if page is not None and notice.after == channel.through and not channel.fetching:
            channel.keep(page)
            channel.wake()
        elif channel.known > channel.through:
            self._spawn(self._fetch(channel))

    async def _fetch(self, channel: Channel, at_least_once: bool = False) -> None:
        """Read the game's new events once for all its streams, and again while a version
        announced during a read is still unread."""
        if channel.fetching:
            return
        channel.fetching = True
        try:
            while at_least_once or channel.known > channel.through:
                at_least_once, through = False, channel.through
                page = await self._read(channel.game_id, through)
                if page is None:
                    return
                channel.keep(page)
                channel.wake()
                if page.through <= through:  # nothing new could be read: wait for news
                    return
        finally:
            channel.fetching = False

    async def _read(self, game_id: str, after: int) -> Page | None:
        try:
            return await asyncio.to_thread(feed.read, self.uow(), game_id, after)
        except Exception as error:  # the database is away: the next poll tries again
            log.warning("stream read failed for %s: %s", game_id, type(error).__name__)
            await asyncio.sleep(0.5)
            return None

    async def _polling(self) -> None:
        while True:
            await asyncio.sleep(self.poll_seconds)
            await self._poll()

    async def _idle(self) -> None:
        """Between notices (PostgreSQL): the safety poll, when due."""
        assert self.loop is not None
        if self.loop.time() - self.last_poll >= self.safety_poll:
            await self._poll()

    async def _poll(self) -> None:
        """The versions of every watched game and the statuses of every watched seek, one
        query each."""
        assert self.loop is not None
        self.last_poll = self.loop.time()
        try:
            if self.channels:
                versions = await asyncio.to_thread(self._versions, list(self.channels))
                for game_id, version in versions.items():
                    if (channel := self.channels.get(game_id)) is not None:
                        channel.known = max(channel.known, version)
                        if channel.known > channel.through:
                            self._spawn(self._fetch(channel))
        except Exception as error:  # the database is away; the next poll tries again
            log.warning("stream poll failed: %s", type(error).__name__)
        await self.seeks.poll()

    def _versions(self, game_ids: list[str]) -> dict[str, int]:
        found: dict[str, int] = {}
        with self.uow() as uow:
            for start in range(0, len(game_ids), 500):
                found |= uow.games.versions(game_ids[start : start + 500])
        return found

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
