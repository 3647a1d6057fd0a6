"""Slow clients meet the shipped proxy, not gunicorn: deploy/haproxy.cfg in front of one gunicorn
worker with eight threads, as in production. A head or a body that trickles in waits at HAProxy
(``option http-buffer-request``, ``timeout http-request``), and one address holds at most its
share of connections; the worker's threads stay free for everyone else. The clients here come
from several loopback addresses (127.0.0.0/8 is all loopback), so that the proxy's per-address
cap does not hide what the worker would do."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .balancer import HAProxy, haproxy
from .servers import Gunicorn, fresh_sqlite, gunicorn
from .support import problem_errors

pytestmark = pytest.mark.slow

THREADS = 8
PER_ADDRESS = 6  # the cap these tests run HAProxy with (deploy/haproxy.cfg: 100 by default)
HEAD = b"POST /games HTTP/1.1\r\nHost: basra\r\nContent-Type: application/json\r\n"
GAME = json.dumps({"players": [{"name": "Ann"}, {"bot": "greedy"}]}).encode()
SOMEONE_ELSE = "127.0.0.2"  # an address of its own: its connections count apart


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HAProxy, Gunicorn]]:
    log_dir, url = fresh_sqlite(tmp_path_factory, "slow-clients")
    threads = {"GUNICORN_THREADS": str(THREADS)}  # a REST replica, as behind the proxy
    with gunicorn(url, log_dir, workers=1, env=threads, app="app.wsgi:app") as server:
        upstream = f"127.0.0.1:{server.port}"
        limit = {"LB_CONNECTIONS_PER_ADDRESS": str(PER_ADDRESS)}
        with haproxy([upstream, upstream], log_dir, limit) as balancer:
            balancer.wait_for({"api-1": "UP", "api-2": "UP"})
            yield balancer, server


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))


def sent(port: int, data: bytes, source: str = "127.0.0.1") -> socket.socket:
    client = connect(port, source)
    try:
        client.sendall(data)
    except BaseException:  # reset before the request went out: close it here, not at GC
        client.close()
        raise
    return client


def whole_answer(client: socket.socket) -> bytes:
    answer = b""
    while chunk := client.recv(65536):
        answer += chunk
    return answer


def quick(port: int, source: str = SOMEONE_ELSE) -> float:
    """Seconds a /healthz took for a client at ``source``."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5,
                                            source_address=(source, 0))  # fmt: skip
    try:
        connection.request("GET", "/healthz")
        assert connection.getresponse().status == 200
    finally:
        connection.close()
    return time.monotonic() - started


def refused_at_once(port: int, source: str) -> bool:
    """Whether a new connection from ``source`` is closed or reset without an answer."""
    try:
        with sent(port, b"GET /healthz HTTP/1.0\r\n\r\n", source) as client:
            return client.recv(100) == b""
    except ConnectionError:
        return True


def posts_served(server: Gunicorn) -> int:
    """How many POST /games the app has logged (one JSON line a request)."""
    lines = [line for line in server.log().splitlines() if '"route": "/games"' in line]
    return sum('"method": "POST"' in line for line in lines)


def test_heads_and_bodies_that_stall_wait_at_the_proxy_and_get_408_there(
    proxied: tuple[HAProxy, Gunicorn],
) -> None:
    balancer, server = proxied
    stalls = [
        b"GET /healthz HTTP/1.1\r\nHost: basra\r\n",  # half a head
        HEAD + b"Transfer-Encoding: chunked\r\n\r\n1\r\n{",  # a chunked body, one byte of it
        HEAD + b"Content-Length: 2000\r\n\r\n" + GAME[:10],  # a body short of its length
    ]
    served = posts_served(server)
    # Three times as many as the worker has threads, each address up to its cap.
    sources = [f"127.0.0.{10 + n // PER_ADDRESS}" for n in range(3 * THREADS)]
    clients = [sent(balancer.port, stalls[n % 3], source) for n, source in enumerate(sources)]
    try:
        time.sleep(1)
        assert max(quick(balancer.port) for _ in range(5)) < 2  # through the proxy
        assert max(quick(server.port) for _ in range(5)) < 2  # and straight to the worker
        answers = [client.recv(200).split(b"\r\n", 1)[0] for client in clients]
        # HAProxy gave up on them after its `timeout http-request` (10 s), itself.
        assert all(b" 408 " in answer for answer in answers), answers
    finally:
        for client in clients:
            client.close()
    assert posts_served(server) == served  # no stalled request ever reached the worker


def test_a_request_sent_in_pieces_within_the_deadline_is_answered(
    proxied: tuple[HAProxy, Gunicorn],
) -> None:
    balancer, _ = proxied
    pieces = [b"%x\r\n%s\r\n" % (len(GAME[at : at + 7]), GAME[at : at + 7])
              for at in range(0, len(GAME), 7)]  # fmt: skip
    request = HEAD + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    request += b"".join(pieces) + b"0\r\n\r\n"
    with connect(balancer.port) as client:
        for start in range(0, len(request), 40):
            client.sendall(request[start : start + 40])
            time.sleep(0.05)
        answer = whole_answer(client)
    assert answer.startswith(b"HTTP/1.1 201"), answer[:200]


def test_an_address_whose_clients_do_not_read_holds_no_more_than_its_share(
    proxied: tuple[HAProxy, Gunicorn],
) -> None:
    """Each pipelines large answers and never reads them: its thread waits in a send until the
    proxy lets go of the client (`timeout client`). One address gets its cap of connections,
    fewer than the worker's threads, and is refused past it; others are served meanwhile."""
    balancer, _ = proxied
    asked = b"GET /docs/assets/swagger-ui-bundle.js HTTP/1.1\r\nHost: basra\r\n\r\n" * 20
    readers = []
    try:
        for _ in range(PER_ADDRESS):
            reader = socket.socket()
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before the handshake
            reader.settimeout(10)
            reader.bind(("127.0.0.3", 0))
            reader.connect(("127.0.0.1", balancer.port))
            reader.sendall(asked)
            readers.append(reader)
        time.sleep(1)
        assert refused_at_once(balancer.port, "127.0.0.3")  # past the cap
        assert max(quick(balancer.port) for _ in range(5)) < 2
    finally:
        for reader in readers:
            reader.close()


def test_clients_that_keep_their_sockets_after_the_answer_stall_nobody(
    proxied: tuple[HAProxy, Gunicorn],
) -> None:
    """HTTP/1.0 answers read to the end, the sockets then kept open and never closed: the proxy
    closes its side to the worker as soon as each answer is through."""
    balancer, _ = proxied
    started = time.monotonic()
    kept = []
    try:
        for n in range(20):
            lazy = sent(balancer.port, b"GET /healthz HTTP/1.0\r\n\r\n", f"127.0.0.{30 + n // 5}")
            assert whole_answer(lazy).startswith(b"HTTP/1.0 200")
            kept.append(lazy)
        assert max(quick(balancer.port) for _ in range(10)) < 1
        assert time.monotonic() - started < 5, "the lazy clients held the others up"
    finally:
        for lazy in kept:
            lazy.close()


def test_a_chunked_body_over_the_apps_limit_is_a_413_problem(
    proxied: tuple[HAProxy, Gunicorn],
) -> None:
    _, server = proxied  # straight to the worker: its own limit holds without the proxy too
    request = HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % 70_000 + b"x" * 70_000
    with sent(server.port, request) as client:
        answer = whole_answer(client)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413"), answer[:200]
    content_type = head.decode("latin-1").lower().split("content-type:")[1].split("\r\n")[0]
    assert problem_errors(413, content_type.strip(), body) == []


def test_a_keep_alive_connection_idle_for_three_seconds_is_still_served(
    proxied: tuple[HAProxy, Gunicorn],
) -> None:
    """gunicorn.conf.py keeps an idle connection 5 s (gunicorn's own default, 2 s, closed it
    under clients that paused between requests, who then lost the request they had just sent)."""
    _, server = proxied
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        for pause in (0, 3):
            time.sleep(pause)
            connection.request("GET", "/healthz")  # on the same connection, kept alive
            answer = connection.getresponse()  # RemoteDisconnected if it was closed
            assert (answer.status, answer.read()) == (200, b'{"status":"ok"}\n')
    finally:
        connection.close()


def test_the_proxy_config_buffers_bodies_the_app_accepts() -> None:
    """The proxy holds a whole body of the app's largest before a replica sees it."""
    from app.config import MAX_BODY_BYTES

    config = (Path(__file__).parents[2] / "deploy" / "haproxy.cfg").read_text()
    assert "option http-buffer-request" in config
    bufsize = int(config.split("tune.bufsize", 1)[1].split()[0])
    assert bufsize >= MAX_BODY_BYTES + 8 * 1024  # the body and a head of up to 8 KiB
