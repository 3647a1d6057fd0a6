"""Is a goal met, missed, or not decided by a run? The median of the pairs and an interval
around it that holds the true median with a known chance (95% by default).

Run to run on a shared 2-core machine, the ratio of one pair of phases swings by a quarter
(0.41 to 0.70 in one run of 15 pairs: docs/performance.md, "How the figures are read"), because the
machine's speed changes between the seconds of one phase and those of the next. A median
alone then says "missed" one day and "met" the next for the same code. The interval says
whether this run decides the goal at all: when it straddles the target, more pairs (or a
quieter machine) are needed, and the run is reported as undecided rather than as either.

The interval is the distribution-free one of order statistics: with ``n`` values, the
``k``-th smallest and the ``k``-th largest, where ``k`` is the largest count for which fewer
than ``k`` of ``n`` fair coin flips come up heads with a chance of at most (1 - level) / 2.
It assumes nothing of how the pairs are spread, only that they are independent draws.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from math import comb

MET, MISSED, UNDECIDED = "met", "MISSED", "undecided"


def median_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """(low, high, coverage): the order-statistics interval for the median of ``values``
    and the chance it holds the true median (at least ``level`` when ``values`` are enough;
    with too few, e.g. five or fewer at 95%, it is the whole range and its own coverage)."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    n = len(ordered)
    tail = (1 - level) / 2
    below = 0.0  # chance that fewer than k of n fair flips are heads
    k = 0
    while k < n // 2 and below + comb(n, k) / 2**n <= tail:
        below += comb(n, k) / 2**n
        k += 1
    k = max(k, 1)  # at least the whole range
    coverage = 1 - 2 * sum(comb(n, i) for i in range(k)) / 2**n
    return ordered[k - 1], ordered[n - k], coverage


def at_least(values: Sequence[float], target: float, level: float = 0.95) -> str:
    """A goal "at least ``target``": met when the whole interval is at or above it."""
    low, high, _ = median_interval(values, level)
    return MET if low >= target else MISSED if high < target else UNDECIDED


def at_most(values: Sequence[float], target: float, level: float = 0.95) -> str:
    """A goal "at most ``target``": met when the whole interval is at or below it."""
    low, high, _ = median_interval(values, level)
    return MET if high <= target else MISSED if low > target else UNDECIDED


def between(values: Sequence[float], lowest: float, highest: float, level: float = 0.95) -> str:
    """A goal "from ``lowest`` to ``highest``": met when the whole interval lies inside it,
    missed when the whole interval lies outside it."""
    low, high, _ = median_interval(values, level)
    if lowest <= low and high <= highest:
        return MET
    if high < lowest or low > highest:
        return MISSED
    return UNDECIDED


def summary(values: Sequence[float], verdict: str, what: str = "pairs", level: float = 0.95) -> str:
    """``median 0.50, 96% interval 0.44-0.60 (15 pairs): undecided``."""
    low, high, coverage = median_interval(values, level)
    return (
        f"median {statistics.median(values):.2f}, {coverage:.0%} interval {low:.2f}-{high:.2f} "
        f"({len(values)} {what}): {verdict}"
    )
