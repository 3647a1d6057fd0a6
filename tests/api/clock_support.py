"""Helpers for the deadline tests: sweeping at a chosen moment, reading the clock fields."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from .support import events


def later(seconds: float) -> datetime:
    return datetime.now(UTC) + timedelta(seconds=seconds)


def sweep(app: Any, at: datetime) -> int:
    """Sweeps of the app's sweeper as if it were ``at`` until nothing is due (the thread is
    not running in tests: this is the very function it calls on its timer). One sweep
    settles at most ``SWEEP_BATCH`` games, and every game with a human seat has a deadline:
    a test that sweeps a day ahead finds the idle games of the tests before it due too."""
    swept = 0
    while more := app.extensions["basra_sweeper"].sweep_once(at):
        swept += int(more)
    return swept


@contextlib.contextmanager
def clock_at(app: Any, at: datetime) -> Iterator[None]:
    """Requests made inside see ``at`` as the time (the check on every load)."""
    before = app.config["CLOCK"]
    app.config["CLOCK"] = lambda: at
    try:
        yield
    finally:
        app.config["CLOCK"] = before


def parse_deadline(text: str) -> datetime:
    assert text.endswith("Z"), text
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def kinds(client: Any, game_id: str) -> list[str]:
    return [event["type"] for event in events(client, game_id)]


def verified(client: Any, game_id: str) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"/games/{game_id}/verify").get_json()
    assert body["ok"], body
    return body
