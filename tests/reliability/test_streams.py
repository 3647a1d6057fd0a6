"""Live streams across real processes: gunicorn instances on one PostgreSQL database.

- a move through one instance reaches a stream opened on another within 1 s (LISTEN/NOTIFY);
- a stream resumed with Last-Event-ID, on the other instance, misses nothing and repeats nothing;
- PostgreSQL restarted under open streams (a cluster of this test's own, never the shared
  server): the streams stay open and, once it is back, carry on without a lost record;
- clients that stop reading hold up nobody else.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from api.sse import Sse, blocks, records

from .servers import (
    Gunicorn,
    PostgresCluster,
    gunicorn,
    migrate,
    migrated_postgres,
    postgres_cluster,
)
from .support import bearer

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


class Follower:
    """A client following a stream over HTTP in a thread of its own."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.response = requests.get(url, headers=headers or {}, stream=True, timeout=(5, 60))
        assert self.response.status_code == 200, self.response.text[:300]
        assert self.response.headers["Content-Type"].startswith("text/event-stream")
        self.received: queue.Queue[tuple[Sse, float]] = queue.Queue()
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with contextlib.suppress(requests.RequestException, ValueError, AttributeError):
            for block in blocks(self.response.iter_content(chunk_size=None)):
                if block.event is not None:
                    self.received.put((block, time.monotonic()))
        self.ended.set()

    def take(self, count: int, timeout: float) -> list[tuple[Sse, float]]:
        deadline = time.monotonic() + timeout
        taken = []
        for _ in range(count):
            try:
                taken.append(self.received.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"{len(taken)} of {count} records came in time") from None
        return taken

    def close(self) -> None:
        # The reading thread waits in recv for the next record or keep-alive, holding the
        # response's buffer, which close() waits for: shut the socket down so that it returns.
        connection = self.response.raw.connection
        if connection is not None and connection.sock is not None:
            with contextlib.suppress(OSError):
                connection.sock.shutdown(socket.SHUT_RDWR)
        self.response.close()


class Table:
    """A human against a greedy bot, driven over HTTP."""

    def __init__(self, server: Gunicorn, target: int = 1) -> None:
        created = requests.post(
            f"{server.url}/games",
            json={"players": [{"name": "Amira"}, {"bot": "greedy"}],
                  "rules": {"target_score": target}},
            timeout=30,
        )  # fmt: skip
        assert created.status_code == 201, created.text
        body = created.json()
        self.game_id, self.token, self.view = body["id"], body["seats"][0]["token"], body["state"]

    def move(self, server: Gunicorn) -> list[dict[str, Any]]:
        """Play the first card of the hand through ``server``; the moves it applied."""
        answer = requests.post(
            f"{server.url}/games/{self.game_id}/moves",
            json={"card": self.view["hand"][0]},
            headers=bearer(self.token),
            timeout=30,
        )
        assert answer.status_code == 201, answer.text
        self.view = answer.json()["state"]
        moves: list[dict[str, Any]] = answer.json()["moves"]
        return moves

    def refresh(self, server: Gunicorn) -> None:
        with contextlib.suppress(requests.RequestException, ValueError):
            answer = requests.get(
                f"{server.url}/games/{self.game_id}", headers=bearer(self.token), timeout=30
            )
            if answer.status_code == 200:
                self.view = answer.json()

    @property
    def active(self) -> bool:
        return bool(self.view["status"] == "active")


def whole_stream(server: Gunicorn, game_id: str) -> list[Sse]:
    """Every record of a finished game (its stream ends by itself)."""
    response = requests.get(f"{server.url}/games/{game_id}/stream", timeout=30)
    return records(response.text)


@pytest.fixture(scope="module")
def two_instances(tmp_path_factory: Any, postgres_server: bool) -> Iterator[list[Gunicorn]]:
    if not postgres_server:
        pytest.skip("PostgreSQL is not running")
    logs = tmp_path_factory.mktemp("streams")
    with (
        migrated_postgres() as url,
        gunicorn(url, logs, workers=2) as one,
        gunicorn(url, logs, workers=2) as other,
    ):
        yield [one, other]


def test_a_move_through_one_instance_reaches_a_stream_on_the_other_within_a_second(
    two_instances: list[Gunicorn],
) -> None:
    one, other = two_instances
    table = Table(one, target=50)
    follower = Follower(f"{other.url}/games/{table.game_id}/stream")
    try:
        follower.take(1, timeout=5)  # the first deal
        for _ in range(5):
            moves = table.move(one)
            answered = time.monotonic()
            got = follower.take(len(moves), timeout=5)
            assert [record.data["n"] for record, _ in got] == [move["n"] for move in moves]
            assert got[-1][1] - answered < 1.0, "the record came more than 1 s after the answer"
    finally:
        follower.close()


def test_last_event_id_on_the_other_instance_resumes_exactly(
    two_instances: list[Gunicorn],
) -> None:
    one, other = two_instances
    table = Table(one, target=1)
    first = Follower(f"{one.url}/games/{table.game_id}/stream")
    table.move(one)
    table.move(one)
    seen = [record for record, _ in first.take(3, timeout=5)]
    first.close()
    while table.active:  # the game goes on while nobody watches
        table.move(one)
    resumed = Follower(
        f"{other.url}/games/{table.game_id}/stream?after=0",
        headers={"Last-Event-ID": str(seen[-1].id)},
    )
    assert resumed.ended.wait(20), "the stream of a finished game did not end"
    rest = [resumed.received.get_nowait()[0] for _ in range(resumed.received.qsize())]
    assert seen + rest == whole_stream(other, table.game_id)
    assert rest[-1].event == "over"


def test_clients_that_stop_reading_do_not_hold_up_the_others(
    two_instances: list[Gunicorn],
) -> None:
    one, _ = two_instances
    table = Table(one, target=200)
    history = Table(one, target=10_000)  # 150 moves must not end its match
    for _ in range(150):  # ~50 KiB of records: more than a stalled socket's buffers hold
        history.move(one)
    stalled = [_stalled_stream(one, history.game_id) for _ in range(20)]
    stalled += [_stalled_stream(one, table.game_id) for _ in range(20)]
    follower = Follower(f"{one.url}/games/{table.game_id}/stream")
    try:
        follower.take(1, timeout=5)
        for _ in range(20):
            moves = table.move(one)
            answered = time.monotonic()
            got = follower.take(len(moves), timeout=5)
            assert got[-1][1] - answered < 1.0
        # The stalled clients read at last: each gets every record so far, in order, once.
        newest = f"id: {got[-1][0].id}\n"
        fresh = _stalled_stream(one, table.game_id)
        try:
            expected = records(_read_body(fresh, newest))
        finally:
            fresh.close()
        for sock in stalled[20:24]:
            assert records(_read_body(sock, newest)) == expected
    finally:
        follower.close()
        for sock in stalled:
            sock.close()


def test_an_http_1_0_client_gets_the_stream_unchunked_until_the_server_closes_it(
    two_instances: list[Gunicorn],
) -> None:
    one, _ = two_instances
    table = Table(one, target=1)
    sock = _stalled_stream(one, table.game_id, "HTTP/1.0")
    try:
        while table.active:
            table.move(one)
        body = _read_body(sock, until=None)
    finally:
        sock.close()
    assert records(body) == whole_stream(one, table.game_id)


def _stalled_stream(server: Gunicorn, game_id: str, protocol: str = "HTTP/1.1") -> socket.socket:
    """A stream request from a client with a tiny receive buffer that never reads."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sock.connect(("127.0.0.1", server.port))
    sock.sendall(f"GET /games/{game_id}/stream {protocol}\r\nHost: x\r\n\r\n".encode())
    return sock


def _read_body(sock: socket.socket, until: str | None, timeout: float = 20) -> str:
    """The stream's body as read from a raw socket, de-chunked if it was chunked, up to the
    block that contains ``until`` (None: until the server closes the connection)."""
    sock.settimeout(timeout)
    raw = b""
    while b"\r\n\r\n" not in raw:
        raw += sock.recv(1 << 16)
    head, _, rest = raw.partition(b"\r\n\r\n")
    chunked = b"transfer-encoding: chunked" in head.lower()
    body = b""
    while True:
        if chunked:
            while (end := rest.find(b"\r\n")) >= 0:
                size = int(rest[:end], 16)
                if len(rest) < end + 2 + size + 2:
                    break
                body += rest[end + 2 : end + 2 + size]
                rest = rest[end + 2 + size + 2 :]
        else:
            body, rest = body + rest, b""
        text = body.decode()
        if until is not None and until in text:
            return text[: text.index("\n\n", text.index(until)) + 2]
        more = sock.recv(1 << 16)
        if not more:
            assert until is None, f"the stream closed before {until!r}"
            return text
        rest += more


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresCluster]:
    try:
        with postgres_cluster() as running:
            yield running
    except FileNotFoundError as error:
        pytest.skip(f"cannot start a PostgreSQL cluster of our own: {error}")


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_streams_resume_without_loss_after_postgresql_restarts(
    cluster: PostgresCluster, tmp_path: Any, mode: str
) -> None:
    url = cluster.create_database(f"basra_streams_{mode}")
    migrate(url)
    with gunicorn(url, tmp_path, workers=2) as server:
        table = Table(server, target=1)
        followers = [Follower(f"{server.url}/games/{table.game_id}/stream") for _ in range(4)]
        try:
            table.move(server)
            cluster.stop(mode)
            time.sleep(2)
            cluster.start()
            server.wait_healthy(60)
            deadline = time.monotonic() + 60
            while table.active and time.monotonic() < deadline:
                try:
                    table.move(server)
                except (AssertionError, requests.RequestException):  # 503s while it reconnects
                    time.sleep(0.2)
                    table.refresh(server)
            assert not table.active
            whole = whole_stream(server, table.game_id)
            for follower in followers:
                assert follower.ended.wait(20), "a stream did not end after `over`"
                got = [follower.received.get_nowait()[0] for _ in range(follower.received.qsize())]
                assert got == whole
        finally:
            for follower in followers:
                follower.close()
