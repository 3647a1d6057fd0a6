"""Commands and refusals: RULES.md section 2.1, and the decide/apply contract."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.engine import (
    FULL_DECK,
    Card,
    CardNotInHand,
    CardPlayed,
    Deal,
    EngineError,
    Game,
    GameNotActive,
    GameState,
    InvalidCard,
    InvalidDeck,
    InvalidRules,
    NotDealing,
    NotYourTurn,
    Play,
    Rules,
    decide,
    evolve,
)

from .helpers import all_cards, codes, deck_starting_with, play_round, position

TOP = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S AH 2H"  # hands AS..4S and 5S..8S; floor 9S 10S AH 2H


def new_game(players: int = 2, **options: Any) -> Game:
    game = Game(Rules.from_dict(options), players)
    game.deal(deck_starting_with(TOP))
    return game


def finished_game() -> Game:
    game = Game(Rules(target_score=1), 2)
    rng = random.Random(1)
    while not game.is_over:
        game.deal(deck_starting_with(TOP))
        play_round(game, rng)
    return game


def refused(game: Game, command: Deal | Play, error: type[EngineError]) -> None:
    """The command raises ``error`` and leaves the game exactly as it was."""
    before, events = game.state.to_dict(), list(game.events)
    with pytest.raises(error):
        game.execute(command)
    assert game.state.to_dict() == before
    assert game.events == events


def test_a_card_played_before_the_deal_is_refused() -> None:
    refused(Game(), Play(0, Card.parse("AS")), GameNotActive)


def test_a_card_played_after_the_match_ended_is_refused() -> None:
    game = finished_game()
    assert game.is_over
    refused(game, Play(0, game.state.hands[0][0] if game.state.hands[0] else FULL_DECK[0]),
            GameNotActive)  # fmt: skip
    refused(game, Deal(tuple(FULL_DECK)), NotDealing)


def test_a_deal_while_a_round_is_being_played_is_refused() -> None:
    refused(new_game(), Deal(tuple(FULL_DECK)), NotDealing)


@pytest.mark.parametrize("seat", [1, 2, -1, 5], ids=["other-seat", "no-such-seat-2", "neg", "5"])
def test_a_move_out_of_turn_is_refused(seat: int) -> None:
    refused(new_game(), Play(seat, Card.parse("5S")), NotYourTurn)


def test_a_move_out_of_turn_with_four_players_is_refused() -> None:
    game = new_game(4)
    for seat in (1, 2, 3):
        refused(game, Play(seat, game.state.hands[seat][0]), NotYourTurn)


@pytest.mark.parametrize(
    "code", ["5S", "9S", "KC", "JD"], ids=["other-hand", "on-floor", "in-stock", "stock-jack"]
)
def test_a_card_not_in_the_hand_is_refused(code: str) -> None:
    refused(new_game(), Play(0, Card.parse(code)), CardNotInHand)


def test_a_card_already_played_is_refused() -> None:
    game = new_game()
    game.play(0, Card.parse("AS"))
    game.play(1, Card.parse("5S"))
    refused(game, Play(0, Card.parse("AS")), CardNotInHand)


@pytest.mark.parametrize(
    "deck",
    [
        list(FULL_DECK[:51]),
        [*FULL_DECK, FULL_DECK[0]],
        [*FULL_DECK[:51], FULL_DECK[0]],
        [],
        [str(card) for card in FULL_DECK],
        [*FULL_DECK[:51], "KC"],
    ],
    ids=["51-cards", "53-cards", "a-duplicate", "empty", "codes-not-cards", "one-code"],
)
def test_a_deal_with_a_bad_deck_is_refused(deck: list[Any]) -> None:
    refused(Game(), Deal(tuple(deck)), InvalidDeck)


def test_engine_errors_carry_a_code_for_the_http_layer() -> None:
    expected = {
        CardNotInHand: "card_not_in_hand",
        GameNotActive: "game_not_active",
        InvalidDeck: "invalid_deck",
        NotDealing: "not_dealing",
        NotYourTurn: "not_your_turn",
        InvalidCard: "invalid_card",
        InvalidRules: "invalid_rules",
    }
    for error, code in expected.items():
        assert issubclass(error, EngineError)
        assert error.code == code


def test_a_trailed_card_stays_on_the_floor() -> None:
    game = new_game()
    events = game.play(0, Card.parse("3S"))  # floor 9S 10S AH 2H: 3 = A + 2
    assert codes(game.state.floor) == ["9S", "10S"]
    events = game.play(1, Card.parse("6S"))  # nothing sums to 6 now
    assert events == [CardPlayed(2, 1, 1, Card.parse("6S"), (), None)]
    assert codes(game.state.floor) == ["9S", "10S", "6S"]
    assert game.state.last_capturer == 0
    assert game.state.turn == 0


def test_a_capture_moves_the_card_and_what_it_took_to_the_sides_pile() -> None:
    game = new_game()
    game.play(0, Card.parse("3S"))
    assert codes(game.state.piles[0]) == ["AH", "2H", "3S"]
    assert game.state.piles[1] == []
    assert game.state.last_capturer == 0
    assert game.state.turn == 1
    assert game.state.moves == 1


def test_decide_never_changes_the_state() -> None:
    game = new_game()
    before = game.state.to_dict()
    events = decide(game.state, Play(0, Card.parse("3S")))
    assert game.state.to_dict() == before
    assert len(events) == 1


def test_evolve_returns_a_new_state_and_leaves_the_old_one_alone() -> None:
    game = new_game()
    before = game.state.to_dict()
    [event] = decide(game.state, Play(0, Card.parse("3S")))
    following = evolve(game.state, event)
    assert game.state.to_dict() == before
    game.play(0, Card.parse("3S"))
    assert following.to_dict() == game.state.to_dict()


def test_the_52_cards_are_held_once_each_while_a_round_is_played() -> None:
    game = new_game(4)
    rng = random.Random(2)
    while game.state.phase == "playing":
        held = all_cards(game.state)
        assert sorted(held) == list(FULL_DECK)
        assert set(held.values()) == {1}
        state = game.state
        assert state.turn is not None
        hand = state.hands[state.turn]
        game.play(state.turn, hand[rng.randrange(len(hand))])


def test_a_game_has_two_or_four_players() -> None:
    for players in (0, 1, 3, 5):
        with pytest.raises(ValueError):
            Game(Rules(), players)
    with pytest.raises(ValueError):
        GameState.new(Rules(), 3)


def test_a_game_built_from_its_events_is_the_same_game() -> None:
    game = finished_game()
    again = Game.from_events(game.state.rules, 2, game.events)
    assert again.state.to_dict() == game.state.to_dict()
    assert again.events == game.events


def test_the_position_helper_builds_a_consistent_state() -> None:
    state = position(hands=["AS", "2S"], floor="3S")
    assert sorted(all_cards(state)) == list(FULL_DECK)


# ---- the rules object (the `rules` of POST /games)


def test_the_default_rules_are_those_in_bold() -> None:
    assert Rules.from_dict(None) == Rules()
    assert Rules().to_dict() == {
        "target_score": 101,
        "capture": "auto",
        "seven_diamonds": "wild",
        "seven_on_floor": "wild",
        "jack_basra": "lone_jack",
        "initial_floor": "bury",
        "majority_tie": "none",
        "basra_on_final_play": True,
        "end_tie": "play_on",
        "majority_points": 30,
        "basra_points": 10,
        "jack_basra_points": 30,
        "turn_seconds": None,
        "max_timeouts": 3,
        "idle_seconds": 86400,
    }


def test_rules_round_trip_through_a_dict() -> None:
    rules = Rules(seven_diamonds="jack", target_score=51, basra_on_final_play=False)
    assert Rules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize(
    ("options", "bad_key"),
    [
        ({"colour": "red"}, "colour"),
        ({"seven_diamonds": "wildest"}, "seven_diamonds"),
        ({"seven_on_floor": "jack"}, "seven_on_floor"),
        ({"jack_basra": True}, "jack_basra"),
        ({"initial_floor": "shuffle"}, "initial_floor"),
        ({"majority_tie": "split"}, "majority_tie"),
        ({"end_tie": "coin"}, "end_tie"),
        ({"capture": "choose"}, "capture"),
        ({"target_score": 0}, "target_score"),
        ({"target_score": 10001}, "target_score"),
        ({"target_score": "101"}, "target_score"),
        ({"target_score": True}, "target_score"),
        ({"target_score": 101.0}, "target_score"),
        ({"majority_points": -1}, "majority_points"),
        ({"basra_points": 1001}, "basra_points"),
        ({"jack_basra_points": None}, "jack_basra_points"),
        ({"basra_on_final_play": "yes"}, "basra_on_final_play"),
        ({"basra_on_final_play": 1}, "basra_on_final_play"),
    ],
    ids=lambda value: str(value),
)
def test_a_bad_rule_is_refused_with_its_key(options: dict[str, Any], bad_key: str) -> None:
    with pytest.raises(InvalidRules) as raised:
        Rules.from_dict(options)
    assert set(raised.value.errors) == {bad_key}


def test_every_bad_rule_is_reported_at_once() -> None:
    with pytest.raises(InvalidRules) as raised:
        Rules.from_dict({"colour": 1, "end_tie": "x", "target_score": -5})
    assert set(raised.value.errors) == {"colour", "end_tie", "target_score"}


@pytest.mark.parametrize(
    ("key", "values"),
    [
        ("seven_diamonds", ["wild", "sum_le_10", "jack", "plain"]),
        ("seven_on_floor", ["wild", "plain"]),
        ("jack_basra", ["lone_jack", "off"]),
        ("initial_floor", ["bury", "allow"]),
        ("majority_tie", ["none", "carry_over"]),
        ("end_tie", ["play_on", "draw"]),
        ("basra_on_final_play", [True, False]),
        ("target_score", [1, 101, 10000]),
    ],
)
def test_every_allowed_option_value_is_accepted(key: str, values: list[Any]) -> None:
    for value in values:
        assert getattr(Rules.from_dict({key: value}), key) == value
