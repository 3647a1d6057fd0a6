"""GET /replay, /verify and /fairness: the audit of a game, through the API alone (what each
replayed step holds, round after round: tests/services/test_audit.py)."""

from __future__ import annotations

import hashlib

import pytest

from app.engine.cards import codes
from app.engine.fairness import shuffled_deck

from .helpers import create, human_vs_bot, play_to_end, stacked_deck
from .support import (
    VIEW_FIELDS,
    assert_problem,
    events,
    finished_bot_game,
    moves,
    whole_decks,
)


def replay(client, game_id, step):
    response = client.get(f"/games/{game_id}/replay?step={step}")
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["step"] == step
    return body["state"]


def all_cards(state):
    return [*(c for hand in state["hands"] for c in hand), *state["stock"], *state["floor"],
            *(c for pile in state["piles"] for c in pile)]  # fmt: skip


# ---------------------------------------------------------------- replay
def test_replay_opens_only_once_the_game_is_finished(client):
    game, _ = human_vs_bot(client)
    assert_problem(client.get(f"/games/{game['id']}/replay?step=0"), 409, "game_not_finished")
    waiting = create(client, [{"name": "Amira"}, {"open": True}])
    assert_problem(client.get(f"/games/{waiting['id']}/replay?step=0"), 409, "game_not_finished")
    assert_problem(client.get("/games/nope/replay?step=0"), 404, "not_found")


def test_step_zero_is_right_after_the_first_deal(client):
    deck = stacked_deck(
        [["9S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]], ["AH", "5S", "9D", "3C"]
    )
    game = finished_bot_game(client, deck=deck)
    state = replay(client, game["id"], 0)
    assert set(state) >= VIEW_FIELDS and {"hands", "stock", "piles"} <= set(state)
    assert (state["round"], state["dealer"], state["turn"], state["status"]) == (1, 1, 0, "active")
    assert state["hands"] == [deck[0:4], deck[4:8]]
    assert state["floor"] == deck[8:12]
    assert state["stock"] == deck[12:]
    assert state["piles"] == [[], []]
    assert state["last_move"] is None and state["rounds"] == []


def test_the_replayed_last_move_is_the_listed_move(client):
    game = finished_bot_game(client)
    listed = moves(client, game["id"])
    for step in (1, 2, 7, 20):
        assert replay(client, game["id"], step)["last_move"] == listed[step - 1]


def test_the_last_step_is_the_end_of_the_match(client):
    game = finished_bot_game(client)
    total = len(moves(client, game["id"]))
    state = replay(client, game["id"], total)
    assert state["status"] == "finished" and state["winner"] == game["state"]["winner"]
    assert state["hands"] == [[], []] and state["stock"] == [] and state["floor"] == []
    assert state["rounds"] == game["state"]["rounds"]


@pytest.mark.parametrize("step", ["past-the-end", "-1", "x"])
def test_a_step_out_of_range_is_refused(client, step):
    game = finished_bot_game(client)
    if step == "past-the-end":
        step = str(len(moves(client, game["id"])) + 1)
    assert_problem(client.get(f"/games/{game['id']}/replay?step={step}"), 422, "invalid_request")


# ---------------------------------------------------------------- verify
def test_verify_passes_every_check_for_a_finished_game(client):
    game = finished_bot_game(client)
    response = client.get(f"/games/{game['id']}/verify")
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] is True
    assert {"hash_chain", "replay", "commitment", "decks"} <= set(body["checks"])
    assert all(check["ok"] is True for check in body["checks"].values())


def test_verify_checks_the_chain_and_the_replay_while_the_game_is_on(client):
    game, token = human_vs_bot(client)
    client.post(f"/games/{game['id']}/moves", json={"card": game["state"]["hand"][0]},
                headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    body = client.get(f"/games/{game['id']}/verify").get_json()
    assert body["ok"] is True
    assert body["checks"]["hash_chain"]["ok"] is True and body["checks"]["replay"]["ok"] is True


def test_verify_passes_for_a_game_still_waiting_for_players(client):
    game = create(client, [{"name": "Amira"}, {"open": True}])
    body = client.get(f"/games/{game['id']}/verify").get_json()
    assert body["ok"] is True and body["checks"]["hash_chain"]["ok"] is True


def test_verify_of_an_unknown_game_is_not_found(client):
    assert_problem(client.get("/games/nope/verify"), 404, "not_found")


# ---------------------------------------------------------------- fairness
def test_fairness_hides_the_server_seed_until_the_game_is_over(client):
    game, _ = human_vs_bot(client)
    body = client.get(f"/games/{game['id']}/fairness").get_json()
    assert body["algorithm"] == "basra-shuffle-v1"
    assert body["commitment"] == game["fairness"]["commitment"]
    assert body.get("server_seed") is None
    assert body["client_seed"] == "|"
    assert game["state"]["version"] > 0
    assert all("server_seed" not in e["data"] for e in events(client, game["id"]))


def test_the_revealed_seed_matches_the_commitment_and_re_derives_every_deck(client):
    game = create(client, [{"name": "Amira", "seed": "alpha"}, {"bot": "greedy"}],
                  rules={"target_score": 60})  # fmt: skip
    play_to_end(client, game["id"], game["seats"][0]["token"])
    body = client.get(f"/games/{game['id']}/fairness").get_json()
    assert body["commitment"] == game["fairness"]["commitment"]
    seed = bytes.fromhex(body["server_seed"])
    assert len(seed) == 32
    assert hashlib.sha256(seed).hexdigest() == body["commitment"]
    assert body["client_seed"] == "alpha|"
    decks = whole_decks(client, game["id"])
    for number, deck in decks.items():
        assert codes(shuffled_deck(seed, body["client_seed"], number)) == deck


def test_a_custom_deck_is_marked_fixed_and_the_later_rounds_are_shuffled(client):
    deck = stacked_deck(
        [["9S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]], ["AH", "5S", "9D", "3C"]
    )
    game = finished_bot_game(client, deck=deck)
    dealt = [e["data"] for e in events(client, game["id"]) if e["type"] == "RoundDealt"]
    assert dealt[0]["fixed"] is True and dealt[0]["deck"] == deck
    assert all(data["fixed"] is False for data in dealt[1:])
    fairness = client.get(f"/games/{game['id']}/fairness").get_json()
    seed = bytes.fromhex(fairness["server_seed"])
    for data in dealt[1:]:
        assert codes(shuffled_deck(seed, fairness["client_seed"], data["round"])) == data["deck"]
    checks = client.get(f"/games/{game['id']}/verify").get_json()["checks"]
    assert checks["decks"]["ok"] is True
    assert checks["decks"]["rounds"][0]["fixed"] is True


def test_fairness_of_an_unknown_game_is_not_found(client):
    assert_problem(client.get("/games/nope/fairness"), 404, "not_found")
