"""Bots draw their randomness from the rng they are given, so games replay exactly."""

from __future__ import annotations

import random

import pytest
from bot_helpers import random_positions

from app.engine import observe
from app.engine.bots import BOT_LEVELS, choose_card
from app.engine.bots.simulate import MatchSpec, play_match


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_a_bot_chooses_the_same_card_for_the_same_seed(level: str) -> None:
    for state in random_positions(8, 2, seed=60):
        view = observe(state, state.turn)
        choices = {choose_card(level, view, random.Random(3)) for _ in range(3)}
        assert len(choices) == 1


def test_the_global_random_state_does_not_matter() -> None:
    state = next(random_positions(1, 2, seed=61))
    view = observe(state, state.turn)
    random.seed(1)
    first = choose_card("expert", view, random.Random(4))
    random.seed(2)
    assert choose_card("expert", view, random.Random(4)) == first


def test_a_match_between_bots_replays_exactly() -> None:
    spec = MatchSpec(index=3, a="expert", b="random", seed=9, players=2, target=30)
    first, second = play_match(spec), play_match(spec)
    assert (first.winner, first.rounds, first.points) == (
        second.winner,
        second.rounds,
        second.points,
    )
