"""How news of a game reaches its channel in the hub of live streams (hub.py): the records a
notice brought kept, or the new events read from the log once for all the game's streams, and
the caught-up streams' sockets (``Outlet``, app/live/outlet.py) written.

The hub's thread writes a game's streams once for all the notices that reached it together,
and at most every ``write_every`` seconds (0.1 s served): a game that moves faster has its
moves in between held and written together, one send per socket, which is what the writes
cost. Apart from hub.py, the streams' side, as the work of the hub's one thread (watcher.py)
rather than of each stream's own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable

from app.live import feed
from app.live.channel import Channel
from app.live.feed import Page
from app.live.news import Listen, News
from app.services.unit_of_work import AbstractUnitOfWork

log = logging.getLogger("app.live.hub")  # one logger for the hub, whichever module writes


class Fanout:
    """The hub's watched games, each a ``Channel``, and the news that moves them on."""

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
