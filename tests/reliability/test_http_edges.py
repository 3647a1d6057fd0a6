"""What gunicorn refuses before the app sees it is problem+json too: an over-long request line
(414), too many or too large headers (431), a request that is not HTTP (400). Run against real
gunicorn with gunicorn.conf.py, for each worker class the mixin of app/server/workers.py
supports, and against the entrance (uvicorn's worker, which parses requests itself)."""

from __future__ import annotations

import importlib.util
import json
import socket
from pathlib import Path

import pytest

from .servers import Gunicorn, migrate
from .support import problem_errors

pytestmark = pytest.mark.slow

WORKER_CLASSES = [
    "sync",
    "gthread",
    pytest.param(
        "gevent",
        marks=pytest.mark.skipif(
            importlib.util.find_spec("gevent") is None, reason="gevent is not installed"
        ),
    ),
]


@pytest.fixture(scope="module", params=WORKER_CLASSES)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    folder: Path = tmp_path_factory.mktemp("http-edges")
    url = f"sqlite:///{folder / 'basra.sqlite3'}"
    migrate(url)
    gunicorn = Gunicorn(url, folder, workers=1)
    gunicorn.env["GUNICORN_WORKER_CLASS"] = request.param
    gunicorn.env["GUNICORN_THREADS"] = "1" if request.param == "sync" else "4"  # else gthread
    expected = {"sync": "ProblemSyncWorker", "gthread": "ProblemThreadWorker",
                "gevent": "ProblemGeventWorker"}[request.param]  # fmt: skip
    try:
        gunicorn.start()
        if f"Using worker: {expected}" not in gunicorn.log():
            pytest.skip(f"gunicorn.conf.py does not take GUNICORN_WORKER_CLASS={request.param}")
        yield gunicorn
    finally:
        gunicorn.stop()


def _raw(server: Gunicorn, request: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    raw = b"".join(chunks)
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


def _assert_problem(answer: tuple[int, dict[str, str], bytes], status: int, code: str) -> None:
    got, headers, body = answer
    assert got == status, (got, body[:300])
    assert problem_errors(got, headers.get("content-type", ""), body) == []
    assert json.loads(body)["code"] == code


def test_a_request_line_over_gunicorns_limit_is_a_414_problem(server):
    path = "/games/" + "x" * 5000
    answer = _raw(server, f"GET {path} HTTP/1.1\r\nHost: a\r\n\r\n".encode())
    _assert_problem(answer, 414, "uri_too_long")


def test_a_header_over_gunicorns_size_limit_is_a_431_problem(server):
    request = "GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: " + "y" * 9000 + "\r\n\r\n"
    _assert_problem(_raw(server, request.encode()), 431, "header_fields_too_large")


def test_more_headers_than_gunicorn_reads_is_a_431_problem(server):
    many = "".join(f"X-H{n}: v\r\n" for n in range(150))
    request = f"GET /healthz HTTP/1.1\r\nHost: a\r\n{many}\r\n"
    _assert_problem(_raw(server, request.encode()), 431, "header_fields_too_large")


def test_a_request_that_is_not_http_is_a_400_problem(server):
    _assert_problem(_raw(server, b"HELLO\r\n\r\n"), 400, "bad_request")


def test_the_server_still_answers_normally_after_those(server):
    status, _, body = _raw(server, b"GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    assert status == 200 and json.loads(body) == {"status": "ok"}


@pytest.fixture(scope="module")
def entrance(tmp_path_factory: pytest.TempPathFactory):
    folder: Path = tmp_path_factory.mktemp("http-edges-entrance")
    url = f"sqlite:///{folder / 'basra.sqlite3'}"
    migrate(url)
    gunicorn = Gunicorn(url, folder, workers=1)  # app.asgi:app, as `make run` serves it
    try:
        gunicorn.start()
        yield gunicorn
    finally:
        gunicorn.stop()


@pytest.mark.parametrize("request_bytes", [b"HELLO\r\n\r\n", b"GET / HTTP/1.1\r\nHo st: a\r\n\r\n"])
def test_on_the_entrance_a_request_that_is_not_http_is_a_400_problem(entrance, request_bytes):
    _assert_problem(_raw(entrance, request_bytes), 400, "bad_request")
    status, _, body = _raw(
        entrance, b"GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
    )
    assert status == 200 and json.loads(body) == {"status": "ok"}
