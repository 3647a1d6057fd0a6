"""POST /games/{id}/resign (API.md item 14): the caller's side loses now, the match is over
and the seed revealed; the log says so, and /replay and /verify agree."""

from __future__ import annotations

from typing import Any

from .clock_support import kinds, verified
from .helpers import bearer, create
from .support import assert_problem, footprint, humans, view


def resign(client: Any, game_id: str, token: str | None) -> Any:
    return client.post(f"/games/{game_id}/resign", headers=bearer(token) if token else {})


def test_resigning_ends_the_match_with_the_other_side_winning(client):
    body, tokens = humans(client)
    game_id = body["id"]
    response = resign(client, game_id, tokens[0])
    assert response.status_code == 201
    state = response.get_json()["state"]
    assert state["status"] == "finished" and state["winner"] == 1 and state["resigned"] == 0
    assert state["you"] == 0 and state["turn"] is None and state["deadline"] is None
    assert view(client, game_id)["winner"] == 1


def test_a_resignation_is_logged_reveals_the_seed_and_verifies(client):
    body, tokens = humans(client)
    game_id = body["id"]
    resign(client, game_id, tokens[1])
    assert kinds(client, game_id)[-3:] == ["Resigned", "MatchEnded", "SeedRevealed"]
    fairness = client.get(f"/games/{game_id}/fairness").get_json()
    assert fairness["server_seed"]
    checks = verified(client, game_id)["checks"]
    assert checks["commitment"]["ok"] and checks["decks"]["ok"]
    replayed = client.get(f"/games/{game_id}/replay?step=0").get_json()
    assert replayed["moves"] == 0 and replayed["state"]["winner"] == 0


def test_in_a_four_player_game_the_whole_side_loses(client):
    body, tokens = humans(client, 4)
    state = resign(client, body["id"], tokens[2]).get_json()["state"]
    assert state["winner"] == 1 and state["resigned"] == 0


def test_a_game_not_in_play_cannot_be_resigned(client):
    waiting = create(client, [{"name": "Amira"}, {"open": True}])
    token = waiting["seats"][0]["token"]
    assert_problem(resign(client, waiting["id"], token), 409, "game_not_active")
    body, tokens = humans(client)
    resign(client, body["id"], tokens[0])
    before = footprint(client, body["id"])
    assert_problem(resign(client, body["id"], tokens[1]), 409, "game_not_active")
    assert footprint(client, body["id"]) == before


def test_resigning_needs_a_token_of_this_game(client):
    body, tokens = humans(client)
    other, _ = humans(client)
    before = footprint(client, body["id"])
    assert_problem(resign(client, body["id"], None), 401, "unauthorized")
    assert_problem(resign(client, body["id"], "not-a-token"), 401, "unauthorized")
    assert_problem(resign(client, other["id"], tokens[0]), 403, "forbidden")
    assert_problem(resign(client, "0123456789abcdef", tokens[0]), 404, "not_found")
    assert footprint(client, body["id"]) == before
