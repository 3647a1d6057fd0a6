"""Replay and verify work for a game played months ago with today's code.

tests/fixtures/recorded_game.json holds one finished bot game exactly as the database stored
it (its games row, seats and events; see tests/fixtures/record_game.py). These tests insert
those rows with SQLAlchemy, as if they had always been there, and read them back through the
API; then they tamper with the log and expect /verify to point at the broken event.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, delete

from app.persistence.models import Base

RECORDED = json.loads((Path(__file__).parents[1] / "fixtures" / "recorded_game.json").read_text())
GAME_ID: str = RECORDED["game_id"]
EXPECTED: dict[str, Any] = RECORDED["expected"]
TIMES = {"created_at", "updated_at"}
Rows = dict[str, list[dict[str, Any]]]


def as_stored(row: dict[str, Any]) -> dict[str, Any]:
    return {key: datetime.fromisoformat(value) if key in TIMES else value
            for key, value in row.items()}  # fmt: skip


@pytest.fixture
def insert(database_url: str) -> Iterator[Callable[[Rows], None]]:
    """Insert the recorded rows (possibly changed) in place of any earlier copy."""
    engine = create_engine(database_url)
    tables = Base.metadata.tables

    def remove() -> None:
        with engine.begin() as connection:
            for name in ("events", "seats", "idempotent_responses"):
                connection.execute(delete(tables[name]).where(tables[name].c.game_id == GAME_ID))
            connection.execute(delete(tables["games"]).where(tables["games"].c.id == GAME_ID))

    def put(rows: Rows) -> None:
        remove()
        with engine.begin() as connection:
            for name in ("games", "seats", "events"):
                connection.execute(tables[name].insert(), [as_stored(r) for r in rows[name]])

    yield put
    remove()
    engine.dispose()


def recorded_rows() -> Rows:
    rows: Rows = copy.deepcopy(RECORDED["rows"])
    return rows


def seq_of(rows: Rows, kind: str, nth: int = 0) -> int:
    seqs: list[int] = [e["seq"] for e in rows["events"] if e["type"] == kind]
    return seqs[nth]


# ---------------------------------------------------------------- the recorded game, untouched
def test_a_recorded_game_verifies_with_todays_code(client, insert):
    insert(recorded_rows())
    body = client.get(f"/games/{GAME_ID}/verify").get_json()
    assert body["ok"] is EXPECTED["verify_ok"] is True
    assert {"hash_chain", "replay", "commitment", "decks"} <= set(body["checks"])
    assert all(check["ok"] for check in body["checks"].values()), body["checks"]


def test_a_recorded_game_replays_at_every_recorded_step_as_it_did(client, insert):
    insert(recorded_rows())
    assert len(EXPECTED["replay"]) >= 5
    for step, expected in EXPECTED["replay"].items():
        response = client.get(f"/games/{GAME_ID}/replay?step={step}")
        assert response.status_code == 200, response.get_json()
        state = response.get_json()["state"]
        assert {key: state[key] for key in expected} == expected, f"step {step}"


def test_a_recorded_games_replay_starts_right_after_the_first_deal(client, insert):
    insert(recorded_rows())
    state = client.get(f"/games/{GAME_ID}/replay?step=0").get_json()["state"]
    assert [len(hand) for hand in state["hands"]] == [4, 4] and len(state["floor"]) == 4
    deck = next(e["data"]["deck"] for e in RECORDED["rows"]["events"] if e["type"] == "RoundDealt")
    assert state["hands"] == [deck[0:4], deck[4:8]]


def test_a_recorded_game_lists_its_moves(client, insert):
    rows = recorded_rows()
    insert(rows)
    listed = client.get(f"/games/{GAME_ID}/moves").get_json()["moves"]
    assert listed == EXPECTED["moves"]
    played = [e["data"] for e in rows["events"] if e["type"] == "CardPlayed"]
    assert [m["card"] for m in listed] == [data["card"] for data in played]


def test_a_recorded_game_shows_its_view_fairness_and_whole_log(client, insert):
    rows = recorded_rows()
    insert(rows)
    game = rows["games"][0]
    state = client.get(f"/games/{GAME_ID}").get_json()
    assert (state["status"], state["version"], state["winner"]) == (
        "finished", game["version"], game["winner"])  # fmt: skip
    fairness = client.get(f"/games/{GAME_ID}/fairness").get_json()
    assert fairness["server_seed"] == game["server_seed"]
    assert fairness["commitment"] == game["commitment"]
    log = client.get(f"/games/{GAME_ID}/events?limit=1000").get_json()["events"]
    assert [(e["seq"], e["hash"]) for e in log] == [(e["seq"], e["hash"]) for e in rows["events"]]


# ---------------------------------------------------------------- a tampered log
def broken_seq(client) -> int:
    body = client.get(f"/games/{GAME_ID}/verify").get_json()
    assert body["ok"] is False
    assert body["checks"]["hash_chain"]["ok"] is False
    seq: int = body["checks"]["hash_chain"]["broken_seq"]
    return seq


@pytest.mark.parametrize("nth", [0, 30])
def test_changing_one_events_data_breaks_the_chain_at_that_event(client, insert, nth):
    rows = recorded_rows()
    target = seq_of(rows, "CardPlayed", nth)
    event = rows["events"][target - 1]
    event["data"]["captured"] = []  # as if that card had been trailed
    insert(rows)
    assert broken_seq(client) == target


def test_changing_a_dealt_deck_breaks_the_chain_at_that_deal(client, insert):
    rows = recorded_rows()
    target = seq_of(rows, "RoundDealt", 1)
    deck = rows["events"][target - 1]["data"]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    insert(rows)
    assert broken_seq(client) == target


@pytest.mark.parametrize("kind", ["CardPlayed", "RoundScored"])
def test_deleting_one_event_breaks_the_chain_where_it_was(client, insert, kind):
    rows = recorded_rows()
    target = seq_of(rows, kind, 2)
    rows["events"] = [e for e in rows["events"] if e["seq"] != target]
    insert(rows)
    assert broken_seq(client) == target


def test_deleting_the_last_event_is_noticed_too(client, insert):
    rows = recorded_rows()
    last = rows["events"].pop()
    insert(rows)
    assert broken_seq(client) == last["seq"]


def test_swapping_two_events_breaks_the_chain_at_the_first_of_them(client, insert):
    rows = recorded_rows()
    first, second = seq_of(rows, "CardPlayed", 10), seq_of(rows, "CardPlayed", 11)
    a, b = rows["events"][first - 1], rows["events"][second - 1]
    for key in ("type", "data", "at", "hash"):
        a[key], b[key] = b[key], a[key]
    insert(rows)
    assert broken_seq(client) == first
