"""The live edge on the event loop (app/asgi.py, app/live/hub.py) in the real entrance,
``gunicorn app.asgi:app`` as ``make run`` starts it, on both databases: a stream's records and
keep-alives, the process's ceiling (503 with Retry-After while the rest is answered), a long
poll answered as soon as its seek changes, the stream gauge summed over the workers, and a
stop that ends every stream cleanly, so that its clients reconnect with Last-Event-ID."""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from .servers import Gunicorn, fresh_sqlite, gunicorn, migrated_postgres
from .support import bearer

pytestmark = pytest.mark.slow

CEILING = 3  # streams one process may hold here (STREAM_LIMIT)
ENV = {"STREAM_LIMIT": str(CEILING), "STREAM_KEEPALIVE_SECONDS": "0.3"}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield fresh_sqlite(tmp_path_factory, "live-loop")[1]
        return
    if not request.getfixturevalue("postgres_server"):
        pytest.skip("no PostgreSQL server")
    with migrated_postgres() as url:
        yield url


@pytest.fixture
def server(database_url: str, tmp_path: Any) -> Iterator[Gunicorn]:
    """One worker: its ceiling is the instance's."""
    running = Gunicorn(database_url, tmp_path, workers=1, env=ENV)
    try:
        running.start()
        yield running
    finally:
        running.stop()


def a_game(server: Gunicorn) -> dict[str, Any]:
    answer = requests.post(f"{server.url}/games", timeout=10,
                           json={"players": [{"name": "Ann"}, {"bot": "greedy"}]})  # fmt: skip
    assert answer.status_code == 201, answer.text
    game: dict[str, Any] = answer.json()
    return game


def open_stream(server: Gunicorn, game_id: str) -> tuple[socket.socket, int, bytes]:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(f"GET /games/{game_id}/stream HTTP/1.1\r\nHost: a\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    return sock, int(data.split(b" ", 2)[1]), data


def read_until(sock: socket.socket, wanted: bytes, data: bytes = b"", seconds: float = 5) -> bytes:
    deadline = time.monotonic() + seconds
    while wanted not in data and time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        if not chunk:
            break
        data += chunk
    return data


def test_a_move_reaches_the_stream_and_keep_alives_come_between(server):
    game = a_game(server)
    sock, status, data = open_stream(server, game["id"])
    with sock:
        assert status == 200 and b"text/event-stream" in data
        data = read_until(sock, b": keep-alive", data)
        assert b"event: dealt" in data and b": keep-alive" in data
        card = game["state"]["hand"][0]
        moved = requests.post(f"{server.url}/games/{game['id']}/moves", json={"card": card},
                              headers=bearer(game["seats"][0]["token"]), timeout=10)  # fmt: skip
        assert moved.status_code == 201, moved.text
        data = read_until(sock, f'"card":"{card}"'.encode(), data)
        assert f'"card":"{card}"'.encode() in data


def test_streams_past_the_ceiling_are_503_with_retry_after_and_the_rest_is_answered(server):
    game = a_game(server)
    opened = [open_stream(server, game["id"]) for _ in range(CEILING)]
    try:
        assert [status for _, status, _ in opened] == [200] * CEILING
        sock, status, data = open_stream(server, game["id"])
        sock.close()
        assert status == 503 and b"retry-after: 5" in data.lower()
        assert b"application/problem+json" in data
        assert requests.get(f"{server.url}/healthz", timeout=5).status_code == 200
        gauge = requests.get(f"{server.url}/metrics", timeout=5).text
        assert f"basra_stream_clients {CEILING}.0" in gauge
        opened.pop()[0].close()  # one leaves: its slot is free again, soon
        deadline, status = time.monotonic() + 5, 503
        while status == 503 and time.monotonic() < deadline:
            time.sleep(0.1)
            sock, status, _ = open_stream(server, game["id"])
            opened.append((sock, status, b""))
        assert status == 200
    finally:
        for sock, *_ in opened:
            sock.close()


def test_a_long_poll_answers_as_soon_as_its_seek_is_cancelled(server):
    player = requests.post(f"{server.url}/players", json={"name": "Ann"}, timeout=10).json()
    sought = requests.post(f"{server.url}/seeks", json={"players": 2},
                           headers=bearer(player["token"]), timeout=10)  # fmt: skip
    assert sought.status_code == 201, sought.text
    url = f"{server.url}/seeks/{sought.json()['id']}"
    waited = requests.get(url + "?wait=1", headers=bearer(player["token"]), timeout=10)
    assert waited.status_code == 200 and waited.json()["status"] == "waiting"
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        path = f"/seeks/{sought.json()['id']}?wait=20"
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: a\r\n"
                     f"Authorization: Bearer {player['token']}\r\n\r\n".encode())  # fmt: skip
        time.sleep(0.3)
        started = time.monotonic()
        cancelled = requests.delete(url, headers=bearer(player["token"]), timeout=10)
        assert cancelled.status_code == 204
        answer = read_until(sock, b'"status":"cancelled"', seconds=10)
        assert b'"status":"cancelled"' in answer and time.monotonic() - started < 3


def test_a_long_poll_that_hears_a_change_counts_once_against_the_rate_limit(
    database_url: str, tmp_path: Any
) -> None:
    """The entrance answers a long poll that heard a change by running its request again; the
    client sent one request, and the address limit counts one."""
    limits = {"RATE_LIMIT": "100/minute", "TOKEN_RATE_LIMIT": "10000/minute"}
    with gunicorn(database_url, tmp_path, workers=1, env=ENV | limits) as limited:
        player = requests.post(f"{limited.url}/players", json={"name": "Ann"}, timeout=10).json()
        auth = bearer(player["token"])
        sought = requests.post(f"{limited.url}/seeks", json={"players": 2}, headers=auth,
                               timeout=10)  # fmt: skip
        assert sought.status_code == 201, sought.text
        url = f"{limited.url}/seeks/{sought.json()['id']}"
        with socket.create_connection(("127.0.0.1", limited.port), timeout=10) as sock:
            sock.sendall(f"GET /seeks/{sought.json()['id']}?wait=20 HTTP/1.1\r\nHost: a\r\n"
                         f"Authorization: Bearer {player['token']}\r\n\r\n".encode())  # fmt: skip
            time.sleep(0.3)
            assert requests.delete(url, headers=auth, timeout=10).status_code == 204
            answer = read_until(sock, b'"status":"cancelled"', seconds=10)
            assert b'"status":"cancelled"' in answer
        after = requests.get(url, headers=auth, timeout=10)
    assert after.headers["X-RateLimit-Limit"] == "100", dict(after.headers)
    # players, seeks, the long poll, the cancel and this read: five requests
    assert after.headers["X-RateLimit-Remaining"] == "95", dict(after.headers)


def test_a_stop_ends_every_stream_cleanly_for_its_clients_to_reconnect(server):
    game = a_game(server)
    streams = [open_stream(server, game["id"]) for _ in range(2)]
    assert server.process is not None
    server.process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    for sock, status, data in streams:
        with sock:
            assert status == 200
            data = read_until(sock, b"\r\n0\r\n\r\n", data, seconds=8)
            assert data.endswith(b"\r\n0\r\n\r\n"), data[-200:]  # the chunked body's end
    assert time.monotonic() - started < 5  # not the graceful timeout's 10 s
    server.process.wait(timeout=20)


def test_the_head_of_a_stream_is_answered_at_once_and_holds_no_slot(server):
    game = a_game(server)
    for _ in range(CEILING + 1):  # each gives its slot back: none is refused
        answer = requests.head(f"{server.url}/games/{game['id']}/stream", timeout=5)
        assert answer.status_code == 200
        assert answer.headers["Content-Type"].startswith("text/event-stream")
    deadline, gauge = time.monotonic() + 3, ""
    while "basra_stream_clients 0.0" not in gauge and time.monotonic() < deadline:
        gauge = requests.get(f"{server.url}/metrics", timeout=5).text
    assert "basra_stream_clients 0.0" in gauge, [g for g in gauge.splitlines() if "stream" in g]


def test_a_chunked_body_reaches_the_app_through_the_entrance(server):
    body = b'{"players": [{"name": "Ann"}, {"bot": "greedy"}]}'
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST /games HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                     + b"%X\r\n%s\r\n0\r\n\r\n" % (len(body), body))  # fmt: skip
        answer = read_until(sock, b"\r\n\r\n{")
    assert answer.startswith(b"HTTP/1.1 201"), answer[:300]
