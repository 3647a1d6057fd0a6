"""The expert's search: play-outs cut at a horizon, the budget of worlds, reading the other
side's plays."""

from __future__ import annotations

import random

import pytest
from bot_helpers import random_positions

from app.engine import Game, Rules, observe
from app.engine.bots import choose_card, expert
from app.engine.bots.horizon import cut_value, majority_odds, margin
from app.engine.bots.inference import passed_over_best
from app.engine.bots.knowledge import base_round, sample_round, unseen_cards
from app.engine.bots.playout import playout
from app.engine.bots.table import _TABLES, table_for
from app.engine.fairness import shuffled_deck
from app.engine.views import SeatView


def views_with_stock(count: int, seed: int) -> list[SeatView]:
    states = random_positions(count * 3, 2, seed=seed)
    views = [observe(s, s.turn) for s in states if len(s.stock) >= 16]
    return views[:count]


def test_a_playout_cut_at_its_horizon_leaves_the_deals_after_it_in_the_stock() -> None:
    rng = random.Random(1)
    for view in views_with_stock(10, seed=80):
        world = sample_round(base_round(view), view, unseen_cards(view), rng)
        stock = len(world.stock)
        playout(world, 0, 1.0, 0.0, None, 1)
        assert world.in_hands == 0
        assert len(world.stock) == stock - 8
        assert sum(world.cards) + world.floor.bit_count() + len(world.stock) <= 52


def test_a_cut_round_is_valued_exactly_once_its_stock_is_empty() -> None:
    rng = random.Random(2)
    for view in views_with_stock(5, seed=81):
        world = sample_round(base_round(view), view, unseen_cards(view), rng)
        playout(world, 1, 1.0, 0.0)
        assert cut_value(world, 1) == world.outcome(1)
        assert cut_value(world, 1, margin) == margin(world.round_points(), 1)


def test_the_side_ahead_in_cards_is_the_likelier_to_take_the_majority() -> None:
    view = views_with_stock(1, seed=82)[0]
    world = sample_round(base_round(view), view, unseen_cards(view), random.Random(3))
    world.cards = [10, 10]
    assert majority_odds(world, 0) == pytest.approx(0.5)
    world.cards = [14, 8]
    ahead, behind = majority_odds(world, 0), majority_odds(world, 1)
    assert ahead > 0.5 > behind and ahead + behind == pytest.approx(1.0)
    world.stock = world.stock[:8]
    assert majority_odds(world, 0) > ahead  # fewer cards left to catch up with


def test_the_budget_gives_the_long_early_decisions_fewer_worlds() -> None:
    full = expert.Expert(budget=12_000)  # play-outs to the round's end
    early, late = full.worlds(4, 7, 40, 2), full.worlds(4, 3, 0, 2)
    assert full.min_worlds <= early < late == full.samples
    search = expert.DEFAULT  # cut one deal ahead: a deal's first cards cost the most
    first, later = search.worlds(4, 7, 40, 2), search.worlds(2, 3, 40, 2)
    assert search.min_worlds <= first < later == search.samples
    assert search.worlds(4, 7, 40, 2) == search.worlds(4, 7, 8, 2)  # early or late in a round


def test_the_expert_plays_the_same_card_with_its_capture_memos_cold_or_warm() -> None:
    for view in views_with_stock(4, seed=83):
        warm = choose_card("expert", view, random.Random(7))
        _TABLES.clear()
        assert choose_card("expert", view, random.Random(7)) == warm


def plays_against(level: str, matches: int) -> list[SeatView]:
    """Views of seat 0 (playing greedy) against ``level`` in seat 1."""
    views = []
    for match in range(matches):
        game = Game(Rules(target_score=60), 2)
        rng = random.Random(match)
        while not game.is_over:
            if game.needs_deal:
                game.deal(shuffled_deck(f"read-{match}".encode(), "", game.state.round + 1))
                continue
            seat = game.state.turn
            assert seat is not None
            view = observe(game.state, seat)
            if seat == 0:
                views.append(view)
            game.play(seat, choose_card("greedy" if seat == 0 else level, view, rng))
    return views


def test_a_greedy_opponent_is_never_seen_passing_over_its_best() -> None:
    views = plays_against("greedy", 3)
    assert not any(passed_over_best(view, table_for(view.rules)) for view in views)


def test_an_opponent_that_defends_is_seen_passing_over_its_best() -> None:
    views = plays_against("skilled", 3)
    assert any(passed_over_best(view, table_for(view.rules)) for view in views)
