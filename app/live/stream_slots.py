"""How many live streams one server process holds at once, in all and for one address.

On gunicorn's threaded worker each open stream keeps one of the worker's threads for as long as
it lasts (an hour at most), and the same threads serve every other request. With no bound, a
client that opened as many streams as a worker has threads (512 then; no token is needed, the
address limit lets 600 requests a minute through) left that worker answering nothing else,
for the streams' hour (docs/reliability.md, "Streams that took every thread"). ``StreamSlots``
keeps the streams below the thread count: past ``most``, a new stream is refused (503, and the
web client polls instead) while moves, views and health checks go on.

That still let one address take every stream a process may hold (in six minutes, at 600
requests a minute), and nobody else could watch a game live for the next hour. So one address
holds at most ``per_address`` of a process's streams (a 429 past that): a stranger then needs
as many addresses as a process has slots over ``per_address`` to shut the others out. A
household or an office behind one address still has ``per_address`` streams in each worker.
"""

from __future__ import annotations

import enum
import threading
from collections import Counter
from collections.abc import Callable


class NoSlot(enum.Enum):
    SERVER_FULL = "the process holds all the streams it may"
    ADDRESS_FULL = "the address holds all the streams it may in this process"


class StreamSlots:
    def __init__(self, most: int | None, per_address: int | None = None) -> None:
        self.most = most  # None: no bound (a server whose streams hold no thread of their own)
        self.per_address = per_address  # None: no bound (limits off: a benchmark's one address)
        self.taken = 0
        self.by_address: Counter[str] = Counter()
        self.lock = threading.Lock()

    def take(self, address: str = "") -> Callable[[], None] | NoSlot:
        """A slot, as the function that gives it back (calling that again does nothing), or
        why there is none."""
        with self.lock:
            if self.most is not None and self.taken >= self.most:
                return NoSlot.SERVER_FULL
            if self.per_address is not None and self.by_address[address] >= self.per_address:
                return NoSlot.ADDRESS_FULL
            self.taken += 1
            self.by_address[address] += 1
        given_back = threading.Event()

        def give_back() -> None:
            with self.lock:
                if not given_back.is_set():
                    given_back.set()
                    self.taken -= 1
                    self.by_address[address] -= 1
                    if not self.by_address[address]:
                        del self.by_address[address]  # the counter does not grow with strangers

        return give_back
