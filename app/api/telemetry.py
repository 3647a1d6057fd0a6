"""Every request gets a request id, a log line and its share of the metrics; here, once.

The id is the client's own ``X-Request-ID`` when it is sane (1 to 128 of ``[A-Za-z0-9._-]``),
else a new one; every answer carries it back and every problem document repeats it.

Labels and log fields are chosen to be bounded and harmless: the URL rule (``/games/<game_id>``),
never the raw path or the query string; the game id, which is public; no header, no body. So a
token, a seed or a card never reaches a log line or a metric.
"""

from __future__ import annotations

import os
import re
from time import perf_counter

from flask import Flask, Response, g, has_request_context, request

from app.observability import logs, metrics

REQUEST_ID_HEADER = "X-Request-ID"
_SANE_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
_SANE_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# The header as openapi.yaml documents it, on every operation and every answer.
REQUEST_ID = {
    "description": (
        "The request's id: the client's own `X-Request-ID` when it is 1 to 128 characters of "
        "`[A-Za-z0-9._-]`, else a new one. Problem documents repeat it as `request_id`; quote "
        "it when you report a problem"
    ),
    "schema": {"type": "string"},
}


def request_id() -> str | None:
    """This request's id (None outside a request), made on first use."""
    if not has_request_context():
        return None
    rid: str | None = g.get("request_id")
    if rid is None:
        given = request.headers.get(REQUEST_ID_HEADER)
        rid = given if given is not None and _SANE_ID.fullmatch(given) else os.urandom(16).hex()
        g.request_id = rid
    return rid


def install(app: Flask) -> None:
    """Before any other hook (the rate limiter's 429 must already have an id)."""
    logs.configure()
    metrics.process_started()
    log = logs.request_logger()

    @app.before_request
    def start() -> None:
        g.request_started = perf_counter()
        request_id()

    @app.after_request
    def finish(response: Response) -> Response:
        seconds = perf_counter() - g.get("request_started", perf_counter())
        rid = request_id()
        response.headers[REQUEST_ID_HEADER] = rid
        rule = request.url_rule
        route = rule.rule if rule is not None else metrics.UNMATCHED_ROUTE
        metrics.request_answered(request.method, route, response.status_code, seconds)
        metrics.refresh_process_info()
        log.info(
            "request",
            request_id=rid,
            method=request.method,
            route=route,
            status=response.status_code,
            duration_ms=round(seconds * 1000, 2),
            game_id=_game_id(response),
        )
        return response


def _game_id(response: Response) -> str | None:
    game_id = (request.view_args or {}).get("game_id")
    if game_id is None and response.status_code == 201 and request.path == "/games":
        game_id = (response.headers.get("Location") or "").rpartition("/")[2] or None
    if game_id is not None and not _SANE_GAME_ID.fullmatch(game_id):
        return "(malformed)"
    return game_id
