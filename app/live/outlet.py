"""A stream's own socket, written by the hub's thread while the stream keeps up.

A stream served the plain way is a thread that wakes for every record, formats it and writes it:
with a thousand streams in a process, those wake-ups under the GIL cost ~48 µs a record and took
the CPU from the moves (docs/performance.md, "Live streams"). An ``Outlet`` lets whichever thread
brings a game's new records (the hub's listener) write them to every caught-up stream's socket
itself: the records are rendered once per batch, and each socket gets one non-blocking send that
keeps the GIL (sends.py).
The stream's thread sleeps meanwhile, waking only for a keep-alive or when it is handed back its
stream.

A socket that cannot take a whole batch at once (a client that reads slowly or not at all) is
never waited for: what did not fit is kept (``leftover``), the outlet is detached, and the
stream's own thread writes the rest, blocking only itself, then goes on as a plain stream until
it has caught up again. So a slow reader holds up nobody, and its memory is one batch.

The server's socket is shared with the WSGI server that framed the response (gunicorn's
``environ["gunicorn.socket"]``, as websocket libraries use it): the stream's thread is inside the
response's iterator all the while, so the server writes nothing until the iterator goes on.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

from app.live.records import Record
from app.live.sends import send_now  # keeps the GIL: the hub's thread serves many sockets

# A batch of records (an empty one: a keep-alive) as the bytes that go on the wire.
Render = Callable[[list[Record]], bytes]


class Outlet:
    def __init__(self, sock: socket.socket, render: Render) -> None:
        self.sock = sock
        self.render = render
        self.cursor = 0  # the last version written to the socket
        self.attached = False  # the hub's thread writes to it (under its channel's lock)
        self.ended = False  # the game's last record was written
        self.broken = False  # the client went away
        self.leftover = b""  # bytes of a batch the socket could not take at once
        self.last_write = time.monotonic()
        self.handed_back = threading.Event()

    def offer(self, wire: bytes) -> bool:
        """Send without waiting; False if the socket did not take it all (the rest is kept in
        ``leftover`` for the stream's thread) or the client is gone."""
        try:
            sent = send_now(self.sock, wire)
        except OSError:
            self.broken = True
            return False
        if sent < len(wire):
            self.leftover = wire[sent:]
            return False
        self.last_write = time.monotonic()
        return True

    def detach(self) -> None:
        """Stop the hub's writes (the caller holds the channel's lock) and wake the stream."""
        self.attached = False
        self.handed_back.set()

    def flush(self) -> bool:
        """Write what the socket could not take, waiting as long as it takes (the stream's own
        thread, after a detach); False if the client is gone."""
        wire, self.leftover = self.leftover, b""
        if self.broken:
            return False
        try:
            self.sock.sendall(wire)
        except OSError:
            self.broken = True
            return False
        self.last_write = time.monotonic()
        return True
