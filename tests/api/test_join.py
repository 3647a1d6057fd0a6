"""POST /games/{id}/join: open seats, the lowest first; the deal waits for the last one."""

from __future__ import annotations

from .helpers import bearer, create
from .support import VIEW_FIELDS, assert_problem, finished_bot_game, footprint, moves, play, view


def join(client, game, name="Zaki", **extra):
    """Join ``game`` (its creation body, whose invite is used, or just an id)."""
    if isinstance(game, dict):
        invite = {"invite": game["invite"]} if "invite" in game else {}
        game, extra = game["id"], {**invite, **extra}
    return client.post(f"/games/{game}/join", json={"name": name, **extra})


def test_joining_an_open_seat_answers_201_with_seat_token_and_view(client):
    game = create(client, [{"name": "Amira"}, {"open": True}])
    response = join(client, game, "Badr")
    assert response.status_code == 201
    body = response.get_json()
    assert {"seat", "token", "state"} <= set(body)
    assert body["seat"] == 1
    assert set(body["state"]) >= VIEW_FIELDS
    assert body["state"]["you"] == 1
    assert body["state"]["seats"][1]["name"] == "Badr"
    assert client.get(f"/games/{game['id']}", headers=bearer(body["token"])).get_json()["you"] == 1


def test_joining_takes_the_lowest_open_seat(client):
    game = create(client, [{"open": True}, {"name": "Badr"}, {"open": True}, {"bot": "random"}])
    assert join(client, game, "Amira").get_json()["seat"] == 0
    assert join(client, game, "Camelia").get_json()["seat"] == 2


def test_the_game_deals_only_when_the_last_seat_is_filled(client):
    game = create(client, [{"open": True}, {"name": "Badr"}, {"open": True}, {"bot": "random"}])
    first = join(client, game, "Amira").get_json()
    assert first["state"]["status"] == "waiting"
    assert first["state"]["round"] == 0 and first["state"]["hand"] == []
    assert view(client, game["id"])["status"] == "waiting"
    last = join(client, game, "Camelia").get_json()
    state = last["state"]
    assert state["status"] == "active" and state["round"] == 1
    assert len(state["hand"]) == 4 and len(state["floor"]) == 4
    assert len(view(client, game["id"], first["token"])["hand"]) == 4


def test_a_bot_that_leads_plays_inside_the_join_that_starts_the_game(client):
    game = create(client, [{"bot": "greedy"}, {"open": True}, {"open": True}, {"open": True}])
    for name in ("Badr", "Camelia"):
        join(client, game, name)
    last = join(client, game, "Dalia").get_json()
    assert [m["seat"] for m in last["moves"]] == [0]
    assert last["state"]["turn"] == 1
    assert moves(client, game["id"]) == last["moves"]


def test_a_seat_waiting_for_players_cannot_move(client):
    game = create(client, [{"name": "Amira"}, {"open": True}])
    token = game["seats"][0]["token"]
    assert_problem(play(client, game["id"], token, "7D"), 409, "game_not_active")


def test_joining_a_full_game_is_refused_and_changes_nothing(client):
    game = create(client, [{"name": "Amira"}, {"open": True}])
    join(client, game, "Badr")
    before = footprint(client, game["id"])
    assert_problem(join(client, game, "Camelia"), 409, "game_full")
    assert footprint(client, game["id"]) == before


def test_joining_a_game_created_with_every_seat_taken_is_refused(client):
    game = create(client, [{"name": "Amira"}, {"bot": "random"}])
    assert_problem(join(client, game), 409, "game_full")


def test_joining_a_finished_game_is_refused(client):
    game = finished_bot_game(client, [{"bot": "random"}, {"bot": "greedy"}])
    assert_problem(join(client, game), 409, "game_full")


def test_joining_an_unknown_game_is_not_found(client):
    assert_problem(join(client, "no-such-game"), 404, "not_found")


def test_the_join_body_is_checked_and_a_refusal_changes_nothing(client):
    game = create(client, [{"name": "Amira"}, {"open": True}])
    before = footprint(client, game["id"])
    for body in ({}, {"name": "Badr", "colour": "red"}, {"name": "x" * 41},
                 {"name": "Badr", "seed": "s" * 65}, {"name": 5}):  # fmt: skip
        response = client.post(f"/games/{game['id']}/join", json=body)
        assert_problem(response, 422, "invalid_request")
    assert footprint(client, game["id"]) == before
    assert view(client, game["id"])["seats"][1]["name"] is None


def test_the_longest_name_and_seed_are_accepted_when_joining(client):
    game = create(client, [{"name": "Amira"}, {"open": True}])
    response = join(client, game, "n" * 40, seed="s" * 64)
    assert response.status_code == 201
    fairness = client.get(f"/games/{game['id']}/fairness").get_json()
    assert fairness["client_seed"] == "|" + "s" * 64


def test_the_client_seed_is_the_seats_seeds_joined_by_a_bar(client):
    game = create(client, [{"name": "Amira", "seed": "alpha"}, {"open": True}, {"bot": "random"},
                           {"name": "Dalia"}])  # fmt: skip
    join(client, game, "Badr", seed="beta")
    fairness = client.get(f"/games/{game['id']}/fairness").get_json()
    assert fairness["client_seed"] == "alpha|beta||"
