"""Gunicorn workers that refuse what gunicorn itself refuses as problem+json, like the app.

Gunicorn parses the request line and headers before the app sees them, and answers an
over-long request line (414), too many or too large headers (431) or a malformed request
(400) with a text/html page of its own. ``with_problem_errors`` makes a subclass of any worker
class (sync, gthread, gevent, ...) whose ``handle_error`` (the documented hook of a custom
worker class) answers those as application/problem+json with the code of ``app.api.errors``.
gunicorn.conf.py applies it to whatever ``worker_class`` it chose:

    worker_class = with_problem_errors(worker_class, threads)

For the threaded worker it also closes the connections it does not keep alive on a thread of
its pool (``PooledClosesMixin``), so that a client slow to close cannot stall the worker's loop.

Slow clients (a head or a body that trickles in, an answer not read, a socket never closed)
are the buffering proxy's to hold, in front of gunicorn as its deployment docs ask:
deploy/haproxy.cfg.
"""

from __future__ import annotations

import json
from typing import Any

from gunicorn.http import errors as http_errors
from gunicorn.util import load_class, write_nonblock
from gunicorn.workers.gthread import ThreadWorker

# gunicorn's exception -> our problem code (statuses and titles come from app.api.errors).
_CODES: tuple[tuple[type[BaseException], str], ...] = (
    (http_errors.LimitRequestLine, "uri_too_long"),
    (http_errors.LimitRequestHeaders, "header_fields_too_large"),
    (
        (
            http_errors.InvalidRequestLine,
            http_errors.InvalidRequestMethod,
            http_errors.InvalidHTTPVersion,
            http_errors.InvalidHeader,
            http_errors.InvalidHeaderName,
            http_errors.InvalidSchemeHeaders,
            http_errors.ObsoleteFolding,
            http_errors.InvalidChunkSize,
            http_errors.ChunkMissingTerminator,
            http_errors.InvalidChunkExtension,
        ),  # type: ignore[assignment]
        "bad_request",
    ),
)
_DETAILS = {
    "uri_too_long": "the request line is longer than this server reads",
    "header_fields_too_large": "the request's headers are too many or too large",
    "bad_request": "the request is not well-formed HTTP",
}


def problem_code(error: BaseException) -> str | None:
    for kinds, code in _CODES:
        if isinstance(error, kinds):
            return code
    return None


def problem_response(code: str) -> bytes:
    """A whole HTTP/1.1 answer: status line, headers, problem document; the connection closes."""
    from app.api.errors import PROBLEM_JSON, PROBLEMS  # the one table of codes

    status, title = PROBLEMS[code]
    body = json.dumps({"type": f"/problems/{code}", "title": title, "status": status,
                       "detail": _DETAILS[code], "code": code}).encode()  # fmt: skip
    head = (
        f"HTTP/1.1 {status} {title}\r\n"
        f"Content-Type: {PROBLEM_JSON}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


class ProblemErrorsMixin:
    """Put before a gunicorn worker class: its parse errors become problem+json."""

    log: Any

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        code = problem_code(exc)
        if code is None:
            super().handle_error(req, client, addr, exc)  # type: ignore[misc]
            return
        ip = (addr or ("",))[0]
        self.log.warning("Invalid request from ip=%s: %s (%s)", ip, type(exc).__name__, code)
        try:
            write_nonblock(client, problem_response(code))
        except Exception:
            self.log.debug("Failed to send error message.")


class PooledClosesMixin:
    """Put before gunicorn's threaded worker: a connection it does not keep alive is closed on a
    thread of its pool, not in its loop.

    The threaded worker closes such a connection (an HTTP/1.0 request, ``Connection: close``, a
    stream that ended) gracefully: it half-closes, then waits up to 2 s for the client to close
    its side (``gunicorn.util.close_graceful``), and it does so in the loop that accepts,
    dispatches and reports to the arbiter. Clients that keep their sockets open after the answer
    stalled that loop 2 s each, one after another; fifteen of them kept the worker silent past
    its 30 s timeout, and the arbiter killed it with every connection it held.
    ``finish_request`` is the worker's callback for a request done; only its closing branch
    changes (tests/reliability/test_closing_connections.py)."""

    nr_conns: int
    tpool: Any

    def finish_request(self, conn: Any, fs: Any) -> None:
        if not fs.cancelled() and fs.exception() is None and fs.result() is False:
            self.nr_conns -= 1
            try:
                self.tpool.submit(conn.close, True)  # graceful: the wait is the pool thread's
            except RuntimeError:  # the pool is shut down (the worker is stopping): close now
                conn.close()
            return
        super().finish_request(conn, fs)  # type: ignore[misc]


def _resolve(worker_class: str | type, threads: int) -> type:
    """The class gunicorn would run for this setting (a sync worker with threads is gthread)."""
    sync = ("sync", "gunicorn.workers.sync.SyncWorker")
    if isinstance(worker_class, str) and worker_class in sync and threads > 1:
        worker_class = "gthread"
    loaded: type = load_class(worker_class)
    return loaded


def with_problem_errors(worker_class: str | type, threads: int = 1) -> type:
    base = _resolve(worker_class, threads)
    if issubclass(base, ProblemErrorsMixin):
        return base
    mixins: tuple[type, ...] = (ProblemErrorsMixin,)
    if issubclass(base, ThreadWorker):
        mixins += (PooledClosesMixin,)
    return type(f"Problem{base.__name__}", (*mixins, base), {"__module__": __name__})
