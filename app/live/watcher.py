"""The threaded hub's one background thread (``Watcher``): it tells the hub of live streams
(hub.py) which games moved on.

Where the news comes from: PostgreSQL's NOTIFY through one listening connection per process,
plus a slow poll as a safety net; on SQLite, a poll of the watched games' versions, one query
for all of them, a few times a second.
"""

from __future__ import annotations

import logging
import threading
import time

from app.live.fanout import Fanout
from app.live.news import News, NoticeSource
from app.live.notices import parse_notice

log = logging.getLogger("app.live.hub")  # one logger for the hub, whichever module writes


class Watcher:
    """The hub's one background thread: it tells the hub which games moved on."""

    def __init__(self, hub: Fanout) -> None:
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
            if self.stopping.wait(max(0.0, next_poll - time.monotonic())):
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

    def news(self, payloads: list[str]) -> None:
        news: list[News] = []
        for payload in payloads:
            if (notice := parse_notice(payload)) is not None:
                news.append((notice.game_id, notice.version, notice.after, notice.page))
        self.hub.notify_many(news)

    def reconnected(self) -> None:
        self._poll()

    def idle(self) -> float | None:
        """Between batches of notices: the safety poll when due."""
        if time.monotonic() - self.last_poll >= self.hub.safety_poll:
            self._poll()
        return None

    def stop(self) -> None:
        self.stopping.set()
        if self.listener is not None:
            self.listener.stop()
