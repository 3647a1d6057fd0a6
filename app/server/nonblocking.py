"""Non-blocking socket calls that keep the GIL: libc's send(2) and recv(2) through ctypes.PyDLL.

``socket.send`` and ``socket.recv`` release the GIL around every call, even a non-blocking one,
and taking it back waits behind the threads running Python. For a thread that serves many
sockets in turn (a stream hub writing a batch to its streams, a worker's event loop reading
requests) those waits add up: the hub's thread fell hundreds of milliseconds behind its notices
(docs/performance.md, "Live streams and the worker class"), and reading requests in the event loop
cost 2-7% of the moves of four workers (docs/reliability.md, "Slow request heads"). A
non-blocking call on a local socket takes microseconds, so holding the GIL through it costs the
other threads little. Off Linux (no ``MSG_NOSIGNAL``), or with ``PLAIN_SOCKET_CALLS`` set, the
socket module's own calls are used.
"""

from __future__ import annotations

import ctypes
import errno
import os
import socket
from typing import Any

_NOW = socket.MSG_DONTWAIT | getattr(socket, "MSG_NOSIGNAL", 0)  # a gone client: EPIPE
_AGAIN = (errno.EAGAIN, errno.EWOULDBLOCK, errno.EINTR)


def _libc() -> Any | None:
    if not hasattr(socket, "MSG_NOSIGNAL") or os.environ.get("PLAIN_SOCKET_CALLS"):
        return None
    try:
        libc = ctypes.PyDLL(None, use_errno=True)  # PyDLL: the GIL is kept during the call
        send, recv = libc.send, libc.recv
    except (OSError, AttributeError):
        return None
    send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    send.restype = ctypes.c_ssize_t
    recv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    recv.restype = ctypes.c_ssize_t
    return libc


_LIBC = _libc()


def send_now(sock: socket.socket, data: bytes) -> int:
    """Send what the socket takes at once, without waiting (0 if nothing); OSError if the
    peer is gone."""
    if _LIBC is None:
        try:
            return sock.send(data, _NOW)
        except BlockingIOError:
            return 0
    sent: int = _LIBC.send(sock.fileno(), data, len(data), _NOW)
    if sent >= 0:
        return sent
    code = ctypes.get_errno()
    if code in _AGAIN:
        return 0
    raise OSError(code, os.strerror(code))


def recv_now(sock: socket.socket, size: int = 16384) -> bytes | None:
    """What the socket holds now, up to ``size`` bytes, without waiting: None if nothing yet,
    b"" once the peer has closed; OSError if the connection failed (a reset)."""
    if _LIBC is None:
        try:
            return sock.recv(size, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return None
    buffer = ctypes.create_string_buffer(size)
    got: int = _LIBC.recv(sock.fileno(), buffer, size, socket.MSG_DONTWAIT)
    if got >= 0:
        return buffer.raw[:got]
    code = ctypes.get_errno()
    if code in _AGAIN:
        return None
    raise OSError(code, os.strerror(code))
