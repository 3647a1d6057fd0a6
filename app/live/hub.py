"""The per-process hub of live streams: one channel per watched game, shared by its streams.

A channel remembers the game's newest version anyone announced (``notify``) and the records
read from the log so far, in a ring of bounded size. When a game moves on, the hub's one thread
reads the new events from the log once, for all its streams, which take the records from the ring.
A stream that fell further behind than the ring (a slow reader) reads the log itself, from
its own last version. Nothing is queued per stream, so a client that stops reading holds up
nobody but itself, and memory does not grow with a slow reader.

A stream whose server lends it its socket (``Outlet``, app/live/outlet.py) is written to by
the thread that brings the records, as long as it keeps up; its own thread sleeps meanwhile.
That thread writes a game's streams once for all the notices that reached it together, and at
most every ``write_every`` seconds (0.1 s served): a game that moves faster has its moves in
between held and written together, one send per socket, which is what the writes cost.

Where the news comes from (``Watcher``): PostgreSQL's NOTIFY through one listening connection
per process, plus a slow poll as a safety net; on SQLite, a poll of the watched games'
versions, one query for all of them, a few times a second.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from app.live import feed
from app.live.channel import Channel
from app.live.feed import Page
from app.live.news import Listen, News, NoticeSource
from app.live.outlet import Outlet
from app.live.records import Record
from app.services.unit_of_work import AbstractUnitOfWork

log = logging.getLogger(__name__)


class Hub:
    def __init__(
        self,
        uow: Callable[[], AbstractUnitOfWork],
        listen: Listen | None = None,
        poll_seconds: float = 0.25,
        safety_poll: float = 5.0,
        write_every: float = 0.0,
    ) -> None:
        """``uow`` makes a unit of work per read; ``listen`` (None: poll only, as on SQLite)
        makes the source of pushed news; the caught-up streams of a game are written at most
        once every ``write_every`` seconds (0: as soon as records come)."""
        self.uow = uow
        self.listen = listen
        self.poll_seconds = poll_seconds
        self.safety_poll = safety_poll
        self.write_every = write_every
        self.channels: dict[str, Channel] = {}
        self.held: dict[str, Channel] = {}  # channels with records held back (``_write``)
        self.lock = threading.Lock()
        self.watcher: Watcher | None = None

    @property
    def clients(self) -> int:
        with self.lock:
            return sum(channel.watchers for channel in self.channels.values())

    # ---------------------------------------------------------------- streams
    def follow(
        self,
        game_id: str,
        first: Page,
        keepalive: float,
        lifetime: float,
        outlet: Outlet | None = None,
    ) -> Iterator[list[Record]]:
        """Every record after the first page's start, a batch at a time, live; an empty batch
        when ``keepalive`` seconds passed without one. Ends after the game's last record, or
        after ``lifetime`` seconds. With an ``outlet`` (the stream's socket, which nobody else
        writes while this iterator waits), records and keep-alives go straight to the socket
        while the stream is caught up, and only the others are yielded."""
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
                if outlet is not None and self._park(channel, outlet, cursor, keepalive, closes):
                    if outlet.broken or (outlet.leftover and not outlet.flush()) or outlet.ended:
                        return
                    cursor = outlet.cursor
                    continue
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

    def _park(
        self, channel: Channel, outlet: Outlet, cursor: int, keepalive: float, closes: float
    ) -> bool:
        """Attach the outlet if the stream is caught up (else False at once), and sleep while
        the channel writes to it, waking only to send a keep-alive; True once it is handed
        back (a slow or gone client, the game's end, the stream's lifetime), its cursor the
        last version written."""
        with channel.changed:
            if channel.ended or cursor != channel.through or cursor < channel.ring_from:
                return False
            outlet.cursor = cursor
            outlet.attached = True
            outlet.handed_back.clear()
            channel.outlets.add(outlet)
        try:
            while outlet.attached:
                wake = min(outlet.last_write + keepalive, closes)
                outlet.handed_back.wait(wake - time.monotonic())
                with channel.changed:
                    now = time.monotonic()
                    if not outlet.attached:
                        break
                    quiet = now - outlet.last_write >= keepalive
                    if now >= closes or (quiet and not outlet.offer(outlet.render([]))):
                        channel.hand_back(outlet)
        finally:
            with channel.changed:
                channel.outlets.discard(outlet)
                outlet.attached = False
        return True

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

    def _fetch(self, channel: Channel) -> None:
        """Read the game's new events once for all its streams (the watcher's thread), and
        again while a version announced during a read is still unread."""
        while True:
            with channel.changed:
                if channel.fetching or channel.known <= channel.through:
                    return
                channel.fetching = True
                through = channel.through
            try:
                page = feed.read(self.uow(), channel.game_id, through)
            except Exception as error:  # the database is away: the next poll tries again
                log.warning("stream read failed for %s: %s", channel.game_id, type(error).__name__)
                page = None
            with channel.changed:
                channel.fetching = False
                if page is None:
                    return
                channel.keep(page)
                channel.changed.notify_all()
                self._write(channel, time.monotonic())
                if page.through <= through:  # nothing new could be read: wait for news
                    return

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

    # ---------------------------------------------------------------- news
    def notify(
        self, game_id: str, version: int, after: int | None = None, page: Page | None = None
    ) -> None:
        """Game ``game_id`` is at ``version`` now (from NOTIFY or a poll): read what is new,
        unless the notice brought it (``page``, the records after ``after``) and it follows
        on from what the channel holds: then every process's streams have it without a read."""
        self.notify_many([(game_id, version, after, page)])

    def notify_many(self, news: Iterable[News]) -> None:
        """``notify`` for notices that arrived together. Each game's caught-up streams are
        written once, after all of them: when this thread falls behind a busy game, the
        moves it missed go out in one write per socket, not one each."""
        kept: dict[str, Channel] = {}
        for game_id, version, after, page in news:
            channel = self.channels.get(game_id)
            if channel is None:
                continue
            with channel.changed:
                channel.known = max(channel.known, version)
                if page is not None and after == channel.through and not channel.fetching:
                    channel.keep(page)
                    channel.changed.notify_all()
                    kept[game_id] = channel
                    continue
            self._fetch(channel)
        now = time.monotonic()
        for channel in kept.values():
            with channel.changed:
                self._write(channel, now)

    def _write(self, channel: Channel, now: float) -> None:
        """Write the channel's new records to its outlets now, or, if they were written less
        than ``write_every`` seconds ago (a game that moves many times a second), hold them
        until then: ``write_held`` writes them with whatever else has come by then, in one
        send per socket. The caller holds ``channel.changed``."""
        if now - channel.written >= self.write_every or channel.ended:
            channel.write(now)
        elif not channel.held:
            channel.held = True
            with self.lock:
                self.held[channel.game_id] = channel

    def write_held(self) -> float | None:
        """Write the held records that are due; the seconds until the next are, if any (the
        watcher's thread calls it after each batch of news, and wakes when told)."""
        now, soonest = time.monotonic(), None
        with self.lock:
            held = list(self.held.values())
        for channel in held:
            with channel.changed:
                due = channel.written + self.write_every
                if not channel.held or due <= now:
                    if channel.held:
                        channel.write(now)
                    with self.lock:
                        self.held.pop(channel.game_id, None)
                elif soonest is None or due - now < soonest:
                    soonest = due - now
        return soonest

    def poll(self) -> None:
        """Ask the database for the version of every watched game (one query)."""
        game_ids = list(self.channels)
        for start in range(0, len(game_ids), 500):
            versions = self._versions(game_ids[start : start + 500])
            for game_id, version in versions.items():
                self.notify(game_id, version)

    def _poll_one(self, game_id: str) -> None:
        try:
            versions = self._versions([game_id])
        except Exception as error:  # the watcher's polls will tell
            log.warning("stream poll failed for %s: %s", game_id, type(error).__name__)
            return
        for version in versions.values():
            self.notify(game_id, version)

    def _versions(self, game_ids: list[str]) -> dict[str, int]:
        with self.uow() as uow:
            return uow.games.versions(game_ids)

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


class Watcher:
    """The hub's one background thread: it tells the hub which games moved on."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.stopping = threading.Event()
        self.listener: NoticeSource | None = None
        self.last_poll = 0.0
        if hub.listen is not None:
            wake_every = min(1.0, hub.safety_poll)
            self.listener = hub.listen(self, wake_every)
        self.thread = threading.Thread(target=self._run, name="basra-stream-watcher", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        if self.listener is not None:
            self.listener.run()
            return
        next_poll = time.monotonic() + self.hub.poll_seconds
        while True:
            wait = next_poll - time.monotonic()
            held = self.hub.write_held()
            if self.stopping.wait(max(0.0, wait if held is None else min(wait, held))):
                return
            if time.monotonic() >= next_poll:
                self._poll()
                next_poll = time.monotonic() + self.hub.poll_seconds

    def _poll(self) -> None:
        self.last_poll = time.monotonic()
        try:
            self.hub.poll()
        except Exception as error:  # the database is away; the next poll tries again
            log.warning("stream poll failed: %s", type(error).__name__)

    # ------------------------------------------------------------ as a NewsSink
    def watches(self, game_id: str) -> bool:
        return game_id in self.hub.channels

    def news(self, news: list[News]) -> None:
        self.hub.notify_many(news)

    def reconnected(self) -> None:
        self._poll()

    def idle(self) -> float | None:
        """Between batches of notices: the safety poll when due, then the held records that
        are due; the seconds until the next are (the listener wakes by then), if any."""
        if time.monotonic() - self.last_poll >= self.hub.safety_poll:
            self._poll()
        return self.hub.write_held()

    def stop(self) -> None:
        self.stopping.set()
        if self.listener is not None:
            self.listener.stop()
