"""Pushed news of committed versions, as the hub of live streams (hub.py) and the seeks' long
polls (seek_waits.py) take it: a source (PostgreSQL's LISTEN, app/persistence/notifications.py)
tells a sink what arrived, and asks it what to look at."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from app.live.feed import Page


class NoticeSource(Protocol):
    """Pushed news of committed versions (PostgreSQL's LISTEN: app.persistence.notifications)."""

    def run(self) -> None: ...

    def stop(self) -> None: ...


# A notice, (game_id, version, after, page): ``page`` holds the records after version
# ``after`` when the notice carried them (PostgreSQL's notices do, when they fit), else None.
News = tuple[str, int, int | None, Page | None]


class NewsSink(Protocol):
    """What a ``NoticeSource`` tells, and asks, the process's hub (its ``Watcher``)."""

    def watches(self, game_id: str) -> bool:
        """Whether any stream of this process follows the game (else its notices are skipped
        before their records are parsed)."""
        ...

    def news(self, payloads: list[str]) -> None:
        """The notices that arrived together, as sent (app/live/notices.py reads them)."""
        ...

    def reconnected(self) -> None:
        """After each (re)connection: notices sent meanwhile are lost; look for yourself."""
        ...

    def idle(self) -> float | None:
        """After each batch of notices, and at least every ``wake_every`` seconds: the seconds
        until it wants to be called again sooner, if it does."""
        ...


# (the sink, wake_every) -> a source to run
Listen = Callable[[NewsSink, float], NoticeSource]
