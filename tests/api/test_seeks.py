"""Matchmaking through HTTP (API.md item 21): seeks paired into games, with bots after a while,
one waiting seek per player, cancelling, expiry, the long poll, and every seek matched once
however many requests race (the long poll, the race and expiry on both databases).

The test run's database keeps the seeks of earlier tests: each test seeks with rules of its own
(a target score nobody else uses), so only its own seeks are of one kind."""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

import pytest

from app import create_app
from app.config import DEFAULT_PLAYER_CREATE_RATE_LIMIT
from app.services.model import Outcome

from .clock_support import clock_at, later
from .helpers import bearer
from .support import assert_problem

_TARGETS = itertools.count(300)


def own_rules() -> dict[str, int | None]:
    """Rules no other test seeks with, so that its seeks pair only with each other; with no
    turn clock, so that the games they leave running are not due in other tests' sweeps (the
    default clock has tests of its own: tests/api/test_online_play.py)."""
    return {"target_score": next(_TARGETS), "turn_seconds": None}


def new_player(client: Any, name: str = "Amira") -> dict[str, Any]:
    response = client.post("/players", json={"name": name})
    assert response.status_code == 201, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def seek(
    client: Any, player: dict[str, Any], expect: str | None = "waiting", **body: Any
) -> dict[str, Any]:
    """A new seek; ``expect``: its status in the answer (None: either)."""
    response = client.post("/seeks", json={"players": 2, **body}, headers=bearer(player["token"]))
    assert response.status_code == 201, response.get_json()
    assert response.headers["Location"] == f"/seeks/{response.get_json()['id']}"
    found: dict[str, Any] = response.get_json()
    assert expect is None or found["status"] == expect
    return found


def seek_now(client: Any, player: dict[str, Any], seek_id: str, **query: Any) -> dict[str, Any]:
    response = client.get(f"/seeks/{seek_id}", query_string=query, headers=bearer(player["token"]))
    assert response.status_code == 200, response.get_json()
    found: dict[str, Any] = response.get_json()
    return found


def rate(app: Any, player: dict[str, Any], mu: float) -> None:
    """Give a player a rating, as a rated game's end would have."""
    with app.extensions["basra_uow"]() as uow:
        uow.players.record(Outcome(player["id"], "won", (mu, 5.0), 0))
        uow.commit()


def pass_at(app: Any, seconds: float) -> int:
    """One pairing pass as the background thread would run it, ``seconds`` from now."""
    settled: int = app.extensions["basra_matchmaker"].pass_once(later(seconds))
    return settled


def test_two_players_seeking_alike_are_seated_in_one_game(client):
    rules = own_rules()
    amira, badr = new_player(client, "Amira"), new_player(client, "Badr")
    first = seek(client, amira, rules=rules)
    assert seek_now(client, amira, first["id"])["status"] == "waiting"
    second = seek(client, badr, "matched", rules=rules)  # its own request's pass seated it
    assert second["seat"] in (0, 1) and second["game_id"]
    mine, theirs = seek_now(client, amira, first["id"]), seek_now(client, badr, second["id"])
    assert mine["status"] == theirs["status"] == "matched"
    assert mine["game_id"] == theirs["game_id"]
    assert {mine["seat"], theirs["seat"]} == {0, 1}
    for player, found in ((amira, mine), (badr, theirs)):
        view = client.get(f"/games/{found['game_id']}", headers=bearer(player["token"]))
        assert view.status_code == 200
        assert view.get_json()["you"] == found["seat"]
        assert view.get_json()["seats"][found["seat"]]["player"] == player["id"]
        assert view.get_json()["target_score"] == rules["target_score"]
        assert not any(seat["open"] for seat in view.get_json()["seats"])  # both are taken


def test_seeks_of_another_kind_are_not_paired(client):
    rules = own_rules()
    casual = seek(client, new_player(client), rules=rules)
    amira = new_player(client)
    rated = seek(client, amira, rules=rules, rated=True)
    four = seek(client, new_player(client), rules=rules, players=4)
    assert seek_now(client, amira, rated["id"])["status"] == "waiting"
    for found in (casual, four):
        assert found["status"] == "waiting"


def test_four_players_are_seated_as_two_teams_balanced_by_rating(app, client):
    rules = own_rules()
    players = [new_player(client, name) for name in ("Amira", "Badr", "Chadi", "Dalia")]
    for player, mu in zip(players, (25.0, 25.2, 25.6, 25.9), strict=True):
        rate(app, player, mu)
    seeks = [seek(client, player, None, players=4, rules=rules) for player in players]
    assert [s["status"] for s in seeks] == ["waiting"] * 3 + ["matched"]
    found = [seek_now(client, p, s["id"]) for p, s in zip(players, seeks, strict=True)]
    assert {f["status"] for f in found} == {"matched"}
    assert len({f["game_id"] for f in found}) == 1
    seat_of = {player["name"]: f["seat"] for player, f in zip(players, found, strict=True)}
    assert sorted(seat_of.values()) == [0, 1, 2, 3]
    # 25 + 25.9 against 25.2 + 25.6: the teams whose totals are closest; a team sits opposite
    assert seat_of["Amira"] % 2 == seat_of["Dalia"] % 2
    assert seat_of["Badr"] % 2 == seat_of["Chadi"] % 2 != seat_of["Amira"] % 2


def test_a_seek_still_waiting_after_bot_after_is_seated_with_bots(app, client):
    amira = new_player(client)
    mine = seek(client, amira, rules=own_rules(), bot_after=5)
    pass_at(app, 4)
    assert seek_now(client, amira, mine["id"])["status"] == "waiting"
    pass_at(app, 6)
    found = seek_now(client, amira, mine["id"])
    assert found["status"] == "matched"
    view = client.get(f"/games/{found['game_id']}", headers=bearer(amira["token"])).get_json()
    assert view["status"] == "active" and view["you"] == found["seat"]
    bots = [s for s in view["seats"] if s["seat"] != found["seat"]]
    assert [bool(s["bot"]) for s in bots] == [True]
    assert bots[0]["player"] == f"bot-{bots[0]['bot']}"


def test_a_player_has_one_waiting_seek_at_most(client):
    amira = new_player(client)
    first = seek(client, amira, rules=own_rules())
    second = client.post("/seeks", json={"players": 4}, headers=bearer(amira["token"]))
    problem = assert_problem(second, 409, "already_seeking")
    assert problem["seek_id"] == first["id"]
    assert seek_now(client, amira, first["id"])["status"] == "waiting"


def test_a_new_seek_expires_the_players_seek_out_of_time_and_waits(app, client):
    amira = new_player(client)
    first = seek(client, amira, rules=own_rules())
    with clock_at(app, later(601)):  # no pass has expired the first one yet
        second = seek(client, amira, rules=own_rules())
        assert seek_now(client, amira, second["id"])["status"] == "waiting"
    assert seek_now(client, amira, first["id"])["status"] == "expired"


def test_a_cancelled_seek_is_not_matched_and_frees_its_player(client):
    rules = own_rules()
    amira, badr = new_player(client), new_player(client)
    mine = seek(client, amira, rules=rules)
    assert client.delete(f"/seeks/{mine['id']}", headers=bearer(amira["token"])).status_code == 204
    assert seek_now(client, amira, mine["id"])["status"] == "cancelled"
    again = client.delete(f"/seeks/{mine['id']}", headers=bearer(amira["token"]))
    assert_problem(again, 409, "seek_not_waiting")
    theirs = seek(client, badr, rules=rules)
    assert seek_now(client, badr, theirs["id"])["status"] == "waiting"
    seek(client, amira, rules=own_rules())  # a new seek is allowed now


@pytest.mark.both_databases
def test_a_seek_nobody_matches_expires_after_ten_minutes(app, client):
    amira, badr = new_player(client), new_player(client)
    mine = seek(client, amira, rules=own_rules())
    with clock_at(app, later(601)):
        assert seek_now(client, amira, mine["id"])["status"] == "expired"
    theirs = seek(client, badr, rules=own_rules())
    pass_at(app, 601)
    assert seek_now(client, badr, theirs["id"])["status"] == "expired"
    refused = client.delete(f"/seeks/{theirs['id']}", headers=bearer(badr["token"]))
    assert_problem(refused, 409, "seek_not_waiting")


def test_only_its_player_sees_or_cancels_a_seek(client):
    amira, badr = new_player(client), new_player(client)
    mine = seek(client, amira, rules=own_rules())
    path = f"/seeks/{mine['id']}"
    assert_problem(client.get(path), 401, "unauthorized")
    assert_problem(client.get(path, headers=bearer(badr["token"])), 403, "forbidden")
    assert_problem(client.delete(path, headers=bearer(badr["token"])), 403, "forbidden")
    assert_problem(client.get("/seeks/nope", headers=bearer(amira["token"])), 404, "not_found")
    assert_problem(client.post("/seeks", json={"players": 2}), 401, "unauthorized")
    assert seek_now(client, amira, mine["id"])["status"] == "waiting"


@pytest.mark.parametrize(
    "body",
    [{}, {"players": 3}, {"players": "2"}, {"players": 2, "rated": "yes"},
     {"players": 2, "bot_after": -1}, {"players": 2, "bot_after": 601},
     {"players": 2, "rules": {"target_score": 0}}, {"players": 2, "colour": "red"}],
)  # fmt: skip
def test_a_malformed_seek_is_refused_and_nothing_waits(client, body):
    amira = new_player(client)
    assert_problem(client.post("/seeks", json=body, headers=bearer(amira["token"])), 422,
                   "invalid_request")  # fmt: skip
    seek(client, amira, rules=own_rules())  # no seek was left waiting by the refusal


def test_a_wait_beyond_30_seconds_is_refused(client):
    amira = new_player(client)
    mine = seek(client, amira, rules=own_rules())
    response = client.get(f"/seeks/{mine['id']}?wait=31", headers=bearer(amira["token"]))
    assert_problem(response, 422, "invalid_request")


@pytest.mark.both_databases
def test_a_long_poll_answers_as_soon_as_the_seek_is_matched(app, client):
    rules = own_rules()
    amira, badr = new_player(client), new_player(client)
    mine = seek(client, amira, rules=rules)
    answers: list[tuple[float, dict[str, Any]]] = []

    def poll() -> None:
        began = time.monotonic()
        answers.append((time.monotonic() - began,
                        seek_now(app.test_client(), amira, mine["id"], wait=20)))  # fmt: skip

    waiter = threading.Thread(target=poll)
    began = time.monotonic()
    waiter.start()
    time.sleep(0.5)
    seek(client, badr, "matched", rules=rules)
    waiter.join(timeout=25)
    assert answers and answers[0][1]["status"] == "matched"
    assert time.monotonic() - began < 5


def test_a_long_poll_of_a_seek_that_stays_waiting_answers_after_its_wait(client):
    amira = new_player(client)
    mine = seek(client, amira, rules=own_rules())
    began = time.monotonic()
    assert seek_now(client, amira, mine["id"], wait=1)["status"] == "waiting"
    assert 0.9 <= time.monotonic() - began < 5


@pytest.mark.both_databases
def test_racing_seeks_are_each_matched_exactly_once(app, client):
    rules = own_rules()
    players = [new_player(client, f"P{n}") for n in range(16)]
    seeks: dict[str, str] = {}
    lock = threading.Lock()

    def seek_alone(player: dict[str, Any]) -> None:
        made = seek(app.test_client(), player, None, rules=rules)
        with lock:
            seeks[player["id"]] = made["id"]

    threads = [threading.Thread(target=seek_alone, args=(p,)) for p in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    passes = [threading.Thread(target=pass_at, args=(app, 0)) for _ in range(4)]
    for thread in passes:
        thread.start()
    for thread in passes:
        thread.join(timeout=60)
    found = {p["id"]: seek_now(client, p, seeks[p["id"]]) for p in players}
    assert {f["status"] for f in found.values()} == {"matched"}
    games: dict[str, set[str]] = {}
    for player_id, f in found.items():
        games.setdefault(f["game_id"], set()).add(player_id)
    assert len(games) == 8 and all(len(held) == 2 for held in games.values())
    for game_id, held in games.items():
        seats = client.get(f"/games/{game_id}").get_json()["seats"]
        assert {seat["player"] for seat in seats} == held
    for player in players:  # and no game was made twice: each player sits at one table
        listed = client.get(f"/players/{player['id']}/games").get_json()["games"]
        assert [game["id"] for game in listed] == [found[player["id"]]["game_id"]]


def test_seeking_is_limited_per_player_and_per_address(database_url):
    limited = create_app(
        {
            "DATABASE_URL": database_url,
            "RATE_LIMIT": "100 per minute",
            "SEEK_RATE_LIMIT": "2 per minute",
        }
    )
    client = limited.test_client()

    def post(player: dict[str, Any], address: str) -> Any:
        """A seek of a kind of its own: none of these pair with each other."""
        return client.post(
            "/seeks",
            json={"players": 2, "rules": own_rules()},
            headers=bearer(player["token"]),
            environ_base={"REMOTE_ADDR": address},
        )

    try:
        amira, badr, chadi, dalia = (new_player(client) for _ in range(4))
        for address in ("10.9.0.1", "10.9.0.2"):  # a player's seeks, from anywhere
            made = post(amira, address)
            assert made.status_code == 201
            client.delete(made.headers["Location"], headers=bearer(amira["token"]))
        assert_problem(post(amira, "10.9.0.3"), 429, "rate_limited")
        assert post(badr, "10.9.1.1").status_code == 201
        assert post(chadi, "10.9.1.1").status_code == 201
        assert_problem(post(dalia, "10.9.1.1"), 429, "rate_limited")  # the address's third
        assert post(dalia, "10.9.1.2").status_code == 201
    finally:
        limited.extensions["basra_matchmaker"].stop()
        limited.extensions["basra_db"].dispose()


def test_a_seek_with_bots_counts_as_a_game_created_and_needs_bot_work_left(database_url):
    limited = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "100 per minute",
                          "CREATE_RATE_LIMIT": "2 per minute"})  # fmt: skip
    client = limited.test_client()

    def post(player: dict[str, Any], address: str, **body: Any) -> Any:
        return client.post("/seeks", json={"players": 2, "rules": own_rules(), **body},
                           headers=bearer(player["token"]),
                           environ_base={"REMOTE_ADDR": address})  # fmt: skip

    try:
        players = [new_player(client) for _ in range(4)]
        made = [post(p, "10.9.2.1", bot_after=0) for p in players[:2]]
        assert [m.get_json()["status"] for m in made] == ["matched", "matched"]
        assert_problem(post(players[2], "10.9.2.1", bot_after=0), 429, "rate_limited")
        assert post(players[2], "10.9.2.1").status_code == 201  # humans only: no game made yet
        games = client.post("/games", json={"players": [{"name": "A"}, {"bot": "random"}]},
                            environ_base={"REMOTE_ADDR": "10.9.2.1"})  # fmt: skip
        assert_problem(games, 429, "rate_limited")  # the seeks with bots took the budget
        budgets = limited.extensions["basra_budgets"]
        budgets.window.hit(budgets.work, "work", "10.9.2.2", cost=budgets.work.amount)
        assert_problem(post(players[3], "10.9.2.2", bot_after=5), 429, "rate_limited")
    finally:
        limited.extensions["basra_matchmaker"].stop()
        limited.extensions["basra_db"].dispose()


def test_players_made_are_limited_per_address(database_url):
    limited = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "100 per minute",
                          "PLAYER_CREATE_RATE_LIMIT": "3 per minute"})  # fmt: skip
    client = limited.test_client()

    def made(address: str) -> Any:
        return client.post("/players", json={"name": "Amira"},
                           environ_base={"REMOTE_ADDR": address})  # fmt: skip

    try:
        assert [made("10.9.3.1").status_code for _ in range(3)] == [201] * 3
        assert_problem(made("10.9.3.1"), 429, "rate_limited")
        assert made("10.9.3.2").status_code == 201
        assert DEFAULT_PLAYER_CREATE_RATE_LIMIT == "10 per minute"
    finally:
        limited.extensions["basra_matchmaker"].stop()
        limited.extensions["basra_db"].dispose()
