"""POST /games/{id}/moves: exact positions from stacked decks, checked through the API."""

from __future__ import annotations

import random

import pytest

from .helpers import bearer, create, human_vs_bot, play_to_end
from .support import (
    BOTS_ONLY,
    MOVE_FIELDS,
    assert_problem,
    finished_bot_game,
    moves,
    play_ok,
    stacked_humans,
    view,
)

BASRA_FLOOR = ["AH", "5S", "9D", "3C"]  # RULES.md 8, position 4: a 9 takes them all


def side(state, number):
    return state["sides"][number]


def test_a_move_answers_201_with_the_moves_it_applied_and_the_callers_view(client):
    game, tokens = stacked_humans(client, [["9S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]],
                                  BASRA_FLOOR)  # fmt: skip
    body = play_ok(client, game["id"], tokens[0], "9S")
    assert set(body) >= {"moves", "state"}
    (move,) = body["moves"]
    assert set(move) == MOVE_FIELDS
    assert (move["n"], move["round"], move["seat"], move["card"]) == (1, 1, 0, "9S")
    assert body["state"]["you"] == 0 and body["state"]["turn"] == 1
    assert body["state"]["last_move"] == move
    assert "legal_moves" not in body["state"]  # no longer our turn


def test_a_number_card_that_clears_the_floor_is_a_basra(client):
    game, tokens = stacked_humans(client, [["9S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]],
                                  BASRA_FLOOR)  # fmt: skip
    body = play_ok(client, game["id"], tokens[0], "9S")
    move = body["moves"][0]
    assert sorted(move["captured"]) == sorted(BASRA_FLOOR)
    assert "9S" not in move["captured"]  # floor cards only
    assert move["basra"] == "basra"
    state = body["state"]
    assert state["floor"] == []
    assert side(state, 0)["captured"] == 5 and side(state, 0)["basras"] == 1
    assert side(state, 1)["captured"] == 0 and side(state, 1)["basras"] == 0
    assert state["last_capturer"] == 0


def test_a_card_on_an_empty_floor_is_trailed_and_a_jack_on_a_lone_jack_is_a_jack_basra(client):
    game, tokens = stacked_humans(client, [["9S", "JH", "3D", "4H"], ["JC", "KD", "QC", "QD"]],
                                  BASRA_FLOOR)  # fmt: skip
    play_ok(client, game["id"], tokens[0], "9S")
    trailed = play_ok(client, game["id"], tokens[1], "JC")["moves"][0]
    assert (trailed["card"], trailed["captured"], trailed["basra"]) == ("JC", [], None)
    body = play_ok(client, game["id"], tokens[0], "JH")
    assert body["moves"][0]["captured"] == ["JC"]
    assert body["moves"][0]["basra"] == "jack_basra"
    assert side(body["state"], 0)["jack_basras"] == 1
    assert side(body["state"], 0)["captured"] == 7


def test_the_seven_of_diamonds_on_a_lone_jack_is_a_jack_basra(client):
    game, tokens = stacked_humans(client, [["9S", "7D", "3D", "4H"], ["JC", "KD", "QC", "QD"]],
                                  BASRA_FLOOR)  # fmt: skip
    play_ok(client, game["id"], tokens[0], "9S")
    play_ok(client, game["id"], tokens[1], "JC")
    move = play_ok(client, game["id"], tokens[0], "7D")["moves"][0]
    assert (move["captured"], move["basra"]) == (["JC"], "jack_basra")


def test_a_card_that_takes_nothing_is_trailed_onto_the_floor(client):
    game, tokens = stacked_humans(client, [["3C", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]],
                                  ["QH", "9D", "KS", "10C"])  # fmt: skip
    body = play_ok(client, game["id"], tokens[0], "3C")
    assert body["moves"][0]["captured"] == [] and body["moves"][0]["basra"] is None
    assert sorted(body["state"]["floor"]) == sorted(["QH", "9D", "KS", "10C", "3C"])
    assert side(body["state"], 0)["captured"] == 0
    assert body["state"]["last_capturer"] is None


def test_a_number_card_takes_cards_that_sum_to_it_and_leaves_the_rest(client):
    game, tokens = stacked_humans(client, [["5D", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]],
                                  ["2H", "3S", "9C", "QH"])  # fmt: skip
    move = play_ok(client, game["id"], tokens[0], "5D")["moves"][0]
    assert sorted(move["captured"]) == ["2H", "3S"] and move["basra"] is None
    assert sorted(view(client, game["id"])["floor"]) == ["9C", "QH"]


def test_a_queen_takes_only_a_queen(client):
    game, tokens = stacked_humans(client, [["QS", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]],
                                  ["QH", "4C", "6D", "KS"])  # fmt: skip
    move = play_ok(client, game["id"], tokens[0], "QS")["moves"][0]
    assert move["captured"] == ["QH"] and move["basra"] is None


def test_a_card_code_in_lower_case_is_accepted_and_written_in_upper_case(client):
    game, tokens = stacked_humans(client, [["10S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]],
                                  ["QH", "4C", "6D", "KS"])  # fmt: skip
    move = play_ok(client, game["id"], tokens[0], "10s")["moves"][0]
    assert move["card"] == "10S"
    assert sorted(move["captured"]) == ["4C", "6D"]
    assert moves(client, game["id"])[0]["card"] == "10S"


def test_seats_zero_and_two_are_one_side_and_share_one_pile(client):
    hands = [["9S", "4D", "4H", "8C"], ["2C", "KD", "QC", "QD"], ["2H", "KH", "8D", "8H"],
             ["KC", "QH", "10D", "10H"]]  # fmt: skip
    game, tokens = stacked_humans(client, hands, BASRA_FLOOR)
    play_ok(client, game["id"], tokens[0], "9S")
    play_ok(client, game["id"], tokens[1], "2C")
    body = play_ok(client, game["id"], tokens[2], "2H")
    assert (body["moves"][0]["captured"], body["moves"][0]["basra"]) == (["2C"], "basra")
    for state in (body["state"], view(client, game["id"], tokens[0]), view(client, game["id"])):
        assert side(state, 0)["seats"] == [0, 2] and side(state, 1)["seats"] == [1, 3]
        assert side(state, 0)["captured"] == 7 and side(state, 0)["basras"] == 2  # one tally
        assert side(state, 1)["captured"] == 0 and side(state, 1)["basras"] == 0
        assert [s["side"] for s in state["seats"]] == [0, 1, 0, 1]
        assert state["last_capturer"] == 2 and state["turn"] == 3


def test_the_bot_replies_come_after_the_callers_move_in_order(client):
    game, token = human_vs_bot(client, bot="random")
    body = play_ok(client, game["id"], token, game["state"]["hand"][0])
    assert [m["seat"] for m in body["moves"]] == [0, 1]
    assert [m["n"] for m in body["moves"]] == [1, 2]
    assert body["state"]["turn"] == 0
    assert moves(client, game["id"]) == body["moves"]


def test_the_legal_moves_in_the_view_are_what_each_move_then_does(client):
    game, token = human_vs_bot(client, bot="greedy", rules={"target_score": 1})
    state, played, rng = game["state"], 0, random.Random(7)
    while state["status"] == "active":
        assert state["turn"] == 0
        legal = state["legal_moves"]
        assert sorted(entry["card"] for entry in legal) == sorted(state["hand"])
        choice = rng.choice(legal)
        body = play_ok(client, game["id"], token, choice["card"])
        first = body["moves"][0]
        assert first["seat"] == 0 and first["n"] == played + 1
        assert (first["card"], first["captured"], first["basra"]) == (
            choice["card"], choice["captured"], choice["basra"])  # fmt: skip
        played += len(body["moves"])
        assert all(m["seat"] == 1 for m in body["moves"][1:])
        state = body["state"]
        if state["status"] == "active":
            held = sum(s["hand_size"] for s in state["seats"])
            piles = sum(s["captured"] for s in state["sides"])
            assert held + len(state["floor"]) + state["stock"] + piles == 52
            assert len(state["hand"]) == state["seats"][0]["hand_size"]
    assert state["status"] == "finished" and state["winner"] in (0, 1)
    assert len(moves(client, game["id"])) == played


def test_the_hands_are_dealt_again_when_every_hand_is_empty(client):
    game, tokens = stacked_humans(client, [["KS", "KH", "QS", "QH"], ["10S", "10H", "9S", "9H"]],
                                  ["AS", "2S", "3S", "4S"])  # fmt: skip
    for card0, card1 in [("KS", "10S"), ("KH", "10H"), ("QS", "9S"), ("QH", "9H")]:
        play_ok(client, game["id"], tokens[0], card0)
        body = play_ok(client, game["id"], tokens[1], card1)
    state = body["state"]
    assert state["round"] == 1 and state["turn"] == 0
    assert [s["hand_size"] for s in state["seats"]] == [4, 4]
    assert state["stock"] == 32 and len(state["hand"]) == 4


@pytest.mark.parametrize("players", [BOTS_ONLY, BOTS_ONLY * 2], ids=["two-bots", "four-bots"])
def test_a_game_of_bots_finishes_inside_the_create_request_with_consistent_scores(client, players):
    body = finished_bot_game(client, players)
    state = body["state"]
    scores = [side["score"] for side in state["sides"]]
    assert state["winner"] == scores.index(max(scores))
    assert max(scores) >= state["target_score"] and scores.count(max(scores)) == 1
    assert state["rounds"], "at least one round was scored"
    for number, result in enumerate(state["rounds"], start=1):
        assert result["round"] == number
        assert len(result["points"]) == len(result["cards"]) == 2
        assert result["majority"] in (0, 1, None)
    totals = [sum(r["points"][s] for r in state["rounds"]) for s in (0, 1)]
    assert totals == scores
    listed = moves(client, game_id=body["id"])
    assert listed == body["moves"]
    assert [m["n"] for m in listed] == list(range(1, len(listed) + 1))
    assert {m["round"] for m in listed} == set(range(1, len(state["rounds"]) + 1))


def test_a_finished_game_takes_no_more_moves(client):
    game, token = human_vs_bot(client, rules={"target_score": 1})
    final = play_to_end(client, game["id"], token)
    assert final["status"] == "finished"
    response = client.post(f"/games/{game['id']}/moves", json={"card": "7D"}, headers=bearer(token))
    assert_problem(response, 409, "game_not_active")


def test_a_human_seat_after_a_bot_sees_the_bots_move_in_the_creation_response(client):
    body = create(client, [{"bot": "random"}, {"name": "Badr"}, {"bot": "greedy"},
                           {"name": "Dalia"}])  # fmt: skip
    assert body["state"]["last_move"]["seat"] == 0
    assert body["state"]["you"] == 1 and body["state"]["turn"] == 1
    assert "legal_moves" in body["state"]
