"""How snapshots and log entries become JSON text: orjson, several times faster than the
standard library on every move's snapshot (docs/performance.md), with the same documents."""

from __future__ import annotations

from typing import Any

import orjson

from app.services.ready_json import ready_json_default


def json_bytes(value: Any) -> bytes:
    # Keys that are not strings become strings, as the standard library's json.dumps does.
    # A view's stored rounds (a ReadyJson) are written as the JSON text they are.
    return orjson.dumps(value, default=ready_json_default, option=orjson.OPT_NON_STR_KEYS)


def json_text(value: Any) -> str:
    return json_bytes(value).decode()
