"""Long polls of seeks (``GET /seeks/{id}?wait=N``) on the hub's event loop: each one waits on
an event of the seek it watches, set as soon as the process hears that the seek stopped
waiting.

What is heard comes from the hub (hub.py): on PostgreSQL the NOTIFY that the transaction
settling a seek sends (``<seek id>:1`` on its own channel, persistence/seeks.py), on the hub's
one listening connection, plus its slow safety poll; on SQLite the hub's poll, which asks for
the statuses of every watched seek in one query (``poll``). The pairing passes and cancels of
this process say at once which seeks they settled (``settled``, from any thread). How many
requests may wait at once is bounded by the stream slots (stream_slots.py), as streams are.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence

from app.services.model import WAITING

log = logging.getLogger(__name__)

Statuses = Callable[[Sequence[str]], dict[str, str]]  # seek ids -> their statuses now


class SeekWaits:
    def __init__(self, statuses: Statuses) -> None:
        self.statuses = statuses
        self.seeks: dict[str, tuple[asyncio.Event, int]] = {}  # seek -> (heard, waiters)
        self.loop: asyncio.AbstractEventLoop | None = None  # the hub's, once it runs
        self.closing = False
        self.waiting = 0  # read by other threads (a gauge): a plain count

    def watch(self, seek_id: str) -> None:
        """On the loop, before the seek is read: a change from now on is not missed."""
        self.waiting += 1
        heard, waiters = self.seeks.get(seek_id, (asyncio.Event(), 0))
        self.seeks[seek_id] = (heard, waiters + 1)
        if self.closing:
            heard.set()

    def unwatch(self, seek_id: str) -> None:
        self.waiting -= 1
        heard, waiters = self.seeks[seek_id]
        if waiters == 1:
            del self.seeks[seek_id]
        else:
            self.seeks[seek_id] = (heard, waiters - 1)

    async def changed(self, seek_id: str, seconds: float) -> bool:
        """Whether the watched seek was heard to stop waiting within ``seconds`` (from the
        moment ``watch`` was called: nothing between is missed), or the server is stopping:
        then the answer is the seek as it is now."""
        heard = self.seeks[seek_id][0]
        try:
            async with asyncio.timeout(seconds):
                await heard.wait()
        except TimeoutError:
            return False
        return True

    def settled(self, seek_ids: Iterable[str]) -> None:
        """From any thread of the process (its matchmaker, a cancel): these seeks stopped
        waiting. Before the hub runs, nobody in this process waits for them."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.heard, list(seek_ids))

    def heard(self, seek_ids: Iterable[str]) -> None:
        """On the loop: these seeks stopped waiting; wake their waiters."""
        for seek_id in seek_ids:
            if (entry := self.seeks.get(seek_id)) is not None:
                entry[0].set()

    def close(self) -> None:
        """On the loop: the server stops; every long poll answers now."""
        self.closing = True
        for heard, _ in self.seeks.values():
            heard.set()

    async def poll(self) -> None:
        """The statuses of every watched seek, one query (the hub's poll)."""
        if not self.seeks:
            return
        try:
            statuses = await asyncio.to_thread(self.statuses, list(self.seeks))
        except Exception as error:  # the database is away; the next poll tries again
            log.warning("seek poll failed: %s", type(error).__name__)
            return
        self.heard(seek for seek, status in statuses.items() if status != WAITING)
