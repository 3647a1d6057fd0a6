"""A round's end valued by the odds it leaves of winning the match (``match.py``)."""

from __future__ import annotations

import pytest

from app.engine.bots.match import SCALE, MatchScore


def test_a_round_that_ends_the_match_is_worth_all_or_nothing() -> None:
    score = MatchScore((90, 80), 101)
    assert score.worth([12, 40], 0) == -SCALE  # 102 against 120: lost
    assert score.worth([12, 40], 1) == SCALE
    assert score.worth([20, 0], 0) == SCALE  # 110 against 80


def test_level_totals_past_the_target_are_played_on_from_level() -> None:
    assert MatchScore((95, 95), 101).worth([10, 10], 0) == 0.0


@pytest.mark.parametrize("totals", [(0, 0), (40, 60), (85, 70)])
def test_the_worth_grows_with_the_lead_and_is_the_same_from_either_side(
    totals: tuple[int, int],
) -> None:
    score = MatchScore(totals, 101)
    worths = [score.worth([points, 10], 0) for points in range(0, 14)]
    assert worths == sorted(worths) and len(set(worths)) == len(worths)
    for points in range(0, 14):
        assert score.worth([points, 10], 0) == pytest.approx(-score.worth([points, 10], 1))


def test_the_same_lead_counts_for_more_near_the_target() -> None:
    early = MatchScore((0, 0), 101).worth([20, 10], 0)
    late = MatchScore((70, 70), 101).worth([20, 10], 0)
    assert 0 < early < late < SCALE
