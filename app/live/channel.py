"""One watched game's channel in the threaded hub of live streams (hub.py): the newest version
announced, and the records read from the log so far in a ring of bounded size."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

from app.live.feed import Page
from app.live.records import Record

RING = 256  # records kept per watched game


@dataclass
class Channel:
    game_id: str
    through: int  # the log is read into the ring up to this version
    known: int  # the newest version announced
    ring_from: int  # the ring holds every record after this version (up to ``through``)
    ended: bool = False
    watchers: int = 0
    fetching: bool = False
    ring: deque[Record] = field(default_factory=lambda: deque(maxlen=RING))
    changed: threading.Condition = field(default_factory=threading.Condition)

    def keep(self, page: Page) -> None:
        """Add a page read from ``through`` on (the caller holds ``changed``); records the
        ring has already (a read and a notice that overlap) are not added twice."""
        for record in page.records:
            if record.id <= self.through:
                continue
            if len(self.ring) == RING:
                self.ring_from = self.ring[0].id
            self.ring.append(record)
        self.through = max(self.through, page.through)
        self.known = max(self.known, self.through)
        self.ended = page.ended

    def after(self, cursor: int) -> Page:
        newer: list[Record] = []
        for record in reversed(self.ring):  # the newest first: a live stream wants only those
            if record.id <= cursor:
                break
            newer.append(record)
        newer.reverse()
        return Page(newer, self.through, self.ended)
