"""Who may see what: RULES.md section 7, through ``observe`` and ``SeatView.to_dict``."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from app.engine import FULL_DECK, Card, Game, GameState, Play, Rules, SeatView, decide, observe
from app.engine.fairness import shuffled_deck

from .helpers import codes, deck_starting_with

TOP = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S AH 2H"
ALL_CODES = {str(card) for card in FULL_DECK}


def cards_in(value: Any) -> Iterator[Card]:
    """Every Card anywhere inside a view (dataclasses, tuples, lists)."""
    if isinstance(value, Card):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from cards_in(getattr(value, field.name))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from cards_in(item)


def codes_in(value: Any) -> Iterator[str]:
    """Every card code anywhere inside JSON-ready data."""
    if isinstance(value, str) and value in ALL_CODES:
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from codes_in(key)
            yield from codes_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from codes_in(item)


def hidden_from(state: GameState, seat: int | None) -> set[Card]:
    hidden = set(state.stock)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden.update(hand)
    return hidden


def assert_nothing_hidden_shows(state: GameState, seat: int | None) -> None:
    view = observe(state, seat)
    hidden = hidden_from(state, seat)
    assert not set(cards_in(view)) & hidden
    data = json.loads(json.dumps(view.to_dict()))
    assert not set(codes_in(data)) & {str(card) for card in hidden}


def dealt_game(players: int = 2) -> Game:
    game = Game(Rules(), players)
    game.deal(deck_starting_with(TOP))
    return game


def test_a_seat_sees_its_own_hand_and_only_the_sizes_of_the_others() -> None:
    state = dealt_game().state
    view = observe(state, 0)
    assert codes(view.hand) == ["AS", "2S", "3S", "4S"]
    assert view.hand_sizes == (4, 4)
    data = view.to_dict()
    assert data["you"] == 0
    assert data["hand"] == ["AS", "2S", "3S", "4S"]
    assert [seat["hand_size"] for seat in data["seats"]] == [4, 4]
    assert not any("hand" in seat for seat in data["seats"])


def test_a_spectator_sees_no_hand_and_no_legal_moves() -> None:
    state = dealt_game().state
    view = observe(state, None)
    assert view.hand == ()
    assert view.legal_moves == ()
    data = view.to_dict()
    assert "hand" not in data
    assert "you" not in data
    assert "legal_moves" not in data


def test_public_facts_are_in_every_view() -> None:
    game = dealt_game()
    game.play(0, Card.parse("3S"))  # takes AH 2H
    for seat in (0, 1, None):
        view = observe(game.state, seat)
        assert codes(view.floor) == ["9S", "10S"]
        assert view.turn == 1
        assert view.dealer == 1
        assert view.stock_size == 40
        assert view.last_capturer == 0
        assert view.sides[0].captured == 3
        assert view.last_move is not None
        assert codes(view.last_move.captured) == ["AH", "2H"]
        data = view.to_dict()
        assert data["stock"] == 40
        assert data["last_move"] == {
            "n": 1, "round": 1, "seat": 0, "card": "3S", "captured": ["AH", "2H"], "basra": None,
        }  # fmt: skip
        assert data["sides"][0]["captured"] == 3
        assert data["sides"][0]["seats"] == [0]


def test_four_players_see_their_team_as_one_side() -> None:
    data = observe(dealt_game(4).state, 2).to_dict()
    assert [side["seats"] for side in data["sides"]] == [[0, 2], [1, 3]]
    assert [seat["side"] for seat in data["seats"]] == [0, 1, 0, 1]


def test_legal_moves_are_shown_only_to_the_seat_to_move() -> None:
    state = dealt_game().state
    assert len(observe(state, 0).legal_moves) == 4
    assert "legal_moves" in observe(state, 0).to_dict()
    assert observe(state, 1).legal_moves == ()
    assert "legal_moves" not in observe(state, 1).to_dict()


def test_legal_moves_say_what_playing_each_card_does() -> None:
    state = dealt_game().state
    moves = observe(state, 0).to_dict()["legal_moves"]
    assert moves == [
        {"card": "AS", "captured": ["AH"], "basra": None},
        {"card": "2S", "captured": ["2H"], "basra": None},
        {"card": "3S", "captured": ["AH", "2H"], "basra": None},
        {"card": "4S", "captured": [], "basra": None},
    ]


def test_no_view_has_legal_moves_before_the_deal_or_after_the_end() -> None:
    game = Game(Rules(target_score=1), 2)
    for seat in (0, 1, None):
        assert observe(game.state, seat).legal_moves == ()
        assert observe(game.state, seat).hand == ()
    rng = random.Random(0)
    while not game.is_over:
        game.deal(shuffled_deck(bytes(32), "", game.state.round + 1))
        while game.state.phase == "playing":
            turn = game.state.turn
            assert turn is not None
            hand = game.state.hands[turn]
            game.play(turn, hand[rng.randrange(len(hand))])
    for seat in (0, 1, None):
        view = observe(game.state, seat)
        assert view.legal_moves == ()
        assert view.winner == game.state.winner
        assert view.to_dict()["winner"] == game.state.winner


@pytest.mark.parametrize("players", [2, 4])
def test_no_view_ever_shows_the_stock_or_another_hand(players: int) -> None:
    rng = random.Random(players)
    for match in range(2):
        game = Game(Rules(), players)
        while not game.is_over:
            game.deal(shuffled_deck(bytes([match]) * 32, "", game.state.round + 1))
            while game.state.phase == "playing":
                for seat in (*range(players), None):
                    assert_nothing_hidden_shows(game.state, seat)
                turn = game.state.turn
                assert turn is not None
                check_legal_moves(game.state)
                hand = game.state.hands[turn]
                game.play(turn, hand[rng.randrange(len(hand))])


def check_legal_moves(state: GameState) -> None:
    turn = state.turn
    assert turn is not None
    view = observe(state, turn)
    assert [move.card for move in view.legal_moves] == state.hands[turn]
    for move in view.legal_moves:
        played = decide(state, Play(turn, move.card))[0]
        assert (played.captured, played.basra) == (move.captured, move.basra)  # type: ignore[union-attr]


def test_a_seat_view_has_no_field_for_the_stock_or_other_hands() -> None:
    names = {field.name for field in dataclasses.fields(SeatView)}
    assert "stock" not in names
    assert "hands" not in names
    assert {"hand", "hand_sizes", "stock_size"} <= names
