"""A burst of connections is spread over the workers (gunicorn.conf.py: ``reuse_port``).

With one listening socket shared by the workers, whichever woke first accepted a whole burst:
16 keep-alive clients that connected at once all landed in one worker, every time, and were
served by one GIL while the other workers idled (docs/performance.md, "Workers and sockets"). With a
socket per worker the kernel spreads the connections by a hash of their addresses: the chance
that one of two workers gets fewer than two of 16 is 34 in 65,536.
"""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from .servers import Gunicorn, fresh_sqlite, gunicorn, held_by

CLIENTS = 16


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    folder, url = fresh_sqlite(tmp_path_factory, "spread")
    with gunicorn(url, folder, workers=2) as server:
        assert "Listening at: http" not in server.log()  # the master binds nothing itself
        yield server


def connect_and_ask(port: int) -> socket.socket:
    """A keep-alive connection with one request answered on it, left open."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/healthz")
    answer = connection.getresponse()
    assert answer.status == 200, answer.read()
    answer.read()  # all of it, so the connection stays open for the next request
    assert connection.sock is not None
    return connection.sock


def test_a_burst_of_connections_is_spread_over_the_workers(two_workers: Gunicorn) -> None:
    with ThreadPoolExecutor(CLIENTS) as pool:
        clients = list(pool.map(lambda _: connect_and_ask(two_workers.port), range(CLIENTS)))
    try:
        held = [held_by(pid, two_workers, clients) for pid in two_workers.workers()]
        assert sum(held) == CLIENTS
        assert min(held) >= 2, f"connections held by each worker: {held}"
    finally:
        for sock in clients:
            sock.close()


def test_with_reuse_port_off_the_workers_share_one_socket(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """REUSE_PORT=0 goes back to gunicorn's shared socket (the master binds it, and says so)."""
    folder, url = fresh_sqlite(tmp_path_factory, "shared")
    with gunicorn(url, folder, workers=2, env={"REUSE_PORT": "0"}) as server:
        assert f"Listening at: http://127.0.0.1:{server.port}" in server.log()
        connect_and_ask(server.port).close()
