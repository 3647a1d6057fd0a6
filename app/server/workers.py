"""Gunicorn workers that refuse what gunicorn itself refuses as problem+json, like the app.

Gunicorn parses the request line and headers before the app sees them, and answers an
over-long request line (414), too many or too large headers (431) or a malformed request
(400) with a text/html page of its own. ``with_problem_errors`` makes a subclass of any worker
class (sync, gthread, gevent, ...) whose ``handle_error`` (the documented hook of a custom
worker class) answers those as application/problem+json with the code of ``app.api.errors``.
gunicorn.conf.py applies it to whatever ``worker_class`` it chose:

    worker_class = with_problem_errors(worker_class, threads)

The entrance on an event loop (app/asgi.py) runs ``LoopWorker``: uvicorn's worker for
gunicorn, with uvloop and httptools, and no access log of its own (the app writes one line per
request, app/observability/logs.py). uvicorn parses the requests there, and its refusal of one
that is not well-formed HTTP is the same problem document (``ProblemHttpToolsProtocol``).

Slow clients (a head or a body that trickles in, an answer not read, a socket never closed)
are the buffering proxy's to hold, in front of gunicorn as its deployment docs ask:
deploy/haproxy.cfg.
"""

from __future__ import annotations

import json
import logging
from typing import Any, ClassVar

from gunicorn.http import errors as http_errors
from gunicorn.util import load_class, write_nonblock
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn_worker import UvicornWorker

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


class ProblemHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, whose answer to a request that is not well-formed HTTP
    (its ``send_400_response``, plain text) is the app's problem document, as on gunicorn's own
    workers; uvicorn's Config takes a protocol class for ``http``."""

    def send_400_response(self, msg: str) -> None:
        self.transport.write(problem_response("bad_request"))
        self.transport.close()


class LoopWorker(UvicornWorker):
    """uvicorn's worker, set as its documented ``CONFIG_KWARGS`` allow; its access log only when
    gunicorn's is asked for (``ACCESS_LOG=1``), and then under gunicorn's access log's name."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.cfg.accesslog is not None:
            access = logging.getLogger("uvicorn.access")
            access.handlers = _handlers_of(self.log.access_log)
            access.setLevel(logging.INFO)
            access.addFilter(_named_as_gunicorns)

    CONFIG_KWARGS: ClassVar[dict[str, Any]] = {
        "loop": "uvloop",
        "http": ProblemHttpToolsProtocol,
        "access_log": False,
    }


def _handlers_of(logger: logging.Logger) -> list[logging.Handler]:
    """The handlers a record of ``logger`` reaches: its own, or its nearest ancestor's."""
    found: logging.Logger | None = logger
    while found is not None and not found.handlers and found.propagate:
        found = found.parent
    return list(found.handlers) if found is not None else []


def _named_as_gunicorns(record: logging.LogRecord) -> bool:
    record.name = "gunicorn.access"
    return True


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
    if issubclass(base, UvicornWorker):
        return base  # uvicorn parses the requests itself; gunicorn's parser never runs
    return type(f"Problem{base.__name__}", (ProblemErrorsMixin, base), {"__module__": __name__})
