"""A request is read by the event loop before a thread is given to it
(app/server/request_reading.py).

gunicorn's threaded worker read each request's head on a pool thread, with a blocking read and
no deadline: connections that sent part of a head and stopped kept every thread. The first tests
drive ``judge`` and ``RequestReader`` on socket pairs; the last ones real gunicorn, as ``make run``
starts it, with slow clients.
"""

from __future__ import annotations

import json
import selectors
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from app.server.request_reading import RequestReader, Verdict, body_length, judge

from .servers import Gunicorn, migrate

HEAD = b"POST /games HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"


@pytest.mark.parametrize(
    ("data", "verdict"),
    [
        (b"GET /healthz HTTP/1.1\r\nHost: a\r\n", Verdict.WAIT),
        (b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n", Verdict.READY),
        (b"GET /healthz HTTP/1.0\n\n", Verdict.READY),  # gunicorn judges bare line ends
        (b"HELLO\r\n\r\n", Verdict.READY),  # and what is not HTTP (400)
        (HEAD + b"Content-Length: 2\r\n\r\n{", Verdict.WAIT),  # the body is not all in
        (HEAD + b"Content-Length: 2\r\n\r\n{}", Verdict.READY),
        (HEAD + b"content-length: 2\r\n\r\n{}GET / HTTP/1.1\r\n", Verdict.READY),  # pipelined
        (HEAD + b"Content-Length: 999999\r\n\r\n", Verdict.READY),  # the app answers 413
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n", Verdict.WAIT),  # chunks to come
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n1\r\n{", Verdict.WAIT),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n", Verdict.WAIT),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", Verdict.READY),
        (
            HEAD + b"Transfer-Encoding: chunked\r\n\r\n2;x=y\r\n{}\r\n0\r\nT: 1\r\n\r\n",
            Verdict.READY,
        ),  # an extension and a trailer
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n", Verdict.READY),  # gunicorn: 400
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n10001\r\n", Verdict.BODY_TOO_LARGE),
        (HEAD + b"Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n", Verdict.READY),
        (HEAD + b"Expect: 100-continue\r\nContent-Length: 2\r\n\r\n", Verdict.READY),
        (b"GET /" + b"x" * 70_000, Verdict.TOO_LARGE),
    ],
)
def test_judging_what_has_come(data, verdict):
    assert judge(data, max_head=65536, max_body=65536) is verdict


@pytest.mark.parametrize(
    ("head", "length"),
    [
        (b"GET / HTTP/1.1\r\nHost: a", 0),
        (b"POST / HTTP/1.1\r\nContent-Length: 17", 17),
        (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1", None),  # gunicorn's call
        (b"POST / HTTP/1.1\r\nContent-Length: -1", None),
        (b"POST / HTTP/1.1\r\nno colon here", None),
    ],
)
def test_the_length_a_head_gives_its_body(head, length):
    assert body_length(head) == length


class Conn:
    """What the reader needs of gunicorn's TConn: its socket, non-blocking."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock


@pytest.fixture
def loop() -> Iterator[tuple[selectors.BaseSelector, list[tuple[str, Any]], RequestReader]]:
    poller = selectors.DefaultSelector()
    outcomes: list[tuple[str, Any]] = []
    reader = RequestReader(
        poller,
        ready=lambda conn, data: outcomes.append(("ready", data)),
        refuse=lambda conn, verdict: outcomes.append(("refused", verdict)),
        seconds=0.3,
    )
    yield poller, outcomes, reader
    reader.close_all()
    poller.close()


def turn(poller: selectors.BaseSelector, reader: RequestReader, seconds: float = 1) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and reader.reading:
        for key, _ in poller.select(0.05):
            key.data(key.fileobj)
        reader.expire()


def deliver(poller: selectors.BaseSelector, client: socket.socket, data: bytes) -> None:
    """Send ``data`` and let the loop take what came, once."""
    client.sendall(data)
    for key, _ in poller.select(1):
        key.data(key.fileobj)


def test_a_request_already_in_is_handed_on_at_once(loop):
    _poller, outcomes, reader = loop
    server, client = socket.socketpair()
    client.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
    reader.read(Conn(server))
    assert outcomes == [("ready", b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")]
    assert not reader.reading
    server.close()
    client.close()


def test_a_request_that_comes_in_pieces_is_handed_on_whole(loop):
    poller, outcomes, reader = loop
    server, client = socket.socketpair()
    reader.read(Conn(server))
    for piece in (b"POST /games HTTP/1.1\r\n", b"Content-Length: 2\r\n\r\n", b"{", b"}"):
        assert outcomes == []
        deliver(poller, client, piece)
    assert outcomes == [("ready", b"POST /games HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}")]
    server.close()
    client.close()


def test_a_request_sent_a_byte_at_a_time_is_looked_at_once_per_byte(loop):
    poller, outcomes, reader = loop
    server, client = socket.socketpair()
    request = b"POST /games HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"
    reader.read(Conn(server))
    (entry,) = reader.reading
    head = request.index(b"\r\n\r\n") + 4
    for n in range(len(request) - 1):
        deliver(poller, client, request[n : n + 1])
        if n + 1 < head:  # looked for the head's end up to here, no further back than 3 bytes
            assert entry.searched == n + 1 and entry.whole is None
        else:
            assert entry.whole == len(request)
    deliver(poller, client, request[-1:])
    assert outcomes == [("ready", request)]
    server.close()
    client.close()


def test_a_request_not_in_by_the_deadline_is_refused(loop):
    poller, outcomes, reader = loop
    server, client = socket.socketpair()
    client.sendall(b"GET /healthz HTTP/1.1\r\n")
    reader.read(Conn(server))
    turn(poller, reader, 3)
    assert outcomes == [("refused", Verdict.WAIT)]
    server.close()
    client.close()


def test_a_client_that_closes_before_its_request_is_in_is_let_go(loop):
    poller, outcomes, reader = loop
    server, client = socket.socketpair()
    reader.read(Conn(server))
    client.sendall(b"GET /")
    client.close()
    turn(poller, reader)
    assert outcomes == [("refused", Verdict.GONE)]
    server.close()


def test_a_head_larger_than_any_this_server_reads_is_refused(loop):
    poller, outcomes, reader = loop
    server, client = socket.socketpair()
    reader.read(Conn(server))
    client.sendall(b"GET /" + b"x" * 70_000)
    turn(poller, reader)
    assert outcomes == [("refused", Verdict.TOO_LARGE)]
    server.close()
    client.close()


# ---------------------------------------------------------------------------- real gunicorn


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    """gunicorn.conf.py's threaded worker, one process with 8 threads (so that a few slow
    clients would take every thread if each held one), requests read within 2 s."""
    folder: Path = tmp_path_factory.mktemp("request-reading")
    url = f"sqlite:///{folder / 'basra.sqlite3'}"
    migrate(url)
    server = Gunicorn(url, folder, workers=1)
    server.env.update({"GUNICORN_THREADS": "8", "REQUEST_READ_SECONDS": "2"})
    try:
        server.start()
        yield server
    finally:
        server.stop()


def slow_client(server: Gunicorn, sent: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(sent)
    return sock


@pytest.mark.slow
def test_clients_that_send_half_a_request_do_not_take_the_threads(one_worker):
    # Before, each held a thread as long as it kept its connection: 40 of them against 8
    # threads, and nothing else was answered until they went.
    slow = [slow_client(one_worker, b"GET /healthz HTTP/1.1\r\nHost: a\r\n") for _ in range(20)]
    slow += [slow_client(one_worker, HEAD + b"Content-Length: 40\r\n\r\n{") for _ in range(20)]
    try:
        with requests.Session() as other:
            for _ in range(20):
                answer = other.get(f"{one_worker.url}/healthz", timeout=5)
                assert answer.status_code == 200
    finally:
        for sock in slow:
            sock.close()


@pytest.mark.slow
def test_a_request_not_sent_in_time_is_closed(one_worker):
    sock = slow_client(one_worker, b"GET /healthz HTTP/1.1\r\nHost: a\r\n")
    started = time.monotonic()
    try:
        assert sock.recv(100) == b""  # closed with no answer, at the deadline
        assert 1.5 <= time.monotonic() - started < 5
    finally:
        sock.close()


@pytest.mark.slow
def test_requests_sent_in_pieces_within_the_deadline_are_answered(one_worker):
    body = json.dumps({"players": [{"name": "Ann"}, {"bot": "greedy"}]}).encode()
    request = (HEAD + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()) + body
    with socket.create_connection(("127.0.0.1", one_worker.port), timeout=10) as sock:
        for start in range(0, len(request), 20):
            sock.sendall(request[start : start + 20])
            time.sleep(0.01)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 201"), answer[:200]


def chunked(body: bytes, size: int) -> bytes:
    pieces = [body[at : at + size] for at in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


def whole_answer(sock: socket.socket) -> bytes:
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    return answer


@pytest.mark.slow
def test_chunked_bodies_that_stall_do_not_take_the_threads(one_worker):
    # A chunked POST that stops after one byte was handed to a thread, which then waited on it.
    chunk_head = HEAD + b"Transfer-Encoding: chunked\r\n\r\n"
    slow = [slow_client(one_worker, chunk_head + b"1\r\n{") for _ in range(16)]
    try:
        with requests.Session() as other:
            for _ in range(10):
                assert other.get(f"{one_worker.url}/healthz", timeout=5).status_code == 200
        started = time.monotonic()
        assert slow[0].recv(100) == b""  # closed with no answer, at the deadline
        assert time.monotonic() - started < 5
    finally:
        for sock in slow:
            sock.close()


@pytest.mark.slow
def test_a_chunked_body_sent_in_pieces_is_answered(one_worker):
    body = json.dumps({"players": [{"name": "Ann"}, {"bot": "greedy"}]}).encode()
    request = HEAD + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    request += chunked(body, 7)
    with socket.create_connection(("127.0.0.1", one_worker.port), timeout=10) as sock:
        for start in range(0, len(request), 20):
            sock.sendall(request[start : start + 20])
            time.sleep(0.01)
        answer = whole_answer(sock)
    assert answer.startswith(b"HTTP/1.1 201"), answer[:200]


@pytest.mark.slow
def test_a_chunked_body_over_the_limit_is_a_413_problem(one_worker):
    request = HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % (70_000) + b"x" * 1000
    with socket.create_connection(("127.0.0.1", one_worker.port), timeout=10) as sock:
        sock.sendall(request)
        answer = whole_answer(sock)
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 413"), answer[:200]
    assert json.loads(body)["code"] == "payload_too_large"


@pytest.mark.slow
def test_clients_that_do_not_read_their_answers_are_let_go(tmp_path):
    # Each pipelines large GETs and never reads: its thread blocks in sendall once the socket
    # buffers are full. Four of them hold all four threads, for RESPONSE_SEND_SECONDS at most.
    url = f"sqlite:///{tmp_path / 'basra.sqlite3'}"
    migrate(url)
    server = Gunicorn(url, tmp_path, workers=1,
                      env={"GUNICORN_THREADS": "4", "RESPONSE_SEND_SECONDS": "2"})  # fmt: skip
    asked = b"GET /docs/assets/swagger-ui-bundle.js HTTP/1.1\r\nHost: a\r\n\r\n" * 20
    readers: list[socket.socket] = []
    try:
        server.start()
        for _ in range(4):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before the handshake
            sock.settimeout(10)
            sock.connect(("127.0.0.1", server.port))
            sock.sendall(asked)
            readers.append(sock)
        time.sleep(1)
        started = time.monotonic()
        assert requests.get(f"{server.url}/healthz", timeout=10).status_code == 200
        assert time.monotonic() - started < 5  # without a send deadline: never
        assert "did not read its answer within 2.0 s" in server.log()
    finally:
        for sock in readers:
            sock.close()
        server.stop()


@pytest.mark.slow
def test_a_head_too_large_is_a_431_problem(one_worker):
    pads = b"".join(b"X-Pad-%d: %s\r\n" % (n, b"y" * 7000) for n in range(10))  # 70 KB, no end
    with socket.create_connection(("127.0.0.1", one_worker.port), timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\n" + pads)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 431"), answer[:200]
    assert json.loads(body)["code"] == "header_fields_too_large"
