"""POST /games: the creation response, seats and tokens, rules, fairness and the first view."""

from __future__ import annotations

import re

import pytest

from app.engine.rules import Rules

from .helpers import bearer, create, stacked_deck
from .support import BOTS_ONLY, VIEW_FIELDS, assert_problem, finished_bot_game

HEX64 = re.compile(r"^[0-9a-f]{64}$")


def test_creating_a_game_answers_201_with_its_location(client):
    response = client.post("/games", json={"players": [{"name": "Amira"}, {"bot": "greedy"}]})
    assert response.status_code == 201
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert response.headers["Location"] == f"/games/{body['id']}"
    assert client.get(response.headers["Location"]).status_code == 200


def test_the_creation_response_has_every_field_of_the_contract(client):
    body = create(client, [{"name": "Amira", "seed": "s1"}, {"bot": "random"}])
    assert {"id", "status", "seats", "rules", "fairness", "state"} <= set(body)
    assert body["status"] == "active"
    assert body["state"]["id"] == body["id"]
    assert set(body["state"]) >= VIEW_FIELDS


def test_only_human_seats_created_now_get_a_token(client):
    body = create(client, [{"name": "Amira"}, {"bot": "greedy"}, {"open": True}, {"name": "Dalia"}])
    seats = body["seats"]
    assert [s["seat"] for s in seats] == [0, 1, 2, 3]
    assert (seats[0]["name"], seats[2]["name"], seats[3]["name"]) == ("Amira", None, "Dalia")
    assert [s["bot"] for s in seats] == [None, "greedy", None, None]
    assert [("token" in s) for s in seats] == [True, False, False, True]
    assert seats[0]["token"] != seats[3]["token"]
    assert all(len(s["token"]) >= 32 for s in (seats[0], seats[3]))


def test_a_bot_seat_gets_a_default_name_or_the_one_given(client):
    body = create(client, [{"bot": "expert", "name": "Sheikh"}, {"bot": "random"}, {"open": True},
                           {"open": True}])  # fmt: skip
    assert body["seats"][0]["name"] == "Sheikh"
    assert isinstance(body["seats"][1]["name"], str) and body["seats"][1]["name"]


def test_the_tokens_act_as_their_own_seats(client):
    body = create(client, [{"name": "Amira"}, {"name": "Badr"}])
    for seat in body["seats"]:
        view = client.get(f"/games/{body['id']}", headers=bearer(seat["token"])).get_json()
        assert view["you"] == seat["seat"]


def test_rules_answer_every_effective_value(client):
    body = create(client, BOTS_ONLY, rules={"target_score": 50, "seven_diamonds": "plain"})
    expected = Rules(target_score=50, seven_diamonds="plain").to_dict()
    assert body["rules"] == expected
    assert body["state"]["target_score"] == 50


@pytest.mark.parametrize("target", [1, 10000])
def test_target_score_accepts_both_ends_of_its_range(client, target):
    assert create(client, [{"name": "Amira"}, {"bot": "random"}],
                  rules={"target_score": target})["rules"]["target_score"] == target  # fmt: skip


def test_fairness_publishes_the_algorithm_and_a_sha256_commitment(client):
    body = create(client, [{"name": "Amira"}, {"bot": "random"}])
    assert body["fairness"]["algorithm"] == "basra-shuffle-v1"
    assert HEX64.match(body["fairness"]["commitment"])
    assert "server_seed" not in body["fairness"] or body["fairness"]["server_seed"] is None
    other = create(client, [{"name": "Amira"}, {"bot": "random"}])
    assert other["fairness"]["commitment"] != body["fairness"]["commitment"]


def test_the_state_is_the_first_human_seats_view(client):
    body = create(
        client, [{"bot": "greedy"}, {"name": "Badr"}, {"bot": "random"}, {"name": "Dalia"}]
    )
    state = body["state"]
    assert state["you"] == 1
    assert len(state["hand"]) == state["seats"][1]["hand_size"]


def test_a_game_with_no_human_seat_shows_a_spectators_view(client):
    state = create(client, [{"open": True}, {"open": True}])["state"]
    assert "you" not in state and "hand" not in state and "legal_moves" not in state


def test_a_bot_whose_turn_it_is_plays_inside_the_creation_request(client):
    # 4 seats: round 1's dealer is seat 3, so seat 0 (a bot) leads and seat 1 is the human.
    body = create(client, [{"bot": "greedy"}, {"name": "Badr"}, {"name": "Camelia"},
                           {"name": "Dalia"}])  # fmt: skip
    assert [m["seat"] for m in body["moves"]] == [0]
    assert body["state"]["turn"] == 1
    assert body["state"]["last_move"] == body["moves"][0]


def test_a_game_of_bots_only_is_played_to_the_end_in_the_background(client):
    body = finished_bot_game(client)
    state = body["state"]
    assert state["winner"] in (0, 1)
    assert state["turn"] is None
    assert max(side["score"] for side in state["sides"]) >= 101


def test_a_custom_deck_deals_round_one_in_lower_case_too(client):
    deck = stacked_deck(
        [["9S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]], ["AH", "5S", "9D", "3C"]
    )
    body = create(client, [{"name": "Amira"}, {"name": "Badr"}], deck=[c.lower() for c in deck])
    assert body["state"]["hand"] == ["9S", "2C", "3D", "4H"]
    assert body["state"]["floor"] == ["AH", "5S", "9D", "3C"]


@pytest.mark.parametrize("count", [0, 1, 3, 5])
def test_a_game_needs_two_or_four_players(client, count):
    response = client.post("/games", json={"players": [{"bot": "random"}] * count})
    assert_problem(response, 422, "invalid_request")


@pytest.mark.parametrize(
    "player",
    [{"bot": "genius"}, {"seed": "no name"}, {"name": ""}, {"open": False},
     {"open": True, "name": "Amira"}, {"name": 7}, {"bot": "random", "seed": "x"},
     {"open": "yes"}, {"open": 1}],
    ids=["unknown-bot", "human-without-name", "empty-name", "open-false", "open-with-name",
         "name-not-a-string", "bot-with-seed", "open-a-string", "open-a-number"],
)  # fmt: skip
def test_a_player_entry_must_be_a_human_a_bot_or_an_open_seat(client, player):
    response = client.post("/games", json={"players": [player, {"bot": "random"}]})
    assert_problem(response, 422, "invalid_request")


def test_the_players_list_is_required(client):
    assert_problem(client.post("/games", json={}), 422, "invalid_request")


@pytest.mark.parametrize(
    "rules",
    [{"seven_diamonds": "sometimes"}, {"target_score": "101"}, {"target_score": 1.5},
     {"target_score": True}, {"basra_on_final_play": "yes"}, {"basra_on_final_play": 1},
     {"majority_points": -1}, {"majority_points": -1.0}],
)  # fmt: skip
def test_a_bad_rule_value_is_refused(client, rules):
    response = client.post("/games", json={"players": BOTS_ONLY, "rules": rules})
    assert_problem(response, 422, "invalid_request")


def test_a_whole_number_written_with_a_point_is_that_integer(client):
    # JSON Schema 2020-12, which openapi.yaml is written in, counts 31.0 as an integer.
    response = client.post(
        "/games", json={"players": BOTS_ONLY, "rules": {"target_score": 31.0, "turn_seconds": None}}
    )
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["state"]["target_score"] == 31


@pytest.mark.parametrize("bad", ["missing", "duplicate", "extra"])
def test_a_custom_deck_must_be_the_52_distinct_cards(client, bad):
    deck = stacked_deck([[], []], [])
    if bad == "missing":
        deck = deck[:51]
    elif bad == "duplicate":
        deck = [*deck[:51], deck[0]]
    else:
        deck = [*deck, deck[0]]
    response = client.post("/games", json={"players": BOTS_ONLY, "deck": deck})
    assert_problem(response, 422, "invalid_request")


def test_a_custom_deck_with_a_bad_card_code_is_refused(client):
    deck = [*stacked_deck([[], []], [])[:51], "1X"]
    response = client.post("/games", json={"players": BOTS_ONLY, "deck": deck})
    assert response.status_code == 422
    assert response.get_json()["code"] in ("invalid_card", "invalid_request")


def test_past_the_backlog_of_bots_alone_a_creation_is_503_with_retry_after(
    app, client, monkeypatch
):
    endless = {"players": [{"bot": "expert"}, {"bot": "expert"}], "rules": {"target_score": 10000}}
    assert client.post("/games", json=endless).status_code == 201  # one is being played now
    monkeypatch.setitem(app.config, "BOT_BACKLOG", 1)
    response = client.post("/games", json={"players": [{"bot": "random"}, {"bot": "greedy"}]})
    assert_problem(response, 503, "unavailable")
    assert response.headers["Retry-After"] == "30"
    with_a_human = client.post("/games", json={"players": [{"name": "A"}, {"bot": "greedy"}]})
    assert with_a_human.status_code == 201


def test_a_game_of_bots_alone_may_have_any_target_and_answers_at_once(client):
    # Played in the background (app.background.bot_runner), so no cap: the request only deals
    # round 1.
    body = create(client, [{"bot": "expert"}, {"bot": "expert"}], rules={"target_score": 10000})
    assert body["status"] == "active" and body["moves"] == []
    assert body["state"]["round"] == 1 and body["state"]["target_score"] == 10000
