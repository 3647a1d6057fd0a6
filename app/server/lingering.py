"""Closing finished connections the way RFC 9112 (section 9.6) asks, without waiting for them.

A server that closes a connection should first shut its own side (FIN), then read and drop what
the client still sends until the client closes too: a close with unread bytes in the kernel's
buffer sends a reset, which can cut off the end of the answer the client has not read yet.
gunicorn's threaded worker does this with ``util.close_graceful``, a blocking read of up to 2 s,
on the thread that runs its event loop. A client that does not close (a stream reader that keeps
its socket after the stream ended, or a stranger doing it on purpose) froze the whole worker for
those 2 s: no connection accepted, no keep-alive request dispatched. Five such connections a
second cut a 4-worker server's ``/healthz`` to a fifth of its rate, with 2 s stalls
(docs/reliability.md, "Closes that never wait").

``LingeringCloses`` does the same close inside the event loop instead: FIN, then the socket sits
in the loop's selector, each readable event drains what came, and it is closed when the client
closes, when ``max_drain`` bytes were drained, or at its deadline (``expire``, called every turn
of the loop). How many sockets may linger at once is bounded; past that one is closed at once.
"""

from __future__ import annotations

import selectors
import socket
import time
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial

from app.server.nonblocking import recv_now


@dataclass(eq=False)
class _Closing:
    sock: socket.socket
    deadline: float
    drained: int = field(default=0)


class LingeringCloses:
    """The sockets an event loop is closing; ``poller`` is that loop's selector, which calls
    the data registered with each socket as ``callback(fileobj)`` (gunicorn's gthread)."""

    def __init__(
        self,
        poller: selectors.BaseSelector,
        seconds: float = 2.0,
        max_drain: int = 65536,
        most: int = 10_000,
    ) -> None:
        self.poller = poller
        self.seconds = seconds  # as long as gunicorn's own close_graceful waits
        self.max_drain = max_drain  # and as much as it reads
        self.most = most  # each lingering socket holds a file descriptor
        self.closing: dict[_Closing, None] = {}  # in the order they began: by deadline

    def close(self, sock: socket.socket) -> None:
        """Shut our side now; close the socket once the client has closed its own, or at
        the deadline."""
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:  # the client is gone already: nothing to wait for
            _close(sock)
            return
        if len(self.closing) >= self.most:
            _close(sock)
            return
        entry = _Closing(sock, time.monotonic() + self.seconds)
        try:
            sock.setblocking(False)
            self.poller.register(sock, selectors.EVENT_READ, partial(self._readable, entry))
        except (OSError, ValueError, KeyError):
            _close(sock)
            return
        self.closing[entry] = None

    def expire(self) -> None:
        """Close the sockets whose time is up (the loop calls this on every turn)."""
        now = time.monotonic()
        while self.closing:
            entry = next(iter(self.closing))
            if entry.deadline > now:
                return
            self._finish(entry)

    def close_all(self) -> None:
        for entry in list(self.closing):
            self._finish(entry)

    def _readable(self, entry: _Closing, _fileobj: object) -> None:
        try:
            data = recv_now(entry.sock)
        except (OSError, ValueError):  # reset by the client: it is gone (ValueError: TLS)
            data = b""
        if data is None:  # nothing after all
            return
        entry.drained += len(data)
        if not data or entry.drained >= self.max_drain:
            self._finish(entry)

    def _finish(self, entry: _Closing) -> None:
        self.closing.pop(entry, None)
        with suppress(OSError, ValueError, KeyError):
            self.poller.unregister(entry.sock)
        _close(entry.sock)


def _close(sock: socket.socket) -> None:
    with suppress(OSError):
        sock.close()
