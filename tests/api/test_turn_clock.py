"""The turn clock (API.md item 13): a seat whose time runs out is played for, by the sweeper
with no request at all or by the next request that loads the game; after max_timeouts in a
row the greedy bot takes the seat, so an abandoned match still ends and shows its seed. Here
through HTTP and the app's sweeper; each case of its logic: tests/services/test_deadlines.py."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app import create_app

from .clock_support import clock_at, kinds, later, parse_deadline, sweep, verified
from .helpers import bearer, create
from .sse import records
from .support import assert_problem, events, moves, play, play_ok, stacked_humans, view

HANDS = [["4S", "AC", "3H", "KD"], ["2D", "9C", "QS", "6H"]]
FLOOR = ["5H", "8C", "10S", "QD"]  # seat 0's four cards all trail; AC is the lowest rank
CLOCK = {"turn_seconds": 30}


def clocked(client: Any, **rules: Any) -> tuple[str, list[str]]:
    body, tokens = stacked_humans(client, HANDS, FLOOR, rules={**CLOCK, **rules})
    return body["id"], tokens


def test_a_clocked_game_shows_when_the_turn_runs_out(client):
    before = datetime.now(UTC)
    game_id, tokens = clocked(client)
    deadline = parse_deadline(view(client, game_id, tokens[1])["deadline"])
    assert before + timedelta(seconds=30) <= deadline <= later(30)
    assert view(client, game_id)["deadline"] == view(client, game_id, tokens[0])["deadline"]


def test_a_game_without_a_clock_has_its_idle_limit_as_its_deadline(client):
    before = datetime.now(UTC)
    body, _ = stacked_humans(client, HANDS, FLOOR)
    assert body["rules"]["turn_seconds"] is None and body["rules"]["max_timeouts"] == 3
    assert body["rules"]["idle_seconds"] == 86400
    deadline = parse_deadline(body["state"]["deadline"])
    assert before + timedelta(days=1) <= deadline <= later(86400 + 900)  # to a quarter hour
    assert view(client, body["id"])["deadline"] == body["state"]["deadline"]


@pytest.mark.parametrize("who", ["the sweeper", "the next request"])
def test_with_no_clock_a_seat_that_lets_its_idle_limit_pass_forfeits_for_its_side(app, client, who):
    """Nobody is left waiting on a player who walked away: ``Forfeited`` (`idle`), the other
    side wins, logged, streamed as `resigned`, replayed and verified like a resignation."""
    body, tokens = stacked_humans(client, HANDS, FLOOR, rules={"idle_seconds": 60})
    game_id = body["id"]
    with clock_at(app, later(30)):
        play_ok(client, game_id, tokens[0], "4S")  # seat 1's turn: its idle limit starts now
    sweep(app, later(60))
    assert view(client, game_id)["status"] == "active"  # not yet
    at = later(95)
    if who == "the sweeper":
        sweep(app, at)
        final = view(client, game_id, tokens[0])
    else:
        with clock_at(app, at):
            final = view(client, game_id, tokens[0])
    assert final["status"] == "finished" and final["winner"] == 0 and final["resigned"] == 1
    assert final["deadline"] is None
    logged = events(client, game_id)
    assert [e["type"] for e in logged][-3:] == ["Forfeited", "MatchEnded", "SeedRevealed"]
    assert logged[-3]["data"] == {"seat": 1, "side": 1, "reason": "idle"}
    assert "TurnTimedOut" not in kinds(client, game_id) and len(moves(client, game_id)) == 1
    streamed = records(client.get(f"/games/{game_id}/stream").get_data(as_text=True))
    assert [(r.event, r.data) for r in streamed[-2:]] == [
        ("resigned", {"side": 1, "reason": "idle"}),
        ("over", {"winner": 0, "scores": [0, 0]}),
    ]
    verified(client, game_id)
    last = client.get(f"/games/{game_id}/replay?step=1").get_json()["state"]
    assert last["status"] == "finished" and last["winner"] == 0
    assert_problem(play(client, game_id, tokens[1], "2D"), 409, "game_not_active")


def test_the_idle_limit_is_a_rule_of_5_s_to_30_days(client):
    for value in (4, 2592001, None, "60"):
        answer = client.post(
            "/games", json={"players": [{"name": "A"}, {"bot": "greedy"}],
                            "rules": {"idle_seconds": value}})  # fmt: skip
        assert_problem(answer, 422, "invalid_request")
    rules = client.get("/rules").get_json()["options"]
    idle = next(option for option in rules if option["name"] == "idle_seconds")
    assert (idle["default"], idle["minimum"], idle["maximum"]) == (86400, 5, 2592000)


def test_a_bots_turn_and_a_finished_game_have_no_deadline(client):
    body = create(client, [{"bot": "greedy"}, {"bot": "random"}], rules=CLOCK)
    assert body["state"]["deadline"] is None  # bots alone: nobody's clock runs
    resigned, tokens = stacked_humans(client, HANDS, FLOOR, rules=CLOCK)
    client.post(f"/games/{resigned['id']}/resign", headers=bearer(tokens[0]))
    assert view(client, resigned["id"])["deadline"] is None


@pytest.mark.both_databases
def test_when_the_time_runs_out_the_sweeper_plays_the_card_that_takes_least(app, client):
    game_id, tokens = clocked(client)
    first = view(client, game_id)
    sweep(app, later(31))  # other tests' clocked games may be due too: count ours below
    assert [(m["seat"], m["card"], m["captured"]) for m in moves(client, game_id)] == [
        (0, "AC", [])
    ]
    logged = events(client, game_id, tokens[0])
    timed_out = next(e for e in logged if e["type"] == "TurnTimedOut")
    assert timed_out["data"]["seat"] == 0 and timed_out["data"]["card"] == "AC"
    assert timed_out["data"]["in_a_row"] == 1
    assert logged[logged.index(timed_out) + 1]["type"] == "CardPlayed"
    now = view(client, game_id, tokens[1])
    assert now["turn"] == 1 and now["version"] > first["version"]
    assert parse_deadline(now["deadline"]) > parse_deadline(first["deadline"])
    verified(client, game_id)


@pytest.mark.both_databases
def test_two_instances_sweeping_one_expired_turn_at_once_play_it_once(client, database_url):
    """Two apps, each with its own engine and connections, as two server instances are."""
    game_id, _ = clocked(client)
    instances = [create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "off"})
                 for _ in range(2)]  # fmt: skip
    at = later(31)
    barrier = threading.Barrier(len(instances))

    def race(index: int) -> None:
        barrier.wait()
        sweep(instances[index], at)

    threads = [threading.Thread(target=race, args=(i,)) for i in range(len(instances))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        for instance in instances:
            instance.extensions["basra_db"].dispose()
    assert kinds(client, game_id).count("TurnTimedOut") == 1
    assert len(moves(client, game_id)) == 1
    verified(client, game_id)


def test_a_seat_token_still_reads_its_view_while_the_clock_runs(client):
    game_id, tokens = clocked(client)
    response = client.get(f"/games/{game_id}", headers=bearer(tokens[0]))
    assert response.status_code == 200 and response.get_json()["legal_moves"]


ALONE_AMONG_EXPERTS = {
    "players": [{"name": "A"}, {"bot": "expert"}, {"bot": "expert"}, {"bot": "expert"}],
    "rules": {"turn_seconds": 5, "max_timeouts": 1, "target_score": 10000},
}


@pytest.mark.both_databases
@pytest.mark.parametrize("who", ["a spectator's GET", "the sweeper"])
def test_a_human_who_walks_away_from_bots_forfeits_and_nothing_plays_the_match_out(
    app, client, who
):
    """Once the bot takes the only human seat, the match ends there (``Forfeited``), logged,
    streamed as `resigned`, replayed and verified; no request or sweep plays a match of bots
    alone to 10,000 points (before: 100 rounds in one transaction, 50 s for a spectator)."""
    created = client.post("/games", json=ALONE_AMONG_EXPERTS).get_json()
    game_id = created["id"]
    at = later(6)
    started = time.monotonic()
    if who == "the sweeper":
        sweep(app, at)
        final = view(client, game_id)
    else:
        with clock_at(app, at):
            final = view(client, game_id)
    assert time.monotonic() - started < 2
    assert final["status"] == "finished" and final["winner"] == 1 and final["resigned"] == 0
    assert final["deadline"] is None and final["rounds"] == []
    logged = events(client, game_id)
    assert [e["type"] for e in logged][-5:] == [
        "CardPlayed", "SeatTakenByBot", "Forfeited", "MatchEnded", "SeedRevealed"]  # fmt: skip
    assert logged[-3]["data"] == {"seat": 0, "side": 0, "reason": "abandoned"}
    streamed = records(client.get(f"/games/{game_id}/stream").get_data(as_text=True))
    assert [(r.event, r.data) for r in streamed[-2:]] == [
        ("resigned", {"side": 0, "reason": "abandoned"}),
        ("over", {"winner": 1, "scores": [0, 0]}),
    ]
    verified(client, game_id)
    last = client.get(f"/games/{game_id}/replay?step=1").get_json()["state"]
    assert last["status"] == "finished" and last["winner"] == 1
