"""bench/verdicts.py: the interval around a median that decides whether a benchmark goal is
met, missed or not decided by a run (bench/api.py prints it for its goals)."""

from __future__ import annotations

import random
import statistics
from math import comb

from bench_modules import bench_module
from hypothesis import given
from hypothesis import strategies as st

verdicts = bench_module("verdicts")


def test_fifteen_pairs_give_the_fourth_smallest_to_the_fourth_largest() -> None:
    values = [0.42, 0.50, 0.53, 0.60, 0.67, 0.59, 0.65, 0.44, 0.41, 0.43, 0.58, 0.48, 0.58,
              0.49, 0.70]  # fmt: skip
    low, high, coverage = verdicts.median_interval(values)
    assert (low, high) == (0.44, 0.60)  # sorted: 0.41 0.42 0.43 [0.44 ... 0.60] 0.65 0.67 0.70
    assert coverage == 1 - 2 * (comb(15, 0) + comb(15, 1) + comb(15, 2) + comb(15, 3)) / 2**15
    assert round(coverage, 3) == 0.965


def test_the_interval_is_the_narrowest_that_still_covers_the_level() -> None:
    for n in range(1, 60):
        low, high, coverage = verdicts.median_interval(list(range(n)))
        k = low + 1  # from the k-th smallest value (which is k - 1) to the k-th largest
        assert high == n - k
        if n >= 6:
            assert coverage >= 0.95
        if 2 * k + 1 <= n:  # a narrower interval exists, and falls below 95%
            assert 1 - 2 * sum(comb(n, i) for i in range(k + 1)) / 2**n < 0.95


def test_five_pairs_or_fewer_give_the_whole_range() -> None:
    low, high, coverage = verdicts.median_interval([3.0, 1.0, 2.0, 5.0, 4.0])
    assert (low, high) == (1.0, 5.0)
    assert coverage == 1 - 2 / 2**5


def test_the_interval_holds_the_true_median_as_often_as_it_says() -> None:
    """Simulated runs of nine pairs from a spread whose median is known."""
    rng = random.Random(14)
    trials, held = 4000, 0
    coverage = 0.0
    for _ in range(trials):
        values = [rng.lognormvariate(0, 0.3) for _ in range(9)]  # true median 1.0
        low, high, coverage = verdicts.median_interval(values)
        held += low <= 1.0 <= high
    assert abs(held / trials - coverage) < 0.015  # coverage is 0.961 for nine


@given(st.lists(st.floats(0.01, 10.0), min_size=1, max_size=40))
def test_the_interval_holds_the_median_of_the_run(values: list[float]) -> None:
    low, high, _ = verdicts.median_interval(values)
    assert low <= statistics.median(values) <= high


def test_a_goal_is_decided_only_when_the_whole_interval_says_so() -> None:
    nine = [0.51, 0.52, 0.53, 0.54, 0.55, 0.56, 0.57, 0.58, 0.59]  # interval 0.52-0.58
    assert verdicts.at_least(nine, 0.5) == verdicts.MET
    assert verdicts.at_least(nine, 0.6) == verdicts.MISSED
    assert verdicts.at_least(nine, 0.55) == verdicts.UNDECIDED
    assert verdicts.at_most(nine, 0.6) == verdicts.MET
    assert verdicts.at_most(nine, 0.5) == verdicts.MISSED
    assert verdicts.at_most(nine, 0.55) == verdicts.UNDECIDED
    assert verdicts.between(nine, 0.5, 0.6) == verdicts.MET
    assert verdicts.between(nine, 0.6, 0.7) == verdicts.MISSED
    assert verdicts.between(nine, 0.3, 0.5) == verdicts.MISSED
    assert verdicts.between(nine, 0.55, 0.7) == verdicts.UNDECIDED
    assert verdicts.summary(nine, verdicts.MET) == (
        "median 0.55, 96% interval 0.52-0.58 (9 pairs): met"
    )
