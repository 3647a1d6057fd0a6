"""Reading a request's parts: the bearer token, the JSON body, version headers, the
Idempotency-Key and the query; and refusing them only after the game and the token."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime
from functools import cache
from typing import Any, TypeVar

from flask import current_app, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from app.api.errors import ApiError
from app.api.schema_fields import NO_NUL_PATTERN
from app.config import MAX_BODY_BYTES
from app.services.ports import AbstractUnitOfWork

_BEARER = re.compile(r"^\s*Bearer\s+(\S+)\s*$", re.IGNORECASE)
# A version as If-Match / If-None-Match carry it ("12", W/"12", 12) or "*"; ASCII digits only.
# openapi.yaml documents the same pattern, so what it calls valid is exactly what is accepted.
VERSION_PATTERN = r'^[ \t]*(?:\*|(?:W/)?"?([0-9]{1,12})"?)[ \t]*$'
_VERSION = re.compile(VERSION_PATTERN)
MAX_IDEMPOTENCY_KEY = 255
T = TypeVar("T")


def bearer_token() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    match = _BEARER.match(header)
    if match is None:
        return ""  # present but not a bearer token: an unknown token, so 401
    return match.group(1)


def is_json_media_type(mimetype: str) -> bool:
    """application/json or any application/*+json (parameters such as charset aside)."""
    kind = mimetype.split(";", 1)[0].strip().lower()
    return kind == "application/json" or (
        kind.startswith("application/") and kind.endswith("+json")
    )


def check_json_media_type(raw: bytes) -> None:
    """A body must say it is JSON. A browser sends text/plain, a form type or (a Blob) no type
    at all without a CORS preflight, so taking those would let any web page act for a visitor."""
    declared = request.headers.get("Content-Type")
    if declared is None and not raw:
        return  # no body at all: the schema says what is missing
    if declared is None or not is_json_media_type(declared):
        raise ApiError(
            "unsupported_media_type",
            "the request body must be sent as Content-Type: application/json",
        )


def parse_json(raw: bytes) -> Any:
    """The body as JSON; 400 for anything that is not JSON text a server can store."""
    try:
        data = json.loads(raw or b"null")
        json.dumps(data, ensure_ascii=False).encode()  # "\ud800" parses, but is no text
    except RecursionError as error:  # e.g. 20,000 nested "[": deeper than any body of ours
        raise ApiError("bad_request", "the request body is nested too deeply") from error
    except ValueError as error:  # UnicodeError included
        raise ApiError("bad_request", f"the request body is not valid JSON: {error}") from error
    return data


def after_access(check_access: Callable[[], object], read: Callable[[], T]) -> T:
    """``read()`` the request's body, headers or query; if it is refused, first let
    ``check_access`` refuse the game (404) or the token (401/403), as API.md orders them.
    Only a refused request pays for that check."""
    try:
        return read()
    except (ApiError, HTTPException):  # HTTPException: 413 from reading the body
        check_access()
        raise


def json_body(schema: type[Schema]) -> dict[str, Any]:
    """The JSON body, parsed and validated (400, 413, 415 or 422 if it cannot be)."""
    raw = request.get_data(cache=True)  # 413 here when over MAX_CONTENT_LENGTH
    if len(raw) > MAX_BODY_BYTES:  # a chunked body, cut at the limit by werkzeug
        raise RequestEntityTooLarge()
    check_json_media_type(raw)
    data = parse_json(raw)
    if not isinstance(data, dict):
        raise ApiError(
            "invalid_request",
            "the request body must be a JSON object",
            errors={"_schema": ["expected a JSON object"]},
        )
    try:
        loaded: dict[str, Any] = _instance(schema).load(data)
    except ValidationError as error:
        raise ApiError(
            "invalid_request", "the request body does not match the schema", errors=error.messages
        ) from error
    return loaded


def version_header(name: str) -> int | None:
    value = request.headers.get(name)
    if value is None:
        return None
    match = _VERSION.fullmatch(value)
    if match is None:
        raise ApiError("bad_request", f'{name} must be a game version, e.g. "12"')
    return int(match.group(1)) if match.group(1) else None  # "*": any version


def idempotency_key() -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and not (
        1 <= len(key) <= MAX_IDEMPOTENCY_KEY and re.match(NO_NUL_PATTERN, key)
    ):
        raise ApiError(
            "invalid_request",
            "Idempotency-Key must be 1 to 255 characters, none of them NUL",
            errors={"Idempotency-Key": ["1 to 255 characters, no NUL"]},
        )
    return key


def query(schema: type[Schema]) -> dict[str, Any]:
    try:
        loaded: dict[str, Any] = _instance(schema).load(request.args.to_dict())
    except ValidationError as error:
        raise ApiError(
            "invalid_request", "the query does not match the schema", errors=error.messages
        ) from error
    return loaded


@cache
def _instance(schema: type[Schema]) -> Schema:
    """One instance of each schema for every request: making one copies all its fields,
    which cost a move more than reading its body. Loading keeps no state in the instance
    (marshmallow 4 has no context), so threads can share it."""
    return schema()


def unit_of_work(from_images: bool = False) -> AbstractUnitOfWork:
    """A unit of work for this request (the app factory decides which kind). ``from_images``:
    a game may be loaded from this process's image of it (a move: app/services/game_images.py)."""
    uow: AbstractUnitOfWork = current_app.extensions["basra_uow"](from_images)
    return uow


def clock_now() -> datetime:
    """The time as the app's clock says (tests may set ``CLOCK``)."""
    now: datetime = current_app.config["CLOCK"]()
    return now
