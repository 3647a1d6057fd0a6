"""Invitations (API.md item 15): a game with open seats answers an invite, shown once; a
join needs it unless the game is public; only public games are listed as waiting; waiting
games nobody joins in time end cancelled, with the seed revealed."""

from __future__ import annotations

from typing import Any

from app import create_app

from .clock_support import clock_at, kinds, later, sweep, verified
from .helpers import create
from .support import assert_problem, footprint, play, view

OPEN = [{"name": "Amira"}, {"open": True}]


def join(client: Any, game_id: str, **body: Any) -> Any:
    return client.post(f"/games/{game_id}/join", json={"name": "Badr", **body})


def listed_waiting(client: Any) -> set[str]:
    page = client.get("/games?status=waiting&limit=100").get_json()
    return {game["id"] for game in page["games"]}


def test_a_game_with_open_seats_answers_an_invite_and_one_without_does_not(client):
    game = create(client, OPEN)
    assert isinstance(game["invite"], str) and len(game["invite"]) >= 20
    assert "invite" not in create(client, [{"name": "Amira"}, {"bot": "greedy"}])
    assert create(client, OPEN)["invite"] != game["invite"]


def test_the_invite_is_shown_once_and_stored_only_as_a_hash(client):
    game = create(client, OPEN)
    seen = [view(client, game["id"]), client.get(f"/games/{game['id']}/events").get_json()]
    assert game["invite"] not in repr(seen)


def test_joining_without_the_invite_or_with_a_wrong_one_is_forbidden(client):
    game = create(client, OPEN)
    before = footprint(client, game["id"])
    assert_problem(join(client, game["id"]), 403, "forbidden")
    assert_problem(join(client, game["id"], invite="guess"), 403, "forbidden")
    assert footprint(client, game["id"]) == before
    assert view(client, game["id"])["status"] == "waiting"


def test_a_public_game_is_joined_without_an_invite_and_listed_as_waiting(client):
    public = create(client, OPEN, public=True)
    private = create(client, OPEN)
    listed = listed_waiting(client)
    assert public["id"] in listed and private["id"] not in listed
    assert join(client, public["id"]).status_code == 201


def test_public_must_be_true_or_false(client):
    response = client.post("/games", json={"players": OPEN, "public": "yes"})
    assert_problem(response, 422, "invalid_request")


def test_a_waiting_game_nobody_joins_in_time_ends_cancelled(client, database_url):
    short = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "off",
                        "WAITING_TTL_SECONDS": 2})  # fmt: skip
    try:
        game = create(short.test_client(), OPEN)
        token = game["seats"][0]["token"]
        soon = later(1)  # the view too: the sweep may take a while settling other tests' clocks
        sweep(short, soon)
        with clock_at(client.application, soon):
            assert view(client, game["id"])["status"] == "waiting"
        sweep(short, later(3))
    finally:
        short.extensions["basra_db"].dispose()
    state = view(client, game["id"], token)
    assert state["status"] == "cancelled" and state["winner"] is None
    assert state["deadline"] is None
    assert kinds(client, game["id"])[-2:] == ["GameCancelled", "SeedRevealed"]
    assert client.get(f"/games/{game['id']}/fairness").get_json()["server_seed"]
    verified(client, game["id"])
    assert_problem(join(client, game["id"], invite=game["invite"]), 409, "game_full")
    assert_problem(play(client, game["id"], token, "7D"), 409, "game_not_active")
    listed = client.get("/games?status=cancelled&limit=100").get_json()["games"]
    assert game["id"] in {entry["id"] for entry in listed}


def test_a_waiting_game_is_kept_a_day_by_default(app, client):
    game = create(client, OPEN)
    sweep(app, later(23 * 3600))
    assert view(client, game["id"])["status"] == "waiting"
    sweep(app, later(24 * 3600 + 5))
    assert view(client, game["id"])["status"] == "cancelled"
