"""Shared by the reliability tests: problem documents, card codes, reports, and the log checks."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "test-results" / "reliability"
PROBLEM_JSON = "application/problem+json"

# The codes of API.md, plus the HTTP-level ones the app adds (405, 406, 415, a lost race, 503).
CODES_BY_STATUS: dict[int, set[str]] = {
    400: {"bad_request"},
    401: {"unauthorized"},
    403: {"forbidden"},
    404: {"not_found"},
    405: {"method_not_allowed"},
    406: {"not_acceptable"},
    409: {
        "not_your_turn",
        "game_not_active",
        "game_full",
        "game_not_finished",
        "game_not_over",
        "conflict",
    },
    412: {"version_mismatch"},
    413: {"payload_too_large"},
    414: {"uri_too_long"},
    415: {"unsupported_media_type"},
    422: {"invalid_request", "invalid_card", "card_not_in_hand", "idempotency_conflict"},
    429: {"rate_limited"},
    431: {"header_fields_too_large"},
    503: {"unavailable"},
}

# A card code as the API writes it, standing alone (not inside a token, an id or a hash).
CARD_CODE = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9AJQK])[SHDC](?![A-Za-z0-9])")


def problem_errors(status: int, content_type: str, raw: bytes) -> list[str]:
    """What is wrong with a refusal as a problem document of API.md (empty: nothing)."""
    if status < 400:
        return []
    wrong = []
    if content_type.split(";")[0].strip() != PROBLEM_JSON:
        wrong.append(f"{status} answered as {content_type!r}, not {PROBLEM_JSON}")
        return wrong
    try:
        body = json.loads(raw)
    except ValueError:
        return [f"{status} body is not JSON: {raw[:200]!r}"]
    if not isinstance(body, dict):
        return [f"{status} body is not an object"]
    missing = {"type", "title", "status", "detail", "code"} - set(body)
    if missing:
        wrong.append(f"{status} problem lacks {sorted(missing)}")
    if body.get("status") != status:
        wrong.append(f"problem status {body.get('status')} differs from the HTTP status {status}")
    allowed = CODES_BY_STATUS.get(status)
    if allowed is None:
        wrong.append(f"status {status} is not one API.md or the app defines")
    elif body.get("code") not in allowed:
        wrong.append(f"{status} with code {body.get('code')!r}, expected one of {sorted(allowed)}")
    return wrong


def assert_problem(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """A Flask test-client or requests response is the problem document expected."""
    data = response.data if hasattr(response, "data") else response.content
    content_type = response.headers.get("Content-Type", "")
    assert response.status_code == status, (response.status_code, data[:400])
    assert problem_errors(status, content_type, data) == []
    body: dict[str, Any] = json.loads(data)
    if code is not None:
        assert body["code"] == code, body
    return body


def card_codes(value: Any, skip_keys: Iterable[str] = ("token",)) -> set[str]:
    """Every card code anywhere in a JSON value: whole strings, and codes inside prose."""
    skip = set(skip_keys)
    found: set[str] = set()

    def walk(item: Any) -> None:
        if isinstance(item, dict):
            for key, inner in item.items():
                if key not in skip:
                    walk(inner)
        elif isinstance(item, list):
            for inner in item:
                walk(inner)
        elif isinstance(item, str):
            found.update(CARD_CODE.findall(item))

    walk(value)
    return found


def check_log(events: list[dict[str, Any]]) -> list[str]:
    """What is wrong with a game's whole event log: gaps, repeats, a card played twice."""
    wrong = []
    seqs = [event["seq"] for event in events]
    if seqs != list(range(1, len(seqs) + 1)):
        wrong.append(f"the log's seqs are not 1..{len(seqs)}: {seqs[:20]}...")
    moves = [event["data"] for event in events if event["type"] == "CardPlayed"]
    numbers = [move["n"] for move in moves]
    if numbers != list(range(1, len(numbers) + 1)):
        wrong.append(f"the moves are not numbered 1..{len(numbers)}")
    played: set[tuple[int, str]] = set()
    for move in moves:
        key = (move["round"], move["card"])
        if key in played:
            wrong.append(f"{move['card']} was played twice in round {move['round']}")
        played.add(key)
    return wrong


def write_report(name: str, data: dict[str, Any]) -> None:
    """The counts behind docs/reliability.md: test-results/reliability/<name>.json."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / f"{name}.json").write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# Where the tests that share rate-limit counts between processes keep them: a database of the
# machine's Redis of their own, one for each worker of `pytest -n` (15 for gw0, 14 for gw1...),
# emptied by each such test, so that tests on two workers never empty each other's counts.
# Without Redis they skip, but in CI, which starts it, they fail.
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
REDIS_URL = f"redis://127.0.0.1:6379/{15 - _WORKER % 8}"


def fresh_redis() -> str:
    """REDIS_URL, emptied: no count of an earlier test or run is left in it."""
    import pytest
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.flushdb()
    except redis.exceptions.ConnectionError:
        message = f"Redis does not answer at {REDIS_URL}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    finally:
        client.close()
    return REDIS_URL
