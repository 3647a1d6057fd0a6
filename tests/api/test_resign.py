"""POST /games/{id}/resign (API.md item 14) over HTTP: the answer, and each refusal. What a
resignation does to the game, its log and its replay: tests/services/test_deadlines.py."""

from __future__ import annotations

from typing import Any

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
