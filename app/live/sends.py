"""One non-blocking send that keeps the GIL: libc's send(2) through ``ctypes.PyDLL``.

The hub's thread writes each batch of a game's records to every caught-up stream's socket in
turn (outlet.py), a thousand sockets in a process. ``socket.send`` releases the GIL around every
call, even a non-blocking one, and taking it back waits behind the threads running Python: with
1,000 streams following 16 games, the records reached their watchers at p99 0.93-1.08 s that way,
against 0.11-0.17 s with this send (bench/stream.py, docs/performance.md). A non-blocking send
on a local socket takes microseconds, so holding the GIL through it costs the other threads
little. Off Linux (no ``MSG_NOSIGNAL``) the socket module's own call is used.
"""

from __future__ import annotations

import ctypes
import errno
import os
import socket
from typing import Any

_AT_ONCE = socket.MSG_DONTWAIT | getattr(socket, "MSG_NOSIGNAL", 0)  # a gone client: EPIPE
_AGAIN = (errno.EAGAIN, errno.EWOULDBLOCK, errno.EINTR)


def _libc_send() -> Any | None:
    if not hasattr(socket, "MSG_NOSIGNAL"):
        return None
    try:
        send = ctypes.PyDLL(None, use_errno=True).send  # PyDLL: the GIL is kept during the call
    except (OSError, AttributeError):
        return None
    send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    send.restype = ctypes.c_ssize_t
    return send


_SEND = _libc_send()


def send_now(sock: socket.socket, data: bytes) -> int:
    """Send what the socket takes at once, without waiting (0 if nothing); OSError if the
    peer is gone."""
    if _SEND is None:
        try:
            return sock.send(data, _AT_ONCE)
        except (BlockingIOError, InterruptedError):
            return 0
    sent: int = _SEND(sock.fileno(), data, len(data), _AT_ONCE)
    if sent >= 0:
        return sent
    code = ctypes.get_errno()
    if code in _AGAIN:
        return 0
    raise OSError(code, os.strerror(code))
