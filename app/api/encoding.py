"""Answers encoded with orjson: the view of a game late in a long match is several KB, and
the standard library's encoder was a tenth of a move's CPU (docs/performance.md)."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Flask, Response
from flask.json.provider import JSONProvider, _default

from app.services.ready_json import ReadyJson, ready_json_default

# Dates go through Flask's own ``_default`` (an HTTP date), exactly as before; orjson calls
# it for every type it does not know. Dict keys keep their order (``sort_keys = False``).
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


def _default_or_ready(value: Any) -> Any:
    """A game's stored rounds (``ReadyJson``) go out as the JSON they are stored as."""
    if isinstance(value, ReadyJson):
        return ready_json_default(value)
    return _default(value)


class OrjsonProvider(JSONProvider):
    """Flask's JSON provider over orjson: the same documents, compact, UTF-8."""

    mimetype = "application/json"

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj, default=_default_or_ready, option=_OPTIONS).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        # Bytes straight into the response: no str round trip for the largest answers.
        obj = self._prepare_response_obj(args, kwargs)
        body = orjson.dumps(
            obj, default=_default_or_ready, option=_OPTIONS | orjson.OPT_APPEND_NEWLINE
        )
        return Response(body, mimetype=self.mimetype)


def install(app: Flask) -> None:
    app.json = OrjsonProvider(app)
