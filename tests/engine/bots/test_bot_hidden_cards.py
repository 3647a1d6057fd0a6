"""A bot sees what a human in its seat sees, and nothing else."""

from __future__ import annotations

import dataclasses
import random

import pytest
from bot_helpers import position, random_positions

from app.engine import FULL_DECK, Card, CardPlayed, GameState, SeatView, observe, parse_cards
from app.engine.bots import BOT_LEVELS, choose_card
from app.engine.bots.knowledge import sweepers_out, unseen_cards


def permute_hidden(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same position with the other hands and the stock dealt anew from their cards."""
    other = state.copy()
    hidden = [card for s, hand in enumerate(state.hands) if s != seat for card in hand]
    hidden += state.stock
    rng.shuffle(hidden)
    for s, hand in enumerate(state.hands):
        if s != seat:
            other.hands[s] = hidden[: len(hand)]
            del hidden[: len(hand)]
    other.stock = hidden
    return other


def test_the_view_type_has_no_field_for_other_hands_or_the_stock() -> None:
    names = {field.name for field in dataclasses.fields(SeatView)}
    assert {"hands", "stock", "deck", "piles"}.isdisjoint(names)
    state = next(random_positions(1, 2, seed=3))
    view = observe(state, state.turn)
    for name in ("hands", "stock", "deck", "piles", "state"):
        assert not hasattr(view, name)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("level", BOT_LEVELS)
def test_a_bot_choice_does_not_change_when_the_hidden_cards_are_permuted(
    level: str, players: int
) -> None:
    shuffler = random.Random(11)
    changed = 0
    for state in random_positions(10, players, seed=20 + players):
        seat = state.turn
        assert seat is not None
        other = permute_hidden(state, seat, shuffler)
        changed += other.hands != state.hands or other.stock != state.stock
        first = choose_card(level, observe(state, seat), random.Random(7))
        second = choose_card(level, observe(other, seat), random.Random(7))
        assert first == second
    assert changed >= 8  # the test would prove nothing if the permutations were no-ops


def test_the_unseen_cards_are_exactly_the_other_hands_and_the_stock() -> None:
    for players in (2, 4):
        for state in random_positions(30, players, seed=40):
            seat = state.turn
            assert seat is not None
            hidden = {c.index for s, h in enumerate(state.hands) if s != seat for c in h}
            hidden |= {c.index for c in state.stock}  # buried floor cards included
            assert set(unseen_cards(observe(state, seat))) == hidden


def test_card_counting_knows_which_sweepers_are_still_out() -> None:
    # JS in hand, JH on the floor, JC taken by seat 1: only the JD is out, in the stock.
    state = position(["JS", "4C"], ["JH", "2D"], others=[["9S", "3H"]], stock=0)
    stock = list(parse_cards(["JD", "7D", "AS", "AH", "AC", "2S", "2H", "2C"]))
    jack_move = CardPlayed(1, 1, 1, Card.parse("JC"), parse_cards(["5C", "5H"]), None)
    seen = set(state.hands[0] + state.hands[1] + state.floor + stock)
    seen |= {jack_move.card, *jack_move.captured}
    rest = [card for card in FULL_DECK if card not in seen]
    state.stock = stock
    state.round_moves = [jack_move, CardPlayed(2, 1, 0, rest[0], tuple(rest[1:]), None)]
    state.piles = [rest, [*jack_move.captured, jack_move.card]]
    view = observe(state, 0)
    assert sweepers_out(view) == {"jacks": 1, "seven_of_diamonds": 1}
    assert len(unseen_cards(view)) == 2 + 8
