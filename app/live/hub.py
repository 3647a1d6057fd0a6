"""The per-process hub of live streams: one channel per watched game, shared by its streams.

A channel remembers the game's newest version anyone announced (``notify``) and the records
read from the log so far, in a ring of bounded size. When a game moves on, the hub's one thread
reads the new events from the log once, for all its streams, which take the records from the ring.
A stream that fell further behind than the ring (a slow reader) reads the log itself, from
its own last version. Nothing is queued per stream, so a client that stops reading holds up
nobody but itself, and memory does not grow with a slow reader.

This hub serves a stream on a thread of its own, as a plain WSGI server (the development
server, Flask's test client, a REST worker asked for a stream) runs it. The served entrance
(app/asgi.py) hands streams to the event loop's hub instead (loop_hub.py), where a stream is
a few kilobytes, not a thread.

Here are the streams' side of the hub, and the channels they join and leave. How news of a
game reaches its channel and its caught-up sockets is fanout.py's; where the news comes from,
watcher.py's.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from app.live import feed
from app.live.channel import Channel
from app.live.fanout import Fanout
from app.live.feed import Page
from app.live.records import Record
from app.live.watcher import Watcher

log = logging.getLogger(__name__)


class Hub(Fanout):
    """The channels of the watched games and the news that moves them on (``Fanout``), and
    the streams that follow them."""

    watcher: Watcher | None = None  # the hub's one thread, started with the first stream

    @property
    def clients(self) -> int:
        with self.lock:
            return sum(channel.watchers for channel in self.channels.values())

    def follow(
        self,
        game_id: str,
        first: Page,
        keepalive: float,
        lifetime: float,
    ) -> Iterator[list[Record]]:
        """Every record after the first page's start, a batch at a time, live; an empty batch
        when ``keepalive`` seconds passed without one. Ends after the game's last record, or
        after ``lifetime`` seconds."""
        if first.records:
            yield first.records
        if first.ended:
            return
        self._start_watcher()
        channel = self._join(game_id, first.through)
        cursor = first.through
        closes = time.monotonic() + lifetime
        try:
            while time.monotonic() < closes:
                page = self._next(channel, cursor, min(keepalive, closes - time.monotonic()))
                if page is None:
                    yield []
                    continue
                if page.records:
                    yield page.records
                cursor = page.through
                if page.ended:
                    return
        finally:
            self._leave(channel)

    def _next(self, channel: Channel, cursor: int, wait: float) -> Page | None:
        """The next page after ``cursor`` from the ring, or None after ``wait`` seconds."""
        deadline = time.monotonic() + wait
        with channel.changed:
            while True:
                if channel.ring_from <= cursor < channel.through:
                    return channel.after(cursor)
                if channel.ended and cursor >= channel.through:
                    return Page([], cursor, True)
                if cursor < channel.ring_from:
                    break  # fell out of the ring (a slow reader): read the log alone
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                channel.changed.wait(remaining)
        try:
            page = feed.read(self.uow(), channel.game_id, cursor)
        except Exception as error:  # the database is away: keep the stream, try again soon
            log.warning("stream read failed for %s: %s", channel.game_id, type(error).__name__)
            time.sleep(0.5)
            return None
        if page.records or page.through > cursor or page.ended:
            return page
        # The log had nothing after the cursor, whatever the channel said: wait for news, as
        # a caught-up stream does, instead of reading again at once (a read that finds nothing
        # must never turn into a loop that keeps a core busy).
        with channel.changed:
            news = channel.changed.wait(max(0.0, deadline - time.monotonic()))
        return Page([], cursor, False) if news else None

    def _join(self, game_id: str, through: int) -> Channel:
        with self.lock:
            channel = self.channels.get(game_id)
            created = channel is None
            if channel is None:
                channel = Channel(game_id, through=through, known=through, ring_from=through)
                self.channels[game_id] = channel
            channel.watchers += 1
        with channel.changed:
            channel.known = max(channel.known, through)
        if created:  # a notice between the stream's first read and now found no channel
            self._poll_one(game_id)
        return channel

    def _leave(self, channel: Channel) -> None:
        with self.lock:
            channel.watchers -= 1
            if channel.watchers == 0:
                self.channels.pop(channel.game_id, None)

    def _start_watcher(self) -> None:
        if self.watcher is not None:
            return
        with self.lock:
            if self.watcher is None:
                self.watcher = Watcher(self)
                self.watcher.start()

    def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
