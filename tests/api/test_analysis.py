"""GET /games/{id}/analysis through HTTP: refused while the game is on, 202 while computed,
then 200 with every human card judged, the same on every request and on every instance (two
instances on both databases), and the same values wherever a seat knew the same."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import TEST_SETTINGS

from app import create_app
from app.engine.cards import FULL_DECK

from .helpers import bearer, create, stacked_deck
from .support import assert_problem

HANDS = [["9S", "2C", "3D", "4H"], ["KC", "KD", "QC", "8D"]]
FLOOR = ["AH", "5S", "9D", "3C"]


def finished(client: Any, deck: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    """Two humans play one round (a target of 1) to the end, each its first card, except that
    seat 1 leads its hand with 8D when it holds it."""
    players = [{"name": "Amira"}, {"name": "Badr"}]
    deck = deck or stacked_deck(HANDS, FLOOR)
    body = create(client, players, rules={"target_score": 1}, deck=deck, **extra)
    tokens = [seat["token"] for seat in body["seats"]]
    state = body["state"]
    while state["status"] == "active":
        token = tokens[state["turn"]]
        hand = client.get(f"/games/{body['id']}", headers=bearer(token)).get_json()["hand"]
        card = "8D" if "8D" in hand else hand[0]
        answer = client.post(f"/games/{body['id']}/moves", json={"card": card},
                             headers=bearer(token))  # fmt: skip
        assert answer.status_code == 201, answer.get_json()
        state = answer.get_json()["state"]
    return body


def analysed(client: Any, game_id: str, timeout: float = 60) -> dict[str, Any]:
    """Poll until the analysis is done: 202s (with their progress) and then one 200."""
    deadline = time.monotonic() + timeout
    while True:
        answer = client.get(f"/games/{game_id}/analysis")
        if answer.status_code == 200:
            body: dict[str, Any] = answer.get_json()
            return body
        assert answer.status_code == 202, answer.get_json()
        progress = answer.get_json()
        assert progress["status"] == "running" and 0 <= progress["done"] <= progress["total"]
        assert int(answer.headers["Retry-After"]) >= 1
        assert time.monotonic() < deadline, "the analysis did not finish"
        time.sleep(0.05)


def analyses_done(client: Any) -> float:
    """``basra_analyses_done_total`` as GET /metrics says it."""
    text = client.get("/metrics").get_data(as_text=True)
    found = re.search(r"^basra_analyses_done_total (\S+)$", text, re.MULTILINE)
    assert found is not None and "basra_analyses_running" in text
    assert "basra_analyses_queued" in text and "basra_analysis_seconds_bucket" in text
    return float(found.group(1))


def test_a_game_is_analysed_once_over_and_every_human_card_is_judged(client: Any) -> None:
    done_before = analyses_done(client)
    body = create(client, [{"name": "Amira"}, {"name": "Badr"}], rules={"target_score": 1})
    assert_problem(client.get(f"/games/{body['id']}/analysis"), 409, "game_not_over")
    assert_problem(client.get("/games/nope/analysis"), 404, "not_found")
    game = finished(client)
    first = client.get(f"/games/{game['id']}/analysis")
    assert first.status_code in (200, 202)
    result = analysed(client, game["id"])
    moves = client.get(f"/games/{game['id']}/moves").get_json()["moves"]
    assert [(m["n"], m["seat"], m["card"]) for m in result["moves"]] == [
        (m["n"], m["seat"], m["card"]) for m in moves
    ]
    for move in result["moves"]:
        values = move["values"]
        assert move["card"] in values and move["best"] in values
        assert values[move["best"]] == max(values.values())
        if move["card"] == move["best"]:
            assert move["loss"] == 0
        else:
            assert move["loss"] == round(values[move["best"]] - values[move["card"]], 2) > 0
    assert [s["seat"] for s in result["seats"]] == [0, 1]
    for summary in result["seats"]:
        own = [m for m in result["moves"] if m["seat"] == summary["seat"]]
        assert summary["moves"] == len(own) == 24
        assert summary["average_loss"] == round(sum(m["loss"] for m in own) / len(own), 2)
    assert client.get(f"/games/{game['id']}/analysis").get_json() == result  # stored
    assert analyses_done(client) >= done_before + 1


def test_only_human_seats_are_judged(client: Any) -> None:
    body = create(client, [{"name": "Amira"}, {"bot": "greedy"}], rules={"target_score": 1})
    token = body["seats"][0]["token"]
    state = body["state"]
    while state["status"] == "active":
        hand = client.get(f"/games/{body['id']}", headers=bearer(token)).get_json()["hand"]
        answer = client.post(f"/games/{body['id']}/moves", json={"card": hand[0]},
                             headers=bearer(token))  # fmt: skip
        state = answer.get_json()["state"]
    result = analysed(client, body["id"])
    played = client.get(f"/games/{body['id']}/moves").get_json()["moves"]
    assert [m["n"] for m in result["moves"]] == [m["n"] for m in played if m["seat"] == 0]
    assert [s["seat"] for s in result["seats"]] == [0]


def test_the_same_knowledge_gets_the_same_values_whatever_the_hidden_cards(client: Any) -> None:
    """Seat 0 holds the same hand over the same floor in both games, and seat 1 (whose other
    cards differ, as does the stock) answers with the same 8D: seat 0 knows the same at its
    first two cards, and nothing else is alike."""
    one = stacked_deck(HANDS, FLOOR)
    other_hand = ["KH", "KS", "QH", "8D"]
    top = HANDS[0] + other_hand + FLOOR
    two = top + [str(c) for c in reversed(FULL_DECK) if str(c) not in top]
    assert one[:4] == two[:4] and one[8:12] == two[8:12] and one[12:] != two[12:]
    first = analysed(client, finished(client, one)["id"])["moves"]
    second = analysed(client, finished(client, two)["id"])["moves"]
    assert [m["card"] for m in first[:3]] == [m["card"] for m in second[:3]]
    assert first[0]["values"] == second[0]["values"]
    assert first[2]["values"] == second[2]["values"]
    assert first[1]["values"] != second[1]["values"]  # seat 1 knew other cards


@pytest.fixture
def second_app(app: Any, database_url: str) -> Iterator[Any]:
    """Another instance on the same database."""
    other = create_app(TEST_SETTINGS | {"DATABASE_URL": database_url})
    other.testing = True
    yield other
    other.extensions["basra_analyses"].stop()
    other.extensions["basra_analysis_pool"].shutdown()
    other.extensions["basra_bot_runner"].stop()
    other.extensions["basra_db"].dispose()


@pytest.mark.both_databases
def test_two_instances_compute_an_analysis_once_and_answer_alike(
    client: Any, second_app: Any
) -> None:
    game = finished(client)
    other = second_app.test_client()
    assert client.get(f"/games/{game['id']}/analysis").status_code in (200, 202)
    assert other.get(f"/games/{game['id']}/analysis").status_code in (200, 202)
    here, there = analysed(client, game["id"]), analysed(other, game["id"])
    assert here == there
    with second_app.extensions["basra_uow"]() as uow:
        record = uow.analyses.get(game["id"])
        assert record is not None and record.claims == 1  # taken up once, by one of them


def test_a_new_analysis_needs_room_in_the_queue_and_the_callers_budget(
    database_url: str, client: Any
) -> None:
    games = [finished(client)["id"] for _ in range(2)]
    limited = create_app(TEST_SETTINGS | {
        "DATABASE_URL": database_url, "RATE_LIMIT": "600 per minute",
        "ANALYSIS_RATE_LIMIT": "1 per minute", "ANALYSIS_WORKERS": 0,
    })  # fmt: skip
    limited.testing = True
    try:
        ours = limited.test_client()
        started = ours.get(f"/games/{games[0]}/analysis")
        assert started.status_code == 202 and started.headers["Retry-After"] == "1"
        refused = assert_problem(ours.get(f"/games/{games[1]}/analysis"), 429, "rate_limited")
        assert refused  # and the analysis was not started:
        assert ours.get(f"/games/{games[0]}/analysis").status_code in (200, 202)  # polls are free
        runner = limited.extensions["basra_analyses"]
        runner.stop()
        runner.queue_size = 0
        full = ours.get(f"/games/{games[1]}/analysis", environ_base={"REMOTE_ADDR": "10.0.0.2"})
        assert_problem(full, 503, "unavailable")
        assert int(full.headers["Retry-After"]) >= 1
        with limited.extensions["basra_uow"]() as uow:
            assert uow.analyses.get(games[1]) is None  # refused: nothing written
    finally:
        limited.extensions["basra_analyses"].stop()
        limited.extensions["basra_bot_runner"].stop()
        limited.extensions["basra_db"].dispose()
