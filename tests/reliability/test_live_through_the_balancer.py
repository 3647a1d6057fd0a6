"""The production topology (deploy/haproxy.cfg, docker-compose.yml, docs/scaling.md): HAProxy
sends the live edge (event streams, long polls of seeks) to the stream replicas
(``app.asgi:app``, an event loop each) and the rest to the REST replicas (``app.wsgi:app``,
gthread). A move made through the REST side reaches a stream held by the stream side, and a
seek cancelled there answers the long poll held here, on both databases."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from .balancer import HAProxy, haproxy
from .servers import Gunicorn, fresh_sqlite, gunicorn, migrated_postgres
from .support import bearer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield fresh_sqlite(tmp_path_factory, "live-balancer")[1]
        return
    if not request.getfixturevalue("postgres_server"):
        pytest.skip("no PostgreSQL server")
    with migrated_postgres() as url:
        yield url


@pytest.fixture(scope="module")
def topology(
    database_url: str, tmp_path_factory: Any
) -> Iterator[tuple[HAProxy, Gunicorn, Gunicorn]]:
    """(the balancer, the REST replica, the stream replica)."""
    logs = tmp_path_factory.mktemp("live-balancer-logs")
    env = {"STREAM_KEEPALIVE_SECONDS": "0.5"}
    with (
        gunicorn(database_url, logs, workers=1, env=env, app="app.wsgi:app") as rest,
        gunicorn(database_url, logs, workers=1, env=env, app="app.asgi:app") as live,
    ):
        rest_at, live_at = f"127.0.0.1:{rest.port}", f"127.0.0.1:{live.port}"
        routes = {"LIVE_1": live_at, "LIVE_2": live_at}
        with haproxy([rest_at, rest_at], logs, routes) as balancer:
            balancer.wait_for({"api-1": "UP", "api-2": "UP"})
            yield balancer, rest, live


def stream_clients(server: Gunicorn) -> float:
    for line in requests.get(f"{server.url}/metrics", timeout=5).text.splitlines():
        if line.startswith("basra_stream_clients "):
            return float(line.split()[1])
    return 0.0


def read_until(sock: socket.socket, wanted: bytes, seconds: float = 10) -> bytes:
    data, deadline = b"", time.monotonic() + seconds
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


def test_a_stream_is_held_by_the_stream_replica_and_gets_moves_made_on_the_rest(topology):
    balancer, rest, live = topology
    game = requests.post(f"{balancer.url}/games", timeout=10,
                         json={"players": [{"name": "Ann"}, {"bot": "greedy"}]}).json()  # fmt: skip
    with socket.create_connection(("127.0.0.1", balancer.port), timeout=10) as sock:
        sock.sendall(f"GET /games/{game['id']}/stream HTTP/1.1\r\nHost: a\r\n\r\n".encode())
        assert b"event: dealt" in read_until(sock, b"event: dealt")
        assert (stream_clients(live), stream_clients(rest)) == (1.0, 0.0)
        card = game["state"]["hand"][0]
        moved = requests.post(f"{balancer.url}/games/{game['id']}/moves", json={"card": card},
                              headers=bearer(game["seats"][0]["token"]), timeout=10)  # fmt: skip
        assert moved.status_code == 201, moved.text
        assert f'"card":"{card}"'.encode() in read_until(sock, f'"card":"{card}"'.encode())


def test_a_long_poll_held_by_the_stream_replica_hears_a_cancel_made_on_the_rest(topology):
    balancer, _, _ = topology
    player = requests.post(f"{balancer.url}/players", json={"name": "Ann"}, timeout=10).json()
    sought = requests.post(f"{balancer.url}/seeks", json={"players": 2},
                           headers=bearer(player["token"]), timeout=10).json()  # fmt: skip
    with socket.create_connection(("127.0.0.1", balancer.port), timeout=10) as sock:
        sock.sendall(f"GET /seeks/{sought['id']}?wait=25 HTTP/1.1\r\nHost: a\r\n"
                     f"Authorization: Bearer {player['token']}\r\n\r\n".encode())  # fmt: skip
        time.sleep(0.5)
        started = time.monotonic()
        cancelled = requests.delete(f"{balancer.url}/seeks/{sought['id']}",
                                    headers=bearer(player["token"]), timeout=10)  # fmt: skip
        assert cancelled.status_code == 204
        answer = read_until(sock, b'"status":"cancelled"')
        assert b'"status":"cancelled"' in answer and time.monotonic() - started < 6
