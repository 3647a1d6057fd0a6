"""Every bot plays a card from its own hand, in any position, for 2 and 4 players."""

from __future__ import annotations

import random

import pytest
from bot_helpers import random_positions

from app.engine import Rules, observe
from app.engine.bots import BOT_LEVELS, choose_card
from app.engine.commands import Play
from app.engine.evolution import apply
from app.engine.game import decide

VARIANTS = [
    Rules(),
    Rules(seven_diamonds="sum_le_10", seven_on_floor="plain", initial_floor="allow"),
    Rules(seven_diamonds="plain", jack_basra="off", basra_on_final_play=False),
    Rules(seven_diamonds="jack", majority_tie="carry_over"),
]
COUNTS = {"random": 150, "greedy": 150, "skilled": 150, "expert": 12}


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("level", BOT_LEVELS)
def test_every_bot_plays_a_card_from_its_own_hand(level: str, players: int) -> None:
    rng = random.Random(5)
    for variant, rules in enumerate(VARIANTS):
        for state in random_positions(COUNTS[level], players, seed=variant, rules=rules):
            seat = state.turn
            assert seat is not None
            view = observe(state, seat)
            card = choose_card(level, view, rng)
            assert card in state.hands[seat]


@pytest.mark.parametrize("players", [2, 4])
def test_the_expert_plays_whole_rounds_legally(players: int) -> None:
    rng = random.Random(players)
    for state in random_positions(1, players, seed=100 + players):
        while state.turn is not None and state.phase == "playing":
            seat = state.turn
            card = choose_card("expert", observe(state, seat), rng)
            assert card in state.hands[seat]
            for event in decide(state, Play(seat, card)):
                apply(state, event)


def test_an_unknown_level_is_refused() -> None:
    state = next(random_positions(1, 2, seed=0))
    with pytest.raises(ValueError, match="unknown bot level"):
        choose_card("grandmaster", observe(state, state.turn), random.Random(0))


def test_a_bot_is_not_asked_out_of_turn() -> None:
    state = next(random_positions(1, 2, seed=0))
    assert state.turn is not None
    other = 1 - state.turn
    for level in BOT_LEVELS:
        with pytest.raises(ValueError, match="seat to move"):
            choose_card(level, observe(state, other), random.Random(0))
