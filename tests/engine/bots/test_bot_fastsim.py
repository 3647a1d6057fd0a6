"""The bots' lean simulator agrees with the engine card for card."""

from __future__ import annotations

import random

import pytest
from bot_helpers import random_positions

from app.engine import FULL_DECK, Rules, find_capture, observe
from app.engine.bots.fastsim import Round
from app.engine.bots.knowledge import base_round
from app.engine.bots.playout import playout
from app.engine.bots.table import CARD_BITS, KIND_SHIFT, CaptureTable
from app.engine.commands import Play
from app.engine.evolution import apply
from app.engine.game import decide
from app.engine.state import PLAYING, GameState

VARIANTS = [
    Rules(),
    Rules(seven_diamonds="sum_le_10"),
    Rules(seven_diamonds="jack", seven_on_floor="plain"),
    Rules(seven_diamonds="plain", jack_basra="off"),
    Rules(basra_on_final_play=False, basra_points=7, jack_basra_points=25),
]
KINDS = {None: 0, "basra": 1, "jack_basra": 2}


@pytest.mark.parametrize("rules", VARIANTS)
def test_the_capture_table_agrees_with_find_capture(rules: Rules) -> None:
    rng = random.Random(1)
    table = CaptureTable(rules)
    for _ in range(4000):
        size = rng.choice([0, 1, 1, 2, 3, 4, 5, 7, 10])
        if rng.random() < 0.5:  # small number cards, where the sums are
            pool = [s * 13 + r for s in range(4) for r in range(8)]
        else:
            pool = list(range(52))
        picked = rng.sample(pool, size + 1)
        card, floor = picked[0], picked[1:]
        expected = find_capture([FULL_DECK[i] for i in floor], FULL_DECK[card], rules)
        result = table.capture(sum(1 << i for i in floor), card)
        assert result & CARD_BITS == sum(1 << c.index for c in expected.captured)
        assert result >> KIND_SHIFT == KINDS[expected.basra]


def known_round(state: GameState) -> Round:
    assert state.turn is not None
    world = base_round(observe(state, state.turn))
    world.hands = [[card.index for card in hand] for hand in state.hands]
    world.stock = [card.index for card in state.stock]
    return world


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("rules", VARIANTS)
def test_a_round_played_in_the_simulator_scores_as_in_the_engine(
    players: int, rules: Rules
) -> None:
    rng = random.Random(players)
    for state in random_positions(5, players, seed=7, rules=rules):
        world = known_round(state)
        side = rng.randrange(2)
        while state.phase == PLAYING:
            seat = state.turn
            assert seat is not None and world.turn == seat
            card = rng.choice(state.hands[seat])
            world.play(card.index)
            for event in decide(state, Play(seat, card)):
                apply(state, event)
            if state.phase == PLAYING:
                assert world.floor == sum(1 << c.index for c in state.floor)
        points = state.rounds[-1].points
        assert world.in_hands == 0
        assert world.outcome(side) == points[side] - points[1 - side]


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("rules", VARIANTS)
def test_a_playout_scores_its_cards_as_the_engine_would(players: int, rules: Rules) -> None:
    for number, state in enumerate(random_positions(5, players, seed=8, rules=rules)):
        side = number % 2
        trace: list[int] = []
        margin = playout(known_round(state), side, 1.0, 0.5, trace)
        for index in trace:
            seat = state.turn
            assert seat is not None
            for event in decide(state, Play(seat, FULL_DECK[index])):
                apply(state, event)
        assert state.phase != PLAYING
        points = state.rounds[-1].points
        assert margin == points[side] - points[1 - side]
