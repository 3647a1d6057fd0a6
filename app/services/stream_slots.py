"""How many live streams one server process holds at once.

On gunicorn's threaded worker each open stream keeps one of the worker's threads for as long as
it lasts (an hour at most), and the same threads serve every other request. With no bound, a
client that opened as many streams as a worker has threads (512 then; no token is needed, the
address limit lets 600 requests a minute through) left that worker answering nothing else,
for the streams' hour (docs/reliability.md, "Streams that took every thread"). ``StreamSlots``
keeps the streams below the thread count: past ``most``, a new stream is refused (503, and the
web client polls instead) while moves, views and health checks go on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class StreamSlots:
    def __init__(self, most: int | None) -> None:
        self.most = most  # None: no bound (a server whose streams hold no thread of their own)
        self.taken = 0
        self.lock = threading.Lock()

    def take(self) -> Callable[[], None] | None:
        """A slot, as the function that gives it back (calling that again does nothing), or
        None when every slot is taken."""
        with self.lock:
            if self.most is not None and self.taken >= self.most:
                return None
            self.taken += 1
        given_back = threading.Event()

        def give_back() -> None:
            with self.lock:
                if not given_back.is_set():
                    given_back.set()
                    self.taken -= 1

        return give_back
