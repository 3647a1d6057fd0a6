"""POST /games/{id}/join over HTTP: the answer, the checks of its body and their limits. Which
seat a join takes, when the game deals and who is refused: tests/services."""

from __future__ import annotations

from .helpers import bearer, create
from .support import VIEW_FIELDS, assert_problem, footprint, view


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
