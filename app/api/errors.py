"""Every refusal becomes application/problem+json (RFC 9457) here, and only here."""

from __future__ import annotations

import math
import time
from typing import Any

from flask import Flask, Response, current_app, json
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from app.api.telemetry import REQUEST_ID, REQUEST_ID_HEADER, request_id
from app.engine import EngineError
from app.observability import metrics
from app.services.errors import Backlogged, ServiceError, Unavailable

PROBLEM_JSON = "application/problem+json"

# code -> (HTTP status, title)
PROBLEMS: dict[str, tuple[int, str]] = {
    "bad_request": (400, "Malformed request"),
    "unauthorized": (401, "A valid seat or player token is required"),
    "forbidden": (403, "This token belongs to another game"),
    "player_required": (403, "Only a player's bearer may take a seat of a rated game"),
    "not_found": (404, "Not found"),
    "method_not_allowed": (405, "Method not allowed"),
    "not_acceptable": (406, "Not acceptable"),
    "not_your_turn": (409, "Not your turn"),
    "game_not_active": (409, "The game is not being played"),
    "game_full": (409, "The game is full"),
    "game_not_finished": (409, "The game is not finished"),
    "game_not_over": (409, "The game is not over yet"),
    "already_seated": (409, "This player already holds a seat of this game"),
    "conflict": (409, "The game changed while this request ran"),
    "already_seeking": (409, "This player is already seeking a game"),
    "seek_not_waiting": (409, "The seek is no longer waiting"),
    "version_mismatch": (412, "The game has moved on since that version"),
    "payload_too_large": (413, "Request body too large"),
    "uri_too_long": (414, "Request line too long"),
    "unsupported_media_type": (415, "Unsupported media type"),
    "invalid_request": (422, "The request does not match the schema"),
    "invalid_card": (422, "Not a card code"),
    "card_not_in_hand": (422, "That card is not in your hand"),
    "idempotency_conflict": (422, "Idempotency-Key reused with another body"),
    "rate_limited": (429, "Too many requests"),
    "header_fields_too_large": (431, "Request header fields too large"),
    "internal_error": (500, "Internal server error"),
    "unavailable": (503, "Service unavailable"),
}
_CODE_OF_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "version_mismatch",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    431: "header_fields_too_large",
    503: "unavailable",
}


class ApiError(Exception):
    """A refusal decided in the HTTP layer (malformed body, bad header, ...)."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


def problem(
    code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    status, title = PROBLEMS.get(code, (500, "Error"))
    body = {
        "type": f"/problems/{code}",
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }
    rid = request_id()
    if rid is not None:
        body["request_id"] = rid  # to find this refusal in the logs
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


class ProblemApi(Api):
    """flask-smorest's Api, answering its own errors as problem+json too."""

    def _register_responses(self) -> None:
        # Every operation's "default" response is a problem document, not smorest's own.
        # (register_api registers the Problem schema itself.)
        response = {
            "description": "Any other problem (RFC 9457): e.g. `internal_error` (500)",
            "headers": {REQUEST_ID_HEADER: dict(REQUEST_ID)},
            "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)

    def handle_http_exception(self, error: HTTPException) -> Response:
        status = error.code or 500
        code = _CODE_OF_STATUS.get(status, "internal_error" if status >= 500 else "bad_request")
        data = getattr(error, "data", None) or {}
        extra: dict[str, Any] = {}
        detail = error.description or PROBLEMS.get(code, (status, ""))[1]
        if "messages" in data:  # webargs: the fields that failed validation
            extra["errors"] = data["messages"].get("json", data["messages"])
            detail = "the request body or query does not match the schema"
            if status == 400:
                detail = "the request body is not valid JSON"
        headers: dict[str, str] = {}
        if status == 405:  # keep Allow, which the default handler drops
            allowed = getattr(error, "valid_methods", None) or []
            headers["Allow"] = ", ".join(sorted(allowed))
        if status == 429:
            metrics.rate_limited()
            headers["Retry-After"] = str(_retry_after(error))
            detail = f"rate limit exceeded ({error.description}); retry later"
        if status >= 500:
            detail = "the server could not answer this request"
        return problem(code, detail, headers, **extra)


def seconds_until(reset: float) -> int:
    """Retry-After for a limit that frees a slot at ``reset`` (a ``time.time()`` stamp): whole
    seconds, rounded up so that waiting them is always enough, and at least 1."""
    return max(1, math.ceil(reset - time.time()))


def _retry_after(error: HTTPException) -> int:
    """How long until the limit flask-limiter found full frees a slot: its window's reset time
    from the limiter's own count (the limit that refused and the keys it was counted under),
    not the window's length."""
    limit = getattr(error, "limit", None)
    limiter = current_app.extensions.get("basra_limiter")
    refused = limiter.current_limit if limiter is not None else None
    if refused is not None and refused.breached:
        reset, _ = refused.limiter.get_window_stats(refused.limit, *refused.request_args)
        return seconds_until(reset)
    try:  # no count to ask: the whole window is always enough
        return max(1, math.ceil(limit.limit.get_expiry()))  # type: ignore[union-attr]
    except (AttributeError, TypeError, ValueError):  # no limit object: a minute is safe
        return 60


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(EngineError)
    def engine_error(error: EngineError) -> Response:
        return problem(error.code, error.detail)

    @app.errorhandler(ServiceError)
    def service_error(error: ServiceError) -> Response:
        if isinstance(error, Unavailable):  # down or restarting: the pool reconnects soon
            cause = error.__cause__
            kind = type(getattr(cause, "orig", None) or cause or error).__name__
            app.logger.warning("database unavailable: %s", kind)
            metrics.database_error(kind)
            return problem(error.code, error.detail, {"Retry-After": "1"}, **error.extra)
        if isinstance(error, Backlogged):
            retry = {"Retry-After": str(error.retry_after_seconds)}
            return problem(error.code, error.detail, retry, **error.extra)
        return problem(error.code, error.detail, **error.extra)

    @app.errorhandler(ApiError)
    def api_error(error: ApiError) -> Response:
        return problem(error.code, error.detail, **error.extra)
