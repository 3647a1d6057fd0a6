"""How news of a game reaches its channel in the threaded hub of live streams (hub.py): the
records a notice brought kept, or the new events read from the log once for all the game's
streams, which wake and take them. Apart from hub.py, the streams' side, as the work of the
hub's one thread (watcher.py) rather than of each stream's own.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from app.live import feed
from app.live.channel import Channel
from app.live.feed import Page
from app.live.news import Listen, News
from app.services.ports import AbstractUnitOfWork

log = logging.getLogger("app.live.hub")  # one logger for the hub, whichever module writes


class Fanout:
    """The hub's watched games, each a ``Channel``, and the news that moves them on."""

    def __init__(
        self,
        uow: Callable[[], AbstractUnitOfWork],
        listen: Listen | None = None,
        poll_seconds: float = 0.25,
        safety_poll: float = 5.0,
    ) -> None:
        """``uow`` makes a unit of work per read; ``listen`` (None: poll only, as on SQLite)
        makes the source of pushed news."""
        self.uow = uow
        self.listen = listen
        self.poll_seconds = poll_seconds
        self.safety_poll = safety_poll
        self.channels: dict[str, Channel] = {}
        self.lock = threading.Lock()

    def notify(
        self, game_id: str, version: int, after: int | None = None, page: Page | None = None
    ) -> None:
        """Game ``game_id`` is at ``version`` now (from NOTIFY or a poll): read what is new,
        unless the notice brought it (``page``, the records after ``after``) and it follows
        on from what the channel holds: then every process's streams have it without a read."""
        self.notify_many([(game_id, version, after, page)])

    def notify_many(self, news: Iterable[News]) -> None:
        """``notify`` for notices that arrived together."""
        for game_id, version, after, page in news:
            channel = self.channels.get(game_id)
            if channel is None:
                continue
            with channel.changed:
                channel.known = max(channel.known, version)
                if page is not None and after == channel.through and not channel.fetching:
                    channel.keep(page)
                    channel.changed.notify_all()
                    continue
            self._fetch(channel)

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
                if page.through <= through:  # nothing new could be read: wait for news
                    return

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
