"""Gunicorn workers that refuse what gunicorn itself refuses as problem+json, like the app, and
(the threaded worker) close finished connections without stalling their event loop.

Gunicorn parses the request line and headers before the app sees them, and answers an
over-long request line (414), too many or too large headers (431) or a malformed request
(400) with a text/html page of its own. ``with_problem_errors`` makes a subclass of any worker
class (sync, gthread, gevent, ...) whose ``handle_error`` answers those as
application/problem+json with the code of ``app.api.errors``. gunicorn.conf.py applies it to
whatever ``worker_class`` it chose:

    worker_class = with_problem_errors(worker_class, threads)

A threaded (gthread) worker also gets ``EventLoopMixin``: its event loop reads requests and closes
connections without a thread waiting on the client (request_reading.py, lingering.py here).
"""

from __future__ import annotations

import json
import os
from contextlib import suppress
from typing import Any

from gunicorn.http import errors as http_errors
from gunicorn.http2 import negotiation
from gunicorn.util import load_class, write_nonblock
from gunicorn.workers.gthread import ThreadWorker

from app.config import MAX_BODY_BYTES
from app.server.lingering import LingeringCloses
from app.server.request_reading import RequestReader, Verdict

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
    "payload_too_large": "the request's body is larger than this server accepts",
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


class EventLoopMixin:
    """Put before gunicorn's ``ThreadWorker``: its event loop, not its threads, waits on clients.

    - A request is read by the loop (request_reading.py), and a pool thread is given to it
      once it is all in; one not in within ``REQUEST_READ_SECONDS`` (10 s) is closed.
    - A connection the pool is done with is closed by the loop without waiting for the client
      (lingering.py), instead of gunicorn's ``close_graceful``, which waited up to 2 s for
      the client on the loop's own thread.
    - A thread writes an answer for at most ``RESPONSE_SEND_SECONDS`` (30 s) to a client that
      does not read it; then the connection is closed and the thread is free again.
    """

    poller: Any
    nr_conns: int
    cfg: Any
    _closes: LingeringCloses | None = None
    _reader: RequestReader | None = None

    def enqueue_req(self, conn: Any) -> None:
        # Bytes already parsed ahead (a pipelined request) or TLS (read by the thread, which
        # does the handshake) go to the pool as gunicorn sends them.
        ahead = conn.parser is not None and conn.parser.unreader.buf.getvalue()
        if ahead or self.cfg.is_ssl or negotiation.prior_knowledge_allowed(self.cfg, conn.client):
            super().enqueue_req(conn)  # type: ignore[misc]
            return
        self._requests().read(conn)

    def handle(self, conn: Any) -> Any:
        # In a pool thread: the bytes the loop read go back to gunicorn's parser first.
        early = getattr(conn, "read_by_loop", b"")
        if early:
            conn.read_by_loop = b""
            conn.init()  # makes the parser (gunicorn's own handle() then finds it made)
            conn.parser.unreader.unread(early)
        return super().handle(conn)  # type: ignore[misc]

    def handle_request(self, req: Any, conn: Any) -> Any:
        # gunicorn's handle() makes the socket blocking before each request, which clears any
        # timeout; set here, it bounds each whole sendall of the answer (and of a stream's
        # catching up), however slowly the client takes it.
        conn.sock.settimeout(_send_seconds())
        try:
            return super().handle_request(req, conn)  # type: ignore[misc]
        except TimeoutError:
            self.log.warning(  # type: ignore[attr-defined]
                "Closed a connection whose client did not read its answer within %s s",
                _send_seconds(),
            )
            return False

    def finish_request(self, conn: Any, done: Any) -> None:
        # gunicorn's own finish_request closes gracefully exactly when the request's handler
        # returned a false value (not keep-alive, not deferred); everything else stays its.
        if done.cancelled() or (done.exception() is None and not done.result()):
            self.nr_conns -= 1
            self._lingering().close(conn.sock)
            return
        super().finish_request(conn, done)  # type: ignore[misc]

    def murder_pending(self) -> None:
        # Called on every turn of the event loop (at least once a second), as is its name's job.
        super().murder_pending()  # type: ignore[misc]
        if self._reader is not None:
            self._reader.expire()
        if self._closes is not None:
            self._closes.expire()

    def run(self) -> None:
        try:
            super().run()  # type: ignore[misc]
        finally:
            if self._reader is not None:
                self._reader.close_all()
            if self._closes is not None:
                self._closes.close_all()

    def _request_in(self, conn: Any, data: bytes) -> None:
        conn.read_by_loop, conn.data_ready = data, True
        super().enqueue_req(conn)  # type: ignore[misc]

    def _request_refused(self, conn: Any, verdict: Verdict) -> None:
        self.nr_conns -= 1
        refusal = {Verdict.TOO_LARGE: "header_fields_too_large",
                   Verdict.BODY_TOO_LARGE: "payload_too_large"}.get(verdict)  # fmt: skip
        if refusal is not None:
            with suppress(OSError):
                conn.sock.send(problem_response(refusal))
        self._lingering().close(conn.sock)

    def _requests(self) -> RequestReader:
        if self._reader is None:  # the poller is made when the worker process starts
            seconds = float(os.environ.get("REQUEST_READ_SECONDS") or 10)
            self._reader = RequestReader(
                self.poller, self._request_in, self._request_refused, seconds,
                max_body=MAX_BODY_BYTES,
            )  # fmt: skip
        return self._reader

    def _lingering(self) -> LingeringCloses:
        if self._closes is None:
            self._closes = LingeringCloses(self.poller)
        return self._closes


def _send_seconds() -> float:
    return float(os.environ.get("RESPONSE_SEND_SECONDS") or 30)


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
        mixins += (EventLoopMixin,)
    return type(f"Problem{base.__name__}", (*mixins, base), {"__module__": __name__})
