"""POST /games/{id}/moves: what a move answers over HTTP. What a card captures and scores, and
who plays next, are the engine's rules (tests/engine); the use case is tests/services'."""

from __future__ import annotations

from .helpers import human_vs_bot
from .support import (
    MOVE_FIELDS,
    moves,
    play_ok,
    stacked_humans,
)

BASRA_FLOOR = ["AH", "5S", "9D", "3C"]  # RULES.md 8, position 4: a 9 takes them all


def test_a_move_answers_201_with_the_moves_it_applied_and_the_callers_view(client):
    game, tokens = stacked_humans(client, [["9S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]],
                                  BASRA_FLOOR)  # fmt: skip
    body = play_ok(client, game["id"], tokens[0], "9S")
    assert set(body) >= {"moves", "state"}
    (move,) = body["moves"]
    assert set(move) == MOVE_FIELDS
    assert (move["n"], move["round"], move["seat"], move["card"]) == (1, 1, 0, "9S")
    assert sorted(move["captured"]) == sorted(BASRA_FLOOR) and move["basra"] == "basra"
    assert body["state"]["you"] == 0 and body["state"]["turn"] == 1
    assert body["state"]["last_move"] == move
    assert "legal_moves" not in body["state"]  # no longer our turn


def test_a_card_code_in_lower_case_is_accepted_and_written_in_upper_case(client):
    game, tokens = stacked_humans(client, [["10S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]],
                                  ["QH", "4C", "6D", "KS"])  # fmt: skip
    move = play_ok(client, game["id"], tokens[0], "10s")["moves"][0]
    assert move["card"] == "10S"
    assert sorted(move["captured"]) == ["4C", "6D"]
    assert moves(client, game["id"])[0]["card"] == "10S"


def test_the_bot_replies_come_after_the_callers_move_in_order(client):
    game, token = human_vs_bot(client, bot="random")
    body = play_ok(client, game["id"], token, game["state"]["hand"][0])
    assert [m["seat"] for m in body["moves"]] == [0, 1]
    assert [m["n"] for m in body["moves"]] == [1, 2]
    assert body["state"]["turn"] == 0
    assert moves(client, game["id"]) == body["moves"]
