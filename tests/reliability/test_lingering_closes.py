"""A client that never closes its end cannot stall the server (app/server/lingering.py).

gunicorn's threaded worker closed every finished connection on its event loop's thread, waiting
up to 2 s for the client to close too; a client that did not froze the whole worker meanwhile.
The first tests drive ``LingeringCloses`` on socket pairs; the last ones real gunicorn, as
``make run`` starts it, with clients that send HTTP/1.0 requests and keep their sockets.
"""

from __future__ import annotations

import http.client
import selectors
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from app.server.lingering import LingeringCloses

from .servers import Gunicorn, fresh_sqlite, gunicorn, held_by


@pytest.fixture
def poller() -> Iterator[selectors.BaseSelector]:
    selector = selectors.DefaultSelector()
    yield selector
    selector.close()


def run_loop(poller: selectors.BaseSelector, closes: LingeringCloses, seconds: float) -> None:
    """The event loop's part, as gunicorn's gthread runs it: dispatch, then expire."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and closes.closing:
        for key, _ in poller.select(0.05):
            key.data(key.fileobj)
        closes.expire()


def pair() -> tuple[socket.socket, socket.socket]:
    server, client = socket.socketpair()
    client.settimeout(2)
    return server, client


def test_closing_sends_the_client_its_end_of_stream_at_once(poller):
    server, client = pair()
    server.sendall(b"the answer")
    closes = LingeringCloses(poller)
    closes.close(server)
    assert client.recv(100) == b"the answer"
    assert client.recv(100) == b""  # FIN: no wait for the client
    assert server.fileno() != -1  # ours lingers, for what the client may still send
    closes.close_all()
    client.close()


def test_the_socket_is_closed_when_the_client_closes(poller):
    server, client = pair()
    closes = LingeringCloses(poller, seconds=30)
    closes.close(server)
    client.sendall(b"bytes the server never read")
    client.close()
    run_loop(poller, closes, 5)
    assert not closes.closing
    assert server.fileno() == -1


def test_a_client_that_keeps_sending_is_cut_off_after_max_drain(poller):
    server, client = pair()
    closes = LingeringCloses(poller, seconds=30, max_drain=10_000)
    closes.close(server)
    client.sendall(b"x" * 20_000)
    run_loop(poller, closes, 5)
    assert not closes.closing and server.fileno() == -1
    client.close()


def test_a_client_that_never_closes_is_closed_at_the_deadline(poller):
    server, client = pair()
    closes = LingeringCloses(poller, seconds=0.2)
    closes.close(server)
    started = time.monotonic()
    run_loop(poller, closes, 5)
    assert not closes.closing and server.fileno() == -1
    assert 0.2 <= time.monotonic() - started < 3
    client.close()


def test_past_the_bound_a_socket_is_closed_at_once(poller):
    sockets = [pair() for _ in range(3)]
    closes = LingeringCloses(poller, seconds=30, most=2)
    for server, _ in sockets:
        closes.close(server)
    assert len(closes.closing) == 2
    assert sockets[2][0].fileno() == -1  # the third was not kept
    closes.close_all()
    assert not closes.closing and all(server.fileno() == -1 for server, _ in sockets)
    for _, client in sockets:
        client.close()


def test_a_client_already_gone_is_closed_at_once(poller):
    server, client = pair()
    client.close()
    server.close()  # shutdown() on it fails: closed without lingering
    closes = LingeringCloses(poller)
    closes.close(server)
    assert not closes.closing


# ---------------------------------------------------------------------------- real gunicorn


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    """gunicorn.conf.py's threaded worker, one process, so that every connection meets it."""
    folder, url = fresh_sqlite(tmp_path_factory, "lingering")
    with gunicorn(url, folder, workers=1) as server:
        assert "Using worker: ProblemThreadWorker" in server.log()
        yield server


def lazy_client(server: Gunicorn) -> socket.socket:
    """A request whose connection the server closes (HTTP/1.0), its answer read to the FIN,
    and the socket kept open, never closed by the client."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    assert answer.startswith(b"HTTP/1.0 200") and answer.endswith(b'{"status":"ok"}\n'), answer
    return sock


@pytest.mark.slow
def test_clients_that_keep_their_sockets_do_not_stall_the_others(one_worker):
    # Before the fix each of these froze the worker for 2 s after its answer: the tenth
    # was answered ~18 s after the first, and the request below waited 20 s.
    started = time.monotonic()
    kept = [lazy_client(one_worker) for _ in range(10)]
    try:
        with requests.Session() as other:
            for _ in range(20):
                assert other.get(f"{one_worker.url}/healthz", timeout=10).status_code == 200
        assert time.monotonic() - started < 2.0, "the lazy clients held the others up"
    finally:
        for sock in kept:
            sock.close()


@pytest.mark.slow
def test_the_sockets_of_clients_that_never_close_are_closed_by_their_deadline(one_worker):
    (worker,) = one_worker.workers()
    # All at once, each noting when it read the server's FIN: a socket whose FIN came less
    # than 1.5 s ago is inside its 2 s of lingering, however slowly the machine made the others.
    with ThreadPoolExecutor(20) as pool:
        made = list(pool.map(lambda _: (lazy_client(one_worker), time.monotonic()), range(20)))
    kept = [sock for sock, _ in made]
    try:
        lingering = held_by(worker, one_worker, kept)
        young = sum(1 for _, answered in made if time.monotonic() - answered < 1.5)
        assert young >= 10, "the clients took too long to make to see them linger"
        assert lingering >= young  # each kept by the worker after its FIN, for a while
        deadline = time.monotonic() + 10  # 2 s of lingering, expired within a loop's turn
        while held_by(worker, one_worker, kept):
            assert time.monotonic() < deadline, "lingering sockets were never closed"
            time.sleep(0.2)
    finally:
        for sock in kept:
            sock.close()


def test_a_keep_alive_connection_idle_for_three_seconds_is_still_served(tmp_path_factory):
    """gunicorn.conf.py keeps an idle connection 5 s (gunicorn's own default, 2 s, closed it
    under clients that paused between requests, who then lost the request they had just sent)."""
    folder, url = fresh_sqlite(tmp_path_factory, "keep-alive")
    with gunicorn(url, folder, workers=1) as server:
        host, port = server.url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        try:
            for pause in (0, 3):
                time.sleep(pause)
                connection.request("GET", "/healthz")  # on the same connection, kept alive
                answer = connection.getresponse()  # RemoteDisconnected if it was closed
                assert (answer.status, answer.read()) == (200, b'{"status":"ok"}\n')
        finally:
            connection.close()
