"""Ratings fitted to matches between levels (Bradley-Terry on the Elo scale)."""

from __future__ import annotations

from math import log10

import pytest

from app.engine.bots import BOT_LEVELS
from app.engine.bots.ratings import RATINGS, fit


def test_even_results_give_even_ratings_and_random_is_the_anchor() -> None:
    ratings = fit([("greedy", "random", 50, 100)])
    assert ratings == pytest.approx({"random": 1000, "greedy": 1000})


def test_three_wins_in_four_are_worth_about_190_points() -> None:
    ratings = fit([("greedy", "random", 75, 100)])
    assert ratings["greedy"] == pytest.approx(1000 + 400 * log10(3))


def test_a_chain_of_pairings_adds_up() -> None:
    ratings = fit([("greedy", "random", 75, 100), ("expert", "greedy", 75, 100)])
    assert ratings["expert"] == pytest.approx(1000 + 800 * log10(3), rel=1e-4)


def test_every_level_has_a_rating_and_they_rise_with_the_level() -> None:
    ratings = [RATINGS[level] for level in BOT_LEVELS]
    assert ratings == sorted(ratings) and ratings[0] == 1000
