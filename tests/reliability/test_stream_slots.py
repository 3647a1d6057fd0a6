"""Live streams cannot take every thread of a worker (app/live/stream_slots.py).

Each open stream keeps one of a gthread worker's threads. Before, a client that opened as many
streams as a worker has threads left it answering nothing else for the streams' hour. Now the
streams one worker holds are kept below its threads (gunicorn.conf.py: ``stream_limit``), and
one more is refused with 503 while everything else goes on.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest
import requests

from app.config import stream_limit
from app.live.stream_slots import NoSlot, StreamSlots

from .servers import Gunicorn, fresh_sqlite, gunicorn
from .support import problem_errors


def test_slots_are_taken_up_to_the_bound_and_given_back_once():
    slots = StreamSlots(2)
    first, second = slots.take(), slots.take()
    assert callable(first) and callable(second)
    assert slots.take() is NoSlot.SERVER_FULL
    first()
    first()  # a second give-back of the same slot frees nothing more
    assert slots.taken == 1
    third = slots.take()
    assert callable(third) and slots.take() is NoSlot.SERVER_FULL


def test_no_bound_takes_any_number():
    slots = StreamSlots(None)
    assert all(callable(slots.take("127.0.0.1")) for _ in range(1000))


def test_one_address_takes_its_share_and_the_others_theirs():
    slots = StreamSlots(4, per_address=2)
    mine = [slots.take("192.0.2.1"), slots.take("192.0.2.1")]
    assert all(callable(slot) for slot in mine)
    assert slots.take("192.0.2.1") is NoSlot.ADDRESS_FULL
    assert callable(slots.take("192.0.2.2"))
    mine[0]()
    mine[0]()  # given back once only: the address has one stream, not none
    assert callable(slots.take("192.0.2.1"))
    assert slots.take("192.0.2.1") is NoSlot.ADDRESS_FULL
    assert callable(slots.take("192.0.2.3"))
    assert slots.take("192.0.2.4") is NoSlot.SERVER_FULL  # the process's bound comes first


def test_an_address_that_left_is_forgotten():
    slots = StreamSlots(None, per_address=1)
    for n in range(100):
        give_back = slots.take(f"198.51.100.{n}")
        assert callable(give_back)
        give_back()
    assert not slots.by_address


def test_a_worker_keeps_threads_for_everything_else():
    assert stream_limit(1024) == 960  # gunicorn.conf.py's default threads
    assert stream_limit(8) == 4
    assert all(0 < stream_limit(threads) < threads for threads in range(2, 2000))


@pytest.fixture(scope="module")
def eight_threads(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    """One gthread worker with 8 threads (so at most 4 streams), keep-alives every 0.3 s (so
    that a stream whose client left notices it soon)."""
    folder, url = fresh_sqlite(tmp_path_factory, "stream-slots")
    server = Gunicorn(url, folder, workers=1, app="app.wsgi:app")  # a REST worker: gthread
    server.env.update({"GUNICORN_THREADS": "8", "STREAM_KEEPALIVE_SECONDS": "0.3"})
    server.env.pop("STREAM_LIMIT", None)
    try:
        server.start()
        yield server
    finally:
        server.stop()


def open_stream(
    server: Gunicorn, game_id: str, source: str = "127.0.0.1"
) -> tuple[socket.socket, int, bytes]:
    """A stream's socket, its status and what came with the head (the whole answer if refused),
    from ``source`` (any 127/8 address: Linux routes them all to the loopback interface)."""
    sock = socket.create_connection(
        ("127.0.0.1", server.port), timeout=10, source_address=(source, 0)
    )
    sock.sendall(f"GET /games/{game_id}/stream HTTP/1.1\r\nHost: a\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    status = int(data.split(b" ", 2)[1])
    return sock, status, data


def a_game(server: Gunicorn) -> str:
    answer = requests.post(
        f"{server.url}/games", json={"players": [{"name": "Ann"}, {"name": "Bob"}]}, timeout=10
    )
    assert answer.status_code == 201, answer.text
    game_id: str = answer.json()["id"]
    return game_id


@pytest.mark.slow
def test_streams_past_the_bound_are_refused_and_the_rest_is_answered(eight_threads):
    game_id = a_game(eight_threads)
    opened, refused = [], []
    try:
        for _ in range(12):  # before: the eighth took the last thread, and all stopped
            sock, status, data = open_stream(eight_threads, game_id)
            (opened if status == 200 else refused).append((sock, data))
        assert len(opened) == 4 and len(refused) == 8
        assert_refused(*refused[0], 503, "unavailable")
        for _ in range(10):
            assert requests.get(f"{eight_threads.url}/healthz", timeout=5).status_code == 200
            assert requests.get(f"{eight_threads.url}/games/{game_id}", timeout=5).ok
    finally:
        for sock, _ in opened + refused:
            sock.close()


def open_when_free(
    server: Gunicorn, game_id: str, seconds: float = 10, source: str = "127.0.0.1"
) -> socket.socket:
    """A stream, as soon as a slot is free: the server sees a closed stream at its next
    keep-alive, and gives its slot back then."""
    deadline = time.monotonic() + seconds
    while True:
        sock, status, _ = open_stream(server, game_id, source)
        if status == 200:
            return sock
        sock.close()
        assert time.monotonic() < deadline, "no slot came free"
        time.sleep(0.1)


@pytest.mark.slow
def test_a_stream_that_ends_gives_its_slot_back(eight_threads):
    game_id = a_game(eight_threads)
    streams = [open_when_free(eight_threads, game_id) for _ in range(4)]  # all four slots
    try:
        sock, status, _ = open_stream(eight_threads, game_id)
        sock.close()
        assert status == 503
        streams.pop().close()
        streams.append(open_when_free(eight_threads, game_id))
    finally:
        for sock in streams:
            sock.close()


@pytest.fixture(scope="module")
def two_per_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    """One worker (the bound is a process's), limits on, two streams an address."""
    folder, url = fresh_sqlite(tmp_path_factory, "streams-per-address")
    env = {"RATE_LIMIT": "10000 per minute", "STREAMS_PER_ADDRESS": "2",
           "STREAM_KEEPALIVE_SECONDS": "0.3"}  # fmt: skip
    with gunicorn(url, folder, workers=1, env=env) as server:
        yield server


@pytest.mark.slow
def test_one_address_cannot_take_the_streams_of_everybody_else(two_per_address):
    game_id = a_game(two_per_address)
    mine = [open_when_free(two_per_address, game_id, source="127.0.0.2") for _ in range(2)]
    theirs: list[socket.socket] = []
    try:
        sock, _, data = open_stream(two_per_address, game_id, "127.0.0.2")
        mine.append(sock)  # closed at the end, as the others
        assert_refused(sock, data, 429, "rate_limited")
        # Somebody else, at another address, still watches live.
        theirs = [open_when_free(two_per_address, game_id, source="127.0.0.3") for _ in range(2)]
        # One of mine ends: its slot is mine again once the server has seen it go.
        mine.pop(0).close()
        mine.append(open_when_free(two_per_address, game_id, source="127.0.0.2"))
    finally:
        for sock in mine + theirs:
            sock.close()


def assert_refused(sock: socket.socket, data: bytes, status: int, code: str) -> None:
    """The answer on ``sock`` (``data``: what came with its head) is a problem document of
    ``status`` and ``code``, with ``Retry-After: 5``."""
    head, _, body = data.partition(b"\r\n\r\n")
    assert int(head.split(b" ", 2)[1]) == status, head
    while len(body) < int(_header(head, b"content-length")):
        body += sock.recv(65536)
    assert problem_errors(status, _header(head, b"content-type").decode(), body) == []
    assert json.loads(body)["code"] == code
    assert _header(head, b"retry-after") == b"5"


def _header(head: bytes, name: bytes) -> bytes:
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip()
    raise AssertionError(f"no {name!r} header in {head!r}")
