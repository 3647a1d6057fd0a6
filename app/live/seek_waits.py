"""Long polls of seeks (``GET /seeks/{id}?wait=N``): each request waits on an event of this
process, set as soon as the process hears that its seek stopped waiting.

Where the news comes from, as for the live streams (hub.py): on PostgreSQL the NOTIFY that the
transaction settling a seek sends (``<seek id>:1`` on its own channel, persistence/seeks.py),
through one listening connection per process, plus a slow poll as a safety net; on SQLite a
poll of the watched seeks' statuses, one query for all of them, a few times a second. A pass
of this process also says at once which seeks it settled (``settled``). The thread that
listens or polls starts with the first wait; how many requests may wait at once is bounded
by the stream slots (stream_slots.py), since each holds a worker's thread as a stream does.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

from app.live.news import Listen, NoticeSource
from app.services.model import WAITING

log = logging.getLogger(__name__)


class Forward(Protocol):
    seeks_waiting: int

    def settled(self, seek_ids: Sequence[str]) -> None: ...


Statuses = Callable[[Sequence[str]], dict[str, str]]  # seek ids -> their statuses now


class SeekWaits:
    def __init__(
        self,
        statuses: Statuses,
        listen: Listen | None = None,
        poll_seconds: float = 0.25,
        safety_poll: float = 5.0,
    ) -> None:
        self.statuses = statuses
        self.listen = listen
        self.poll_seconds = poll_seconds
        self.safety_poll = safety_poll
        self.events: dict[str, tuple[threading.Event, int]] = {}  # seek -> (event, waiters)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.listener: NoticeSource | None = None
        self.last_poll = 0.0
        # The event loop's long polls (app/live/loop_hub.py), where the process serves them
        # there: the seeks this process settles are passed on.
        self.forward: Forward | None = None

    @contextmanager
    def watching(self, seek_id: str) -> Iterator[threading.Event]:
        """An event set as soon as the seek is heard to have stopped waiting, from now on: a
        read of the seek made inside the block misses no change, and a request that then
        finds it waiting waits on the event (no read again)."""
        self._start()
        with self.lock:
            event, waiters = self.events.get(seek_id, (threading.Event(), 0))
            self.events[seek_id] = (event, waiters + 1)
        try:
            yield event
        finally:
            with self.lock:
                event, waiters = self.events[seek_id]
                if waiters == 1:
                    del self.events[seek_id]
                else:
                    self.events[seek_id] = (event, waiters - 1)

    def settled(self, seek_ids: Iterable[str]) -> None:
        """These seeks stopped waiting: wake their waiters."""
        seek_ids = list(seek_ids)
        if self.forward is not None:
            self.forward.settled(seek_ids)
        with self.lock:
            for seek_id in seek_ids:
                entry = self.events.get(seek_id)
                if entry is not None:
                    entry[0].set()

    @property
    def waiting(self) -> int:
        elsewhere = 0 if self.forward is None else self.forward.seeks_waiting
        with self.lock:
            return elsewhere + sum(waiters for _, waiters in self.events.values())

    def poll(self) -> None:
        """Ask the database for the status of every watched seek (one query)."""
        self.last_poll = time.monotonic()
        with self.lock:
            watched = list(self.events)
        if not watched:
            return
        try:
            statuses = self.statuses(watched)
        except Exception as error:  # the database is away; the next poll tries again
            log.warning("seek poll failed: %s", type(error).__name__)
            return
        self.settled(seek for seek, status in statuses.items() if status != WAITING)

    def _start(self) -> None:
        if self.thread is not None:
            return
        with self.lock:
            if self.thread is None:
                if self.listen is not None:
                    self.listener = self.listen(self, min(1.0, self.safety_poll))
                self.thread = threading.Thread(target=self._run, name="basra-seek-waits",
                                               daemon=True)  # fmt: skip
                self.thread.start()

    def _run(self) -> None:
        if self.listener is not None:
            self.listener.run()
            return
        while not self.stopping.wait(self.poll_seconds):
            self.poll()

    def stop(self) -> None:
        self.stopping.set()
        if self.listener is not None:
            self.listener.stop()

    # ------------------------------------------------------------ as a NewsSink
    def watches(self, seek_id: str) -> bool:
        return seek_id in self.events

    def news(self, payloads: list[str]) -> None:
        self.settled(payload.partition(":")[0] for payload in payloads)

    def reconnected(self) -> None:
        self.poll()

    def idle(self) -> float | None:
        if time.monotonic() - self.last_poll >= self.safety_poll:
            self.poll()
        return None
