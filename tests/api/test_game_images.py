"""A move against bots decided from the image its process kept of the game at its last save
(app/services/game_images.py), on both databases, through the HTTP API. ``other`` is a second
app on the same database: another process or instance, with images of its own, which moves
the games behind the first one's back. Whatever an image gets wrong must never show: every
answer is the one a fresh load would have given."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from prometheus_client import REGISTRY

from app import create_app
from app.services.game_images import GameImage, GameImages
from app.services.model import GameRecord

from .clock_support import clock_at, kinds, later, verified
from .helpers import bearer, human_vs_bot
from .players_support import new_player
from .support import assert_problem, moves, play, play_ok, view

pytestmark = pytest.mark.both_databases


@pytest.fixture(scope="module")
def other(database_url: str) -> Iterator[Any]:
    application = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "off"})
    application.testing = True
    yield application
    application.extensions["basra_hub"].shutdown()
    application.extensions["basra_bot_runner"].stop()
    application.extensions["basra_db"].dispose()


def images_of(app: Any) -> GameImages:
    images: GameImages = app.extensions["basra_images"]
    return images


def outcomes() -> dict[str, float]:
    """How many moves were saved from an image, and how many decided again (this process)."""
    sample = REGISTRY.get_sample_value
    return {
        outcome: sample("basra_game_images_total", {"outcome": outcome}) or 0.0
        for outcome in ("used", "missed")
    }


def counted(before: dict[str, float]) -> dict[str, float]:
    return {outcome: count - before[outcome] for outcome, count in outcomes().items()}


def loaded(app: Any, game_id: str) -> GameRecord:
    with app.extensions["basra_uow"]() as uow:
        game = uow.games.get(game_id)
    assert game is not None
    return game


def utc(moment: datetime) -> datetime:
    """SQLite hands stored UTC times back without their zone."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def assert_same_as_loaded(app: Any, image: GameImage) -> None:
    """The image is the game a load gives: each field, each seat, the state and its rounds."""
    game_id = image.fields["id"]
    fresh, kept = loaded(app, game_id), image.record()
    for name, value in image.fields.items():
        stored = getattr(fresh, name)
        if isinstance(value, datetime):
            value, stored = utc(value), utc(stored)
        assert value == stored, name
    assert kept.seats == fresh.seats
    assert kept.rounds == fresh.rounds
    assert kept.snapshot == fresh.snapshot
    assert kept.state.to_dict() == fresh.state.to_dict()


def test_a_move_against_a_bot_is_decided_from_the_image_of_the_last_save(app, client):
    body, token = human_vs_bot(client)
    game_id = body["id"]
    assert images_of(app).peek(game_id) is not None  # kept by the creation
    before = outcomes()
    for _ in range(3):
        state = play_ok(client, game_id, token, view(client, game_id, token)["hand"][0])["state"]
    assert counted(before) == {"used": 3, "missed": 0}
    kept = images_of(app).peek(game_id)
    assert kept is not None and kept.version == state["version"]
    verified(client, game_id)


def test_every_image_kept_through_a_match_is_the_game_a_load_gives(app, client):
    body, token = human_vs_bot(client, rules={"target_score": 11})
    game_id = body["id"]
    state, checked = body["state"], 0
    while state["status"] == "active":
        image = images_of(app).peek(game_id)
        assert image is not None and image.version == state["version"]
        assert_same_as_loaded(app, image)
        checked += 1
        state = play_ok(client, game_id, token, state["hand"][0])["state"]
    assert checked > 20  # rounds were dealt and scored on the way
    assert images_of(app).peek(game_id) is None  # a match over keeps none
    verified(client, game_id)


def test_a_stale_image_costs_a_refused_save_and_the_move_is_decided_again(app, client, other):
    body, token = human_vs_bot(client)
    game_id, hand = body["id"], body["state"]["hand"]
    elsewhere = other.test_client()
    play_ok(elsewhere, game_id, token, hand[0])  # the image in ``app`` is one move behind
    before = outcomes()
    # The image still holds hand[0]: decided from it, the card would be played again.
    assert_problem(play(client, game_id, token, hand[0]), 422, "card_not_in_hand")
    after = view(client, game_id, token)
    assert after["version"] == view(elsewhere, game_id, token)["version"]
    played = play_ok(client, game_id, token, after["hand"][0])
    assert counted(before) == {"used": 0, "missed": 1}  # the refusal; the move was loaded
    assert [m["card"] for m in moves(client, game_id) if m["seat"] == 0] == [
        hand[0], after["hand"][0]
    ]  # fmt: skip
    assert played["state"]["version"] == view(elsewhere, game_id, token)["version"]
    verified(client, game_id)


def test_a_game_whose_moves_wander_between_processes_costs_each_one_miss(app, client, other):
    """A client that reaches another process on each move (a connection a request): each
    process misses once, then keeps no image of the game and loads it like any other."""
    body, token = human_vs_bot(client)
    game_id, state = body["id"], body["state"]
    clients = [other.test_client(), client]
    before = outcomes()
    for n in range(10):
        state = play_ok(clients[n % 2], game_id, token, state["hand"][0])["state"]
    assert counted(before) == {"used": 0, "missed": 2}
    assert images_of(app).peek(game_id) is None and images_of(other).peek(game_id) is None
    verified(client, game_id)


def test_a_move_the_stale_image_would_refuse_is_answered_from_the_database(app, client, other):
    body, token = human_vs_bot(client)
    game_id = body["id"]
    elsewhere = other.test_client()
    now = play_ok(elsewhere, game_id, token, body["state"]["hand"][0])["state"]
    before = outcomes()
    # If-Match names the version the database has, not the image's.
    if_match = {"If-Match": f'"{now["version"]}"'}
    played = play_ok(client, game_id, token, now["hand"][0], headers=if_match)
    assert counted(before) == {"used": 0, "missed": 1}
    assert played["state"]["version"] > now["version"]
    verified(client, game_id)


def test_a_keyed_retry_from_an_image_gets_the_stored_answer_and_changes_nothing(app, client):
    body, token = human_vs_bot(client)
    game_id, card = body["id"], body["state"]["hand"][0]
    keyed = {"Idempotency-Key": "image-retry-1"}
    first = play(client, game_id, token, card, headers=keyed)
    assert first.status_code == 201
    again = play(client, game_id, token, card, headers=keyed)
    assert again.status_code == first.status_code and again.get_json() == first.get_json()
    # A legal card under a key already used: the image would play it, the save refuses.
    other_card = first.get_json()["state"]["hand"][0]
    assert_problem(play(client, game_id, token, other_card, headers=keyed), 422,
                   "idempotency_conflict")  # fmt: skip
    assert view(client, game_id, token)["version"] == first.get_json()["state"]["version"]
    assert len([m for m in moves(client, game_id) if m["seat"] == 0]) == 1
    verified(client, game_id)


def test_a_turn_out_of_time_is_played_for_before_an_image_is_used(app, client):
    body, token = human_vs_bot(client, rules={"turn_seconds": 30})
    game_id = body["id"]
    state = play_ok(client, game_id, token, body["state"]["hand"][0])["state"]
    assert images_of(app).peek(game_id) is not None
    with clock_at(app, later(31)):
        view_now = view(client, game_id, token)  # the read settles the timeout...
        played = play(client, game_id, token, view_now["hand"][0])
    assert played.status_code == 201, played.get_json()
    assert "TurnTimedOut" in kinds(client, game_id)
    assert played.get_json()["state"]["version"] > view_now["version"] > state["version"]
    verified(client, game_id)


def test_a_due_turn_is_settled_by_the_move_that_finds_it(app, client):
    body, token = human_vs_bot(client, rules={"turn_seconds": 30})
    game_id = body["id"]
    state = play_ok(client, game_id, token, body["state"]["hand"][0])["state"]
    before = outcomes()
    with clock_at(app, later(31)):
        played = play(client, game_id, token, state["hand"][0])  # ...or the move does
    # The timeout was saved first, from a load, and the move decided from what that save kept.
    assert counted(before)["missed"] == 0
    assert "TurnTimedOut" in kinds(client, game_id)
    # The card timed out for the seat was the one that takes least: ours may be gone.
    assert played.status_code in (201, 422), played.get_json()
    assert view(client, game_id, token)["version"] > state["version"]
    verified(client, game_id)


def test_a_game_between_humans_keeps_no_image(app, client):
    created = client.post("/games", json={"players": [{"name": "A"}, {"name": "B"}]}).get_json()
    game_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    turn = created["state"]["turn"]
    hand = view(client, game_id, tokens[turn])["hand"]
    play_ok(client, game_id, tokens[turn], hand[0])
    assert images_of(app).peek(game_id) is None  # the next move is the other human's


def test_with_images_off_every_move_loads_its_game(database_url):
    application = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "off",
                              "GAME_IMAGES": 0})  # fmt: skip
    try:
        client = application.test_client()
        body, token = human_vs_bot(client)
        before = outcomes()
        play_ok(client, body["id"], token, body["state"]["hand"][0])
        assert counted(before) == {"used": 0, "missed": 0}
        assert len(images_of(application)) == 0
    finally:
        application.extensions["basra_hub"].shutdown()
        application.extensions["basra_bot_runner"].stop()
        application.extensions["basra_db"].dispose()


def test_a_resignation_drops_the_image(app, client):
    body, token = human_vs_bot(client)
    assert images_of(app).peek(body["id"]) is not None
    client.post(f"/games/{body['id']}/resign", headers=bearer(token))
    assert images_of(app).peek(body["id"]) is None


def test_a_players_moves_against_a_bot_start_from_images_too(app, client):
    player = new_player(client, "Amira")
    created = client.post("/games", json={"players": [{"player": "me"}, {"bot": "greedy"}]},
                          headers=bearer(player["token"]))  # fmt: skip
    assert created.status_code == 201, created.get_json()
    game_id, state = created.get_json()["id"], created.get_json()["state"]
    before = outcomes()
    for _ in range(3):
        state = play_ok(client, game_id, player["token"], state["hand"][0])["state"]
    assert counted(before) == {"used": 3, "missed": 0}
    stranger = new_player(client, "Stranger")  # a player of no seat: refused, image untouched
    kept = images_of(app).peek(game_id)
    assert_problem(play(client, game_id, stranger["token"], state["hand"][0]), 403, "forbidden")
    assert images_of(app).peek(game_id) is kept
    verified(client, game_id)
