"""One watched game's channel in the hub of live streams (hub.py): the newest version announced,
the records read from the log so far in a ring of bounded size, and the caught-up streams whose
sockets are written from here."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

from app.live.feed import Page
from app.live.outlet import Outlet, Render
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
    outlets: set[Outlet] = field(default_factory=set)  # caught-up streams written from here
    written: float = 0.0  # when the outlets were last written (time.monotonic)
    held: bool = False  # records kept that the outlets have not been written yet

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

    def deliver(self) -> None:
        """Write what is new to each attached outlet's socket, rendered once per starting
        version (the caller holds ``changed``, just after ``keep``). An outlet that could not
        take it all, or that has had the game's last record, is handed back to its stream."""
        wires: dict[tuple[int, Render], bytes | None] = {}
        for outlet in list(self.outlets):
            if outlet.cursor >= self.through:
                continue
            if outlet.cursor < self.ring_from:  # more came at once than the ring holds
                self.hand_back(outlet)
                continue
            key = (outlet.cursor, outlet.render)
            if key not in wires:
                records = self.after(outlet.cursor).records
                wires[key] = outlet.render(records) if records else None
            wire = wires[key]
            outlet.cursor, outlet.ended = self.through, self.ended
            if (wire is not None and not outlet.offer(wire)) or outlet.ended:
                self.hand_back(outlet)

    def write(self, now: float) -> None:
        """``deliver`` now, and note it (the hub's write interval counts from here)."""
        self.deliver()
        self.written, self.held = now, False

    def hand_back(self, outlet: Outlet) -> None:
        self.outlets.discard(outlet)
        outlet.detach()

    def after(self, cursor: int) -> Page:
        newer: list[Record] = []
        for record in reversed(self.ring):  # the newest first: a live stream wants only those
            if record.id <= cursor:
                break
            newer.append(record)
        newer.reverse()
        return Page(newer, self.through, self.ended)
