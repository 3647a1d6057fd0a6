"""One watched game's channel in the process's hub of live streams (hub.py): the newest version
announced, the records read from the log so far in a ring of bounded size, and the streams
that follow it, each waiting on a ``Watch`` of its own. Everything here is touched from the
hub's event loop only."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from app.live.feed import Page
from app.live.records import Record

RING = 256  # records kept per watched game

Render = Callable[[list[Record]], bytes]  # a batch (none: a keep-alive) as the body's bytes


@dataclass(eq=False)
class Watch:
    """One stream's wake-up: set when its game moves on, its client leaves, or the server
    stops."""

    wake: asyncio.Event = field(default_factory=asyncio.Event)
    gone: bool = False  # the client went away

    def leave(self) -> None:
        self.gone = True
        self.wake.set()


@dataclass(eq=False)
class Channel:
    game_id: str
    through: int  # the log is read into the ring up to this version
    known: int  # the newest version announced
    ring_from: int  # the ring holds every record after this version (up to ``through``)
    ended: bool = False
    watchers: int = 0
    fetching: bool = False
    ring: deque[Record] = field(default_factory=lambda: deque(maxlen=RING))
    watches: set[Watch] = field(default_factory=set)
    wires: dict[int, bytes] = field(default_factory=dict)  # cursor -> the records after it

    def keep(self, page: Page) -> None:
        """Add a page read from ``through`` on; records the ring has already (a read and a
        notice that overlap) are not added twice."""
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

    def wake(self) -> None:
        """The game moved on (or the server stops): every stream looks again."""
        self.wires.clear()
        for watch in self.watches:
            watch.wake.set()

    def wire(self, cursor: int, render: Render) -> tuple[bytes, Page]:
        """The records after ``cursor`` as the body's bytes, rendered once for every stream
        at that cursor."""
        page = self.after(cursor)
        if (found := self.wires.get(cursor)) is None:
            found = self.wires[cursor] = render(page.records)
        return found, page
