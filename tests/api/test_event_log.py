"""GET /games/{id}/moves and /events: the public move list and the append-only log,
redacted while the game is on (no dealt deck anywhere) and whole once it is over."""

from __future__ import annotations

import re

import pytest

from .helpers import bearer, human_vs_bot, play_to_end
from .support import (
    MOVE_FIELDS,
    assert_problem,
    card_strings,
    events,
    finished_bot_game,
    moves,
    not_in,
    play,
    play_ok,
    view,
)

EVENT_FIELDS = {"seq", "type", "data", "at", "hash"}
HEX64 = re.compile(r"^[0-9a-f]{64}$")


def test_the_move_list_is_every_move_so_far_in_order(client):
    game, token = human_vs_bot(client, bot="random")
    applied = []
    state = game["state"]
    for _ in range(5):
        body = play_ok(client, game["id"], token, state["hand"][0])
        applied += body["moves"]
        state = body["state"]
    listed = moves(client, game["id"])
    assert listed == applied
    assert [m["n"] for m in listed] == list(range(1, len(listed) + 1))
    for move in listed:
        assert set(move) == MOVE_FIELDS
        assert move["basra"] in (None, "basra", "jack_basra")


def test_the_move_list_is_public_and_matches_the_logged_card_plays(client):
    game = finished_bot_game(client)
    listed = client.get(f"/games/{game['id']}/moves").get_json()["moves"]
    logged = [e["data"] for e in events(client, game["id"]) if e["type"] == "CardPlayed"]
    assert listed == [{key: data[key] for key in MOVE_FIELDS} for data in logged]


def test_the_move_list_of_an_unknown_game_is_not_found(client):
    assert_problem(client.get("/games/nope/moves"), 404, "not_found")


def test_each_event_has_a_seq_type_data_time_and_hash(client):
    game, _ = human_vs_bot(client)
    log = events(client, game["id"])
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    assert log[-1]["seq"] == view(client, game["id"])["version"]
    assert log[0]["type"] == "GameCreated" and log[1]["type"] == "RoundDealt"
    for event in log:
        assert set(event) == EVENT_FIELDS
        assert isinstance(event["data"], dict) and isinstance(event["at"], str)
        assert HEX64.match(event["hash"])
    assert len({e["hash"] for e in log}) == len(log)


@pytest.mark.both_databases
def test_after_n_lists_only_the_events_after_seq_n(client):
    game = finished_bot_game(client)
    log = events(client, game["id"])
    for after in (0, 1, 5, len(log) - 1, len(log), len(log) + 10):
        assert events(client, game["id"], after=after) == log[after:]


@pytest.mark.parametrize("after", ["-1", "x", "1.5"])
def test_after_must_be_a_whole_number_from_zero(client, after):
    game, _ = human_vs_bot(client)
    assert_problem(client.get(f"/games/{game['id']}/events?after={after}"), 422, "invalid_request")


def test_the_events_check_the_token_of_the_caller(client):
    game, _ = human_vs_bot(client)
    _, other_token = human_vs_bot(client)
    url = f"/games/{game['id']}/events"
    assert_problem(client.get(url, headers=bearer("nope")), 401, "unauthorized")
    assert_problem(client.get(url, headers=bearer(other_token)), 403, "forbidden")
    assert_problem(client.get("/games/nope/events"), 404, "not_found")


def test_no_dealt_deck_is_in_the_log_while_the_game_is_on_for_anyone(client):
    game, token = human_vs_bot(client)
    for log in (events(client, game["id"]), events(client, game["id"], token)):
        dealt = [e for e in log if e["type"] == "RoundDealt"]
        assert dealt and all("deck" not in e["data"] for e in dealt)
        assert set(card_strings(log)) == set()  # nothing has been played yet


def test_the_redacted_log_is_the_whole_log_without_the_decks(client):
    game, token = human_vs_bot(client, rules={"target_score": 1})
    redacted = events(client, game["id"])
    play_to_end(client, game["id"], token)
    whole = events(client, game["id"])
    for hidden, full in zip(redacted, whole, strict=False):
        data = {key: value for key, value in full["data"].items() if key != "deck"}
        assert hidden == {**full, "data": data}


def test_no_hidden_card_appears_in_any_view_event_or_error_while_the_game_is_on(client):
    """Record every answer while the game is on; once it is over, replay tells which
    cards were hidden (the stock and the other hands) at that moment: none may appear."""
    game, token = human_vs_bot(client, rules={"target_score": 1})
    game_id, seen = game["id"], []  # (step, seat or None, answer, card we sent ourselves)
    state, step = game["state"], 0
    # The first round only. A match that goes on (both sides still under the target, or a
    # tie) deals all 52 cards again: every card of round 2 was shown when round 1 played it,
    # so an answer's cards say nothing there, and the answer that deals it shows round 1's
    # last plays beside round 2's stock (this test failed on 1 run in 10 for that reason).
    while state["status"] == "active" and state["round"] == 1:
        this_round = [m["card"] for m in moves(client, game_id)]  # a card nobody played yet
        stranger = not_in(state["hand"], state["floor"], this_round)
        refused = play(client, game_id, token, stranger)
        assert refused.status_code == 422
        seen += [
            (step, None, view(client, game_id), None),
            (step, 0, view(client, game_id, token), None),
            (step, None, events(client, game_id), None),
            (step, 0, events(client, game_id, token), None),
            (step, 0, refused.get_json(), stranger),
        ]
        body = play_ok(client, game_id, token, state["legal_moves"][0]["card"])
        step, state = step + len(body["moves"]), body["state"]
        if state["round"] == 1:
            seen.append((step, 0, body, None))
    while state["status"] == "active":  # the replay opens once the match is over
        state = play_ok(client, game_id, token, state["legal_moves"][0]["card"])["state"]
    replays = {}
    for step, seat, answer, sent in seen:
        if step not in replays:
            replays[step] = client.get(f"/games/{game_id}/replay?step={step}").get_json()["state"]
        full = replays[step]
        hidden = set(full["stock"]).union(*(h for s, h in enumerate(full["hands"]) if s != seat))
        leaked = set(card_strings(answer)) & hidden - {sent}
        assert not leaked, (step, seat, sorted(leaked))
