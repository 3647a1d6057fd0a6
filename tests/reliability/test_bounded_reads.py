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


# ---------------------------------------------------------------- verify and replay
class CountApplies:
    """Counts the events the audit replays (app.services.audit_cache and audit use ``apply``)."""

    def __init__(self, monkeypatch: Any) -> None:
        from app.services import audit_cache, log

        self.count = 0

        def counting(state: Any, event: Any) -> None:
            self.count += 1
            real(state, event)

        real = audit_cache.apply
        monkeypatch.setattr(audit_cache, "apply", counting)
        monkeypatch.setattr(log, "apply", counting)  # the one replay loop (log.replay_log)

    def take(self) -> int:
        count, self.count = self.count, 0
        return count


ROUND_EVENTS = 60  # a round of 2 seats: 48 moves, 6 deals, a score, and a little more


def test_verify_replays_the_log_once_then_only_what_changed(client, long_game, monkeypatch):
    from app.services import audit_cache

    audit_cache.forget(long_game)
    applies = CountApplies(monkeypatch)
    first = client.get(f"/games/{long_game}/verify").get_json()
    assert first["ok"] is True and applies.take() > 400
    again = client.get(f"/games/{long_game}/verify").get_json()
    assert again == first
    assert applies.take() <= ROUND_EVENTS  # the last round at most


def test_replay_of_any_step_replays_at_most_one_round_after_the_first_call(
    client, long_game, monkeypatch
):
    applies = CountApplies(monkeypatch)
    total = client.get(f"/games/{long_game}/replay?step=0").get_json()["moves"]
    applies.take()
    for step in (0, 1, total // 3, total // 2, total - 1, total):
        body = client.get(f"/games/{long_game}/replay?step={step}").get_json()
        assert body["step"] == step
        assert applies.take() <= ROUND_EVENTS, step


def test_cached_replay_states_are_those_of_a_replay_from_the_start(client, long_game):
    from app.services import audit_cache

    total = client.get(f"/games/{long_game}/replay?step=0").get_json()["moves"]
    steps = [0, 1, 47, 48, 49, total // 2, total - 1, total]
    cached = [client.get(f"/games/{long_game}/replay?step={s}").get_json() for s in steps]
    uncached = []
    for step in steps:
        audit_cache.forget()
        uncached.append(client.get(f"/games/{long_game}/replay?step={step}").get_json())
    assert cached == uncached


def _tamper(app: Any, game_id: str, seq: int) -> None:
    from sqlalchemy import select, update

    from app.persistence import EventRow

    table = EventRow.__table__
    with app.extensions["basra_db"].engine.begin() as connection:
        data = connection.execute(
            select(table.c.data).where(table.c.game_id == game_id, table.c.seq == seq)
        ).scalar_one()
        connection.execute(
            update(table)
            .where(table.c.game_id == game_id, table.c.seq == seq)
            .values(data={**data, "tampered": True})
        )


@pytest.mark.parametrize("where", ["early", "middle", "last"])
def test_a_log_tampered_after_it_was_cached_still_fails_verify(app, client, where):
    body = client.post("/games", json={**LONG, "rules": {"target_score": 150}}).get_json()
    game_id = body["id"]
    deadline = time.monotonic() + 300
    while client.get(f"/games/{game_id}").get_json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    verdict = client.get(f"/games/{game_id}/verify").get_json()  # cached from here on
    assert verdict["ok"] is True
    events = verdict["checks"]["hash_chain"]["events"]
    seq = {"early": 3, "middle": events // 2, "last": events}[where]
    _tamper(app, game_id, seq)
    after = client.get(f"/games/{game_id}/verify").get_json()
    assert after["ok"] is False
    assert after["checks"]["hash_chain"]["broken_seq"] == seq
