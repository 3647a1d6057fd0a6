"""How snapshots and log entries become JSON text: orjson, several times faster than the
standard library on every move's snapshot (docs/performance.md), with the same documents."""

from __future__ import annotations

from typing import Any

import orjson


def json_bytes(value: Any) -> bytes:
    # Keys that are not strings become strings, as the standard library's json.dumps does.
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def json_text(value: Any) -> str:
    return json_bytes(value).decode()
