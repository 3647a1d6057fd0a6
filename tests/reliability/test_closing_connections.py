"""A connection the server closes must not hold up the worker's loop. gunicorn's threaded worker
closes a connection it will not keep alive (an HTTP/1.0 request, ``Connection: close``, a
stream that ended) gracefully: it half-closes, then waits up to 2 s for the client to close its
side. Done in the worker's loop, every such client that keeps its socket open stalled accepting
and dispatching for 2 s, one after another; twenty of them kept a worker silent past gunicorn's
30 s timeout, and it was killed with every connection it held. The worker here does that wait
on a thread of its pool."""

from __future__ import annotations

import socket
import time

import pytest

from .servers import fresh_sqlite, gunicorn

pytestmark = pytest.mark.slow

LINGERING = 20  # clients that read their answer and keep the socket open: 40 s of waits


def answered(port: int, request: bytes) -> socket.socket:
    """Send ``request`` and read its whole answer (the server closes its side after it); the
    socket is returned open."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(request)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    assert data.split(b" ", 2)[1] == b"200", data[:200]
    return sock


def test_clients_that_keep_closed_connections_open_do_not_stall_the_worker(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    log_dir, url = fresh_sqlite(tmp_path_factory, "closing-connections")
    with gunicorn(url, log_dir, workers=1) as server:
        worker = server.workers()
        kept = [
            answered(server.port, b"GET /healthz HTTP/1.0\r\nHost: basra\r\n\r\n")
            for _ in range(LINGERING)
        ]
        try:
            started = time.monotonic()
            fresh = answered(server.port, b"GET /healthz HTTP/1.1\r\nHost: basra\r\n"
                                          b"Connection: close\r\n\r\n")  # fmt: skip
            waited = time.monotonic() - started
            fresh.close()
            assert waited < 2.0, f"a new client waited {waited:.1f} s behind lingering closes"
            assert server.workers() == worker, server.log()[-2000:]
            assert "WORKER TIMEOUT" not in server.log()
        finally:
            for sock in kept:
                sock.close()
