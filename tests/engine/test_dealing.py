"""Setup and dealing: RULES.md section 1, on decks fixed card by card."""

from __future__ import annotations

import random

import pytest

from app.engine import FULL_DECK, Game, HandsDealt, RoundDealt, Rules

from .helpers import codes, deck_starting_with, play_round

# Twenty cards, none a Jack or the 7D, so the floor is dealt as it lies.
PLAIN_TOP = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S AH 2H 3H 4H 5H 6H 7H 8H 9H 10H"


def dealt(players: int, top: str = PLAIN_TOP, rules: Rules | None = None) -> Game:
    game = Game(rules or Rules(), players)
    game.deal(deck_starting_with(top))
    return game


def test_two_players_round_one_the_seat_after_the_dealer_takes_the_first_block() -> None:
    game = dealt(2)
    state = game.state
    assert state.dealer == 1
    assert codes(state.hands[0]) == ["AS", "2S", "3S", "4S"]
    assert codes(state.hands[1]) == ["5S", "6S", "7S", "8S"]
    assert codes(state.floor) == ["9S", "10S", "AH", "2H"]
    assert codes(state.stock) == codes(deck_starting_with(PLAIN_TOP)[12:])
    assert state.turn == 0


def test_four_players_take_blocks_of_four_then_four_go_to_the_floor() -> None:
    state = dealt(4).state
    assert state.dealer == 3
    assert [codes(hand) for hand in state.hands] == [
        ["AS", "2S", "3S", "4S"],
        ["5S", "6S", "7S", "8S"],
        ["9S", "10S", "AH", "2H"],
        ["3H", "4H", "5H", "6H"],
    ]
    assert codes(state.floor) == ["7H", "8H", "9H", "10H"]
    assert len(state.stock) == 32
    assert state.turn == 0


def finish_round(game: Game, seed: int = 0) -> None:
    play_round(game, random.Random(seed))


@pytest.mark.parametrize(
    ("players", "dealers"),
    [(2, [1, 0, 1, 0, 1]), (4, [3, 0, 1, 2, 3, 0])],
    ids=["two-players", "four-players"],
)
def test_the_dealer_moves_one_seat_each_round_and_the_next_seat_leads(
    players: int, dealers: list[int]
) -> None:
    game = Game(Rules(target_score=10000), players)
    for round_number, dealer in enumerate(dealers, start=1):
        game.deal(deck_starting_with(PLAIN_TOP))
        assert (game.state.round, game.state.dealer) == (round_number, dealer)
        assert game.state.turn == (dealer + 1) % players
        first = (dealer + 1) % players
        assert codes(game.state.hands[first]) == ["AS", "2S", "3S", "4S"]
        assert codes(game.state.hands[dealer]) == PLAIN_TOP.split()[4 * (players - 1) : 4 * players]
        finish_round(game, round_number)


def test_in_round_two_of_four_the_dealer_is_seat_0_and_takes_the_last_block() -> None:
    game = Game(Rules(target_score=10000), 4)
    game.deal(deck_starting_with(PLAIN_TOP))
    finish_round(game)
    game.deal(deck_starting_with(PLAIN_TOP))
    state = game.state
    assert [codes(state.hands[seat])[0] for seat in (1, 2, 3, 0)] == ["AS", "5S", "9S", "3H"]
    event = game.events[-1]
    assert isinstance(event, RoundDealt)
    assert (event.round, event.dealer) == (2, 0)


def test_bury_moves_a_jack_on_the_floor_to_the_bottom_of_the_stock() -> None:
    top = "AS 2S 3S 4S 5S 6S 7S 8S 9S JD 10S AH 2H"  # floor 9S JD 10S AH; stock 2H ...
    state = dealt(2, top).state
    assert codes(state.floor) == ["9S", "2H", "10S", "AH"]
    assert codes(state.stock)[-1] == "JD"
    assert len(state.stock) == 40


def test_bury_repeats_at_one_position_until_no_jack_or_7d_lies_there() -> None:
    # Position 1 is JD; the stock's top is then 7D, then JS, then 3H.
    top = "AS 2S 3S 4S 5S 6S 7S 8S 9S JD 10S AH 7D JS 3H"
    state = dealt(2, top).state
    assert codes(state.floor) == ["9S", "3H", "10S", "AH"]
    assert codes(state.stock)[-3:] == ["JD", "7D", "JS"]
    assert codes(state.stock)[0] != "3H"
    assert len(state.stock) == 40


def test_bury_works_position_by_position_in_order() -> None:
    # Floor JS 5H 7D JH; the stock starts 2C 3C 4C.
    top = "AS 2S 3S 4S 5S 6S 7S 8S JS 5H 7D JH 2C 3C 4C"
    state = dealt(2, top).state
    assert codes(state.floor) == ["2C", "5H", "3C", "4C"]
    assert codes(state.stock)[-3:] == ["JS", "7D", "JH"]


def test_bury_with_four_players() -> None:
    top = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S AH 2H 3H 4H 5H 6H 7D 8H 9H 10H JC 2C"
    state = dealt(4, top).state
    # Position 0 held the 7D, then the stock's top JC: both buried, 2C stays.
    assert codes(state.floor) == ["2C", "8H", "9H", "10H"]
    assert codes(state.stock)[-2:] == ["7D", "JC"]
    assert len(state.stock) == 32


def test_allow_leaves_jacks_and_the_7d_on_the_floor() -> None:
    top = "AS 2S 3S 4S 5S 6S 7S 8S JS 5H 7D JH 2C"
    state = dealt(2, top, Rules(initial_floor="allow")).state
    assert codes(state.floor) == ["JS", "5H", "7D", "JH"]
    assert codes(state.stock)[0] == "2C"


def test_the_floor_starts_with_four_cards_and_never_a_jack_or_7d_under_bury() -> None:
    rng = random.Random(7)
    for _ in range(300):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        game = Game(Rules(), rng.choice([2, 4]))
        game.deal(deck)
        floor = game.state.floor
        assert len(floor) == 4
        assert not any(card.rank == "J" or str(card) == "7D" for card in floor)


@pytest.mark.parametrize(("players", "deals"), [(2, 6), (4, 3)], ids=["two", "four"])
def test_hands_are_dealt_again_when_all_are_empty_never_to_the_floor(
    players: int, deals: int
) -> None:
    game = Game(Rules(), players)
    game.deal(deck_starting_with(PLAIN_TOP))
    rng = random.Random(3)
    redeals = 0
    while game.state.phase == "playing":
        state = game.state
        assert state.turn is not None
        floor_before = list(state.floor)
        stock_before = list(state.stock)
        hand = state.hands[state.turn]
        card = hand[rng.randrange(len(hand))]
        events = game.play(state.turn, card)
        if any(isinstance(event, HandsDealt) for event in events):
            redeals += 1
            after = game.state
            floor_after_play = list(floor_before)
            captured = events[0].captured  # type: ignore[union-attr]
            floor_after_play = [c for c in floor_after_play if c not in captured]
            if not captured:
                floor_after_play.append(card)
            assert after.floor == floor_after_play
            order = [(after.dealer + offset) % players for offset in range(1, players + 1)]
            for block, seat in enumerate(order):
                assert after.hands[seat] == stock_before[4 * block : 4 * block + 4]
            assert after.stock == stock_before[4 * players :]
    assert redeals == deals - 1


def test_a_redeal_keeps_the_turn_going_round_the_table() -> None:
    game = Game(Rules(), 2)
    game.deal(deck_starting_with(PLAIN_TOP))
    seats = []
    rng = random.Random(5)
    while game.state.phase == "playing":
        state = game.state
        assert state.turn is not None
        seats.append(state.turn)
        game.play(state.turn, state.hands[state.turn][rng.randrange(len(state.hands[state.turn]))])
    assert seats == [0, 1] * 24


def test_the_deal_event_records_the_whole_deck() -> None:
    deck = deck_starting_with(PLAIN_TOP)
    game = Game(Rules(), 2)
    events = game.deal(deck, fixed=True)
    assert events == [RoundDealt(1, 1, tuple(deck), True)]
    assert game.state.fixed_round
