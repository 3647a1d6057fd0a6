"""The live edge on the process's event loop: every stream and long poll the served entrance
(app/asgi.py) holds, in one process, for as long as they last.

One channel per watched game, shared by its streams, as in the threaded hub (hub.py): the
game's newest version announced, the records read so far in a ring of bounded size. A stream
is a coroutine that waits on an event of its own; when a game moves on, its channel wakes
every stream of the game, and each one sends the records after its own cursor (rendered once
per cursor for all of them). An idle stream is then an event, a coroutine and a socket: a few
kilobytes, where a thread per stream cost a thread's stack and a share of the GIL's turns.
A stream that fell further behind than the ring (a client that reads slowly: the send waits
for it alone) reads the log itself, from its own last version, so a slow reader holds up
nobody and memory does not grow with it.

Where the news comes from: on PostgreSQL, one asynchronous LISTEN per process for the games'
and the seeks' channels (app/persistence/notifications.py), whose notices say what happened
(app/live/notices.py turns that into records), plus a slow poll as a safety net; on SQLite, a
poll of the watched games' versions and seeks' statuses, one query each, a few times a
second. Reads of the database go through the default executor's few threads: none is held
while a stream waits.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.live import feed
from app.live.channel import Channel
from app.live.feed import Page
from app.live.notices import parse_notice
from app.live.records import Record
from app.persistence.notifications import CHANNEL, listen_async
from app.persistence.seeks import SEEK_CHANNEL
from app.services.model import WAITING
from app.services.ports import AbstractUnitOfWork

log = logging.getLogger(__name__)

Render = Callable[[list[Record]], bytes]  # a batch (none: a keep-alive) as the body's bytes
Statuses = Callable[[Sequence[str]], dict[str, str]]  # seek ids -> their statuses now


@dataclass(eq=False)
class LoopChannel(Channel):
    """A channel whose streams are coroutines: each waits on its own ``Watch``."""

    watches: set[Watch] = field(default_factory=set)
    wires: dict[int, bytes] = field(default_factory=dict)  # cursor -> the records after it

    def wake(self) -> None:
        self.wires.clear()
        for watch in self.watches:
            watch.wake.set()

    def wire(self, cursor: int, render: Render) -> tuple[bytes, Page]:
        page = self.after(cursor)
        if (found := self.wires.get(cursor)) is None:
            found = self.wires[cursor] = render(page.records)
        return found, page


@dataclass(eq=False)
class Watch:
    """One stream's wake-up: set when its game moves on, its client leaves, or the server
    stops."""

    wake: asyncio.Event = field(default_factory=asyncio.Event)
    gone: bool = False  # the client went away

    def leave(self) -> None:
        self.gone = True
        self.wake.set()


class LoopHub:
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
        self.statuses = statuses
        self.database_url = database_url
        self.poll_seconds = poll_seconds
        self.safety_poll = safety_poll
        self.channels: dict[str, LoopChannel] = {}
        self.seeks: dict[str, tuple[asyncio.Event, int]] = {}  # seek -> (heard, waiters)
        self.closing = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        self.last_poll = 0.0
        self.seeks_waiting = 0  # read by the matchmaker's thread (a gauge): a plain count

    # ------------------------------------------------------------ the process's life
    def start(self) -> None:
        """On the running loop: the listener (PostgreSQL), or the poller (SQLite)."""
        self.loop = asyncio.get_running_loop()
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
        for heard, _ in self.seeks.values():
            heard.set()

    async def stop(self) -> None:
        self._close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    @property
    def clients(self) -> int:
        return sum(len(channel.watches) for channel in self.channels.values())

    # ------------------------------------------------------------ streams
    async def follow(
        self, game_id: str, first: Page, keepalive: float, lifetime: float, render: Render,
        watch: Watch,
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

    def _join(self, game_id: str, through: int) -> LoopChannel:
        channel = self.channels.get(game_id)
        if channel is None:
            channel = LoopChannel(game_id, through=through, known=through, ring_from=through)
            self.channels[game_id] = channel
            # A notice between the stream's first read and now found no channel: read once.
            self._spawn(self._fetch(channel, at_least_once=True))
        channel.watchers += 1
        return channel

    def _leave(self, channel: LoopChannel) -> None:
        channel.watchers -= 1
        if channel.watchers == 0 and self.channels.get(channel.game_id) is channel:
            del self.channels[channel.game_id]

    # ------------------------------------------------------------ long polls of seeks
    async def seek_changed(self, seek_id: str, seconds: float) -> bool:
        """Whether the seek was heard to stop waiting within ``seconds`` (from the moment
        ``watch_seek`` was called: nothing between is missed), or the server is stopping:
        then the answer is the seek as it is now."""
        heard = self.seeks[seek_id][0]
        try:
            async with asyncio.timeout(seconds):
                await heard.wait()
        except TimeoutError:
            return False
        return True

    def watch_seek(self, seek_id: str) -> None:
        self.seeks_waiting += 1
        heard, waiters = self.seeks.get(seek_id, (asyncio.Event(), 0))
        self.seeks[seek_id] = (heard, waiters + 1)
        if self.closing:
            heard.set()

    def unwatch_seek(self, seek_id: str) -> None:
        self.seeks_waiting -= 1
        heard, waiters = self.seeks[seek_id]
        if waiters == 1:
            del self.seeks[seek_id]
        else:
            self.seeks[seek_id] = (heard, waiters - 1)

    def settled(self, seek_ids: Sequence[str]) -> None:
        """From any thread of the process (its matchmaker, a cancel): these seeks stopped
        waiting."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._settle, list(seek_ids))

    def _settle(self, seek_ids: Sequence[str]) -> None:
        for seek_id in seek_ids:
            if (entry := self.seeks.get(seek_id)) is not None:
                entry[0].set()

    # ------------------------------------------------------------ news
    def _heard(self, channel_name: str, payload: str) -> None:
        key = payload.partition(":")[0]
        if channel_name == SEEK_CHANNEL:
            self._settle([key])
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

    async def _fetch(self, channel: LoopChannel, at_least_once: bool = False) -> None:
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
            if self.seeks:
                statuses = await asyncio.to_thread(self.statuses, list(self.seeks))
                self._settle([seek for seek, status in statuses.items() if status != WAITING])
        except Exception as error:  # the database is away; the next poll tries again
            log.warning("stream poll failed: %s", type(error).__name__)

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
