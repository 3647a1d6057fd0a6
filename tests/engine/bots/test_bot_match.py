"""A round's end valued by the odds it leaves of winning the match (``match.py``)."""

from __future__ import annotations

import pytest
from bench_modules import bench_module

from app.engine.bots.match import SCALE, MatchOdds, MatchScore, odds_for, round_outcomes
from app.engine.rules import Rules


def score(totals: tuple[int, int], rules: Rules | None = None, players: int = 2) -> MatchScore:
    """Side 0 leads the next round."""
    rules = rules or Rules()
    return MatchScore(totals, rules.target_score, odds_for(rules, players), next_lead=0)


def test_a_round_that_ends_the_match_is_worth_all_or_nothing_and_the_margin() -> None:
    assert score((90, 80)).worth([12, 40], 0) < -SCALE  # 102 against 120: lost
    assert score((90, 80)).worth([12, 40], 1) > SCALE
    assert SCALE < score((90, 80)).worth([20, 0], 0) < score((90, 80)).worth([40, 0], 0)


def test_level_totals_past_the_target_are_played_on_from_level() -> None:
    assert score((95, 95)).worth([10, 10], 0) == 0.0


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("totals", [(0, 0), (40, 60), (80, 70)])
def test_the_worth_grows_with_the_lead_and_is_the_same_from_either_side(
    totals: tuple[int, int], players: int
) -> None:
    match = score(totals, players=players)
    worths = [match.worth([points, 10], 0) for points in range(0, 50, 10)]
    assert worths == sorted(worths) and len(set(worths)) == len(worths)
    for points in range(0, 50, 10):
        assert match.worth([points, 10], 0) == pytest.approx(-match.worth([points, 10], 1))


def test_near_the_target_the_next_majority_is_nearly_the_match_and_a_basra_is_not() -> None:
    """The odds follow how a round scores: its 30-point majority decides most rounds, so at 80
    each the side that takes the next one has won, and a basra more is worth much less."""
    late, early = score((80, 80)), score((0, 0))
    assert late.worth([30, 0], 0) > SCALE
    late_ratio = late.worth([30, 0], 0) / late.worth([10, 0], 0)
    early_ratio = early.worth([30, 0], 0) / early.worth([10, 0], 0)
    assert late_ratio > 2 * early_ratio > 4


def test_the_odds_are_summed_exactly_over_the_rounds_to_come() -> None:
    """A race to 20 where each round gives 10 points to one side or the other, evenly: 10 to
    nothing ahead wins three times in four; a round that scores nothing changes nothing."""
    race = MatchOdds(20, 10, {(10, 0): 0.4, (0, 10): 0.4, (0, 0): 0.2})
    for we_lead in (True, False):
        assert race.of(0, 0, we_lead) == pytest.approx(0.5)
        assert race.of(10, 0, we_lead) == pytest.approx(0.75)
        assert race.of(0, 10, we_lead) == pytest.approx(0.25)
        assert race.of(10, 10, we_lead) == pytest.approx(0.5)
    assert race.of(5, 0, True) is None  # off the 10-point grid


def test_the_lead_passes_to_the_other_side_every_round() -> None:
    """Where the side that leads a round always takes its 10 points, the side that leads the
    first of the two rounds to 20 gets there first."""
    race = MatchOdds(20, 10, {(10, 0): 1.0})
    assert race.of(0, 0, True) == 1.0 and race.of(0, 0, False) == 0.0
    assert race.of(10, 0, False) == 1.0  # they take 10 first, we lead the round after: 20 to 10
    assert race.of(0, 10, True) == 0.0  # 10 each, and they lead the third round


def test_the_measured_rounds_favour_the_side_that_leads_them() -> None:
    for players in (2, 4):
        assert sum(odds for *_, odds in round_outcomes(players)) == pytest.approx(1.0)
        odds = odds_for(Rules(), players)
        assert odds is not None
        assert 0.5 < (odds.of(0, 0, True) or 0) < 0.55
        for ours in range(0, 101, 10):
            for theirs in range(0, 101, 10):
                mirrored = odds.of(theirs, ours, False) or 0
                assert odds.of(ours, theirs, True) == pytest.approx(1 - mirrored)


@pytest.mark.parametrize(
    "rules", [Rules(target_score=1001), Rules(basra_points=7), Rules(target_score=5000)]
)
def test_where_the_totals_are_too_many_to_sum_over_a_normal_guess_stands_in(rules: Rules) -> None:
    assert odds_for(rules, 2) is None
    match = score((0, 0), rules)
    worths = [match.worth([points, 10], 0) for points in range(0, 40, 7)]
    assert worths == sorted(worths) and -SCALE < worths[0] < 0 < worths[-1] < SCALE


@pytest.mark.parametrize("players", [2, 4])
def test_the_measured_outcomes_are_counted_from_whole_rounds(players: int) -> None:
    """bench/round_outcomes.py, which writes round_outcomes.json: each round is played to its
    end and its outcome read from the same cards (the script checks the points agree)."""
    counts = bench_module("round_outcomes").measure(players, 60, seed=3)
    assert sum(counts.values()) == 60
    for majority, *awards in counts:
        assert majority in (-1, 0, 1) and all(0 <= count <= 8 for count in awards)
    assert any(majority >= 0 for majority, *_ in counts)
