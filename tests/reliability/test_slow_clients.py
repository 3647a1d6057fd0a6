"""Slow clients behind the shipped proxy: deploy/haproxy.cfg in front of one gunicorn worker with
four threads. Requests whose bodies stall, and more connections than one address may hold, wait
at HAProxy (``option http-buffer-request``, ``timeout http-request``, a per-address connection
cap); the worker's threads stay free for everyone else."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from .balancer import HAProxy, haproxy
from .servers import Gunicorn, fresh_sqlite, gunicorn

THREADS = 4
PER_ADDRESS = 12  # the cap these tests run HAProxy with (deploy/haproxy.cfg: 100 by default)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HAProxy, Gunicorn]]:
    log_dir, url = fresh_sqlite(tmp_path_factory, "slow-clients")
    env = {"GUNICORN_THREADS": str(THREADS)}
    with gunicorn(url, log_dir, workers=1, env=env) as server:
        upstream = f"127.0.0.1:{server.port}"
        limit = {"LB_CONNECTIONS_PER_ADDRESS": str(PER_ADDRESS)}
        with haproxy([upstream, upstream], log_dir, limit) as balancer:
            balancer.wait_for({"api-1": "UP", "api-2": "UP"})
            yield balancer, server


def stalled(port: int, head: bytes, body_start: bytes) -> socket.socket:
    """A connection that sends a request head and the first bytes of its body, then nothing."""
    client = socket.create_connection(("127.0.0.1", port), timeout=15)
    client.sendall(head + body_start)
    return client


def chunked_post(port: int) -> socket.socket:
    head = (b"POST /games HTTP/1.1\r\nHost: basra\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")  # fmt: skip
    return stalled(port, head, b"1\r\n{")


def short_post(port: int) -> socket.socket:
    head = (b"POST /games HTTP/1.1\r\nHost: basra\r\nContent-Type: application/json\r\n"
            b"Content-Length: 2000\r\n\r\n")  # fmt: skip
    return stalled(port, head, b'{"players"')


def quick(url: str) -> float:
    started = time.monotonic()
    assert requests.get(f"{url}/healthz", timeout=5).status_code == 200
    return time.monotonic() - started


@pytest.mark.slow
def test_stalled_bodies_wait_at_the_proxy_and_get_408_there(
    proxied: tuple[HAProxy, Gunicorn],
) -> None:
    balancer, server = proxied
    clients = [chunked_post(balancer.port) for _ in range(THREADS)]
    clients += [short_post(balancer.port) for _ in range(THREADS)]
    try:
        time.sleep(1)
        # Twice the worker's threads are stalled, and the worker answers at once, through the
        # proxy and directly: none of its threads waits on those bodies.
        assert max(quick(balancer.url) for _ in range(5)) < 2
        assert max(quick(server.url) for _ in range(5)) < 2
        # HAProxy gives up on them after its `timeout http-request` (10 s), itself.
        answers = []
        for client in clients:
            client.settimeout(15)
            answers.append(client.recv(200).split(b"\r\n", 1)[0])
        assert all(b" 408 " in answer for answer in answers), answers
    finally:
        for client in clients:
            client.close()
    assert "POST /games" not in server.log()  # no stalled request ever reached the worker


def refused_at_once(port: int) -> bool:
    """Whether a new connection is closed or reset without an answer."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
            client.settimeout(5)
            client.sendall(b"GET /healthz HTTP/1.1\r\nHost: basra\r\n\r\n")
            return client.recv(100) == b""
    except ConnectionError:
        return True


@pytest.mark.slow
def test_one_address_cannot_hold_every_connection(proxied: tuple[HAProxy, Gunicorn]) -> None:
    balancer, _ = proxied
    held = [socket.create_connection(("127.0.0.1", balancer.port), timeout=5)
            for _ in range(PER_ADDRESS)]  # fmt: skip
    try:
        time.sleep(0.5)
        assert refused_at_once(balancer.port)
    finally:
        for client in held:
            client.close()
    time.sleep(0.5)
    assert quick(balancer.url) < 2  # the address gets its share back once it lets go


def test_the_proxy_config_buffers_bodies_the_app_accepts() -> None:
    """The proxy holds a whole body of the app's largest before a replica sees it."""
    from app.config import MAX_BODY_BYTES

    config = (Path(__file__).parents[2] / "deploy" / "haproxy.cfg").read_text()
    assert "option http-buffer-request" in config
    bufsize = int(config.split("tune.bufsize", 1)[1].split()[0])
    assert bufsize >= MAX_BODY_BYTES + 8 * 1024  # the body and a head of up to 8 KiB
