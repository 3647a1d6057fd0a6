"""Bounded reads: /events answers a page at a time (default 200, at most 1,000) and says where
the next page starts; /verify and /replay do at most one round's work per call after the
first, and a tampered log still fails /verify (the cache keys on the log's bytes)."""

from __future__ import annotations

import time
from typing import Any

import pytest

LONG = {"players": [{"bot": "random"}, {"bot": "random"}], "rules": {"target_score": 300}}


@pytest.fixture(scope="module")
def long_game(app: Any) -> str:
    """A finished game of some 10 rounds (600 events or so), played by the background runner."""
    client = app.test_client()
    game_id: str = client.post("/games", json=LONG).get_json()["id"]
    deadline = time.monotonic() + 300
    while client.get(f"/games/{game_id}").get_json()["status"] != "finished":
        assert time.monotonic() < deadline, "the long game did not finish"
        time.sleep(0.1)
    return game_id


def _walk(client: Any, game_id: str, **query: Any) -> tuple[list[dict[str, Any]], int]:
    events: list[dict[str, Any]] = []
    pages = 0
    after: int | None = query.pop("after", 0)
    while after is not None:
        page = client.get(f"/games/{game_id}/events", query_string={"after": after, **query})
        assert page.status_code == 200, page.get_json()
        body = page.get_json()
        events.extend(body["events"])
        pages += 1
        after = body["next_after"]
        if after is not None:
            assert after == body["events"][-1]["seq"]
    return events, pages


def test_events_come_in_pages_of_200_that_say_where_the_next_starts(client, long_game):
    first = client.get(f"/games/{long_game}/events").get_json()
    assert len(first["events"]) == 200 and first["next_after"] == 200
    events, pages = _walk(client, long_game)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert len(events) > 400 and pages == -(-len(events) // 200)


@pytest.mark.parametrize("limit", [1, 7, 1000])
def test_any_page_size_up_to_1000_walks_the_same_log(client, long_game, limit):
    whole, _ = _walk(client, long_game, limit=1000)
    events, pages = _walk(client, long_game, limit=limit)
    assert events == whole
    assert pages == max(1, -(-len(whole) // limit))


@pytest.mark.parametrize("limit", ["0", "1001", "x", "-5"])
def test_a_page_size_outside_1_to_1000_is_refused(client, long_game, limit):
    response = client.get(f"/games/{long_game}/events?limit={limit}")
    assert response.status_code == 422 and response.get_json()["code"] == "invalid_request"


def test_the_last_page_says_there_is_no_next(client, long_game):
    whole, _ = _walk(client, long_game, limit=1000)
    last = client.get(f"/games/{long_game}/events?after={len(whole) - 3}").get_json()
    assert [e["seq"] for e in last["events"]] == [len(whole) - 2, len(whole) - 1, len(whole)]
    assert last["next_after"] is None
