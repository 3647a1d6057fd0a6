"""Win rates with Wilson 95% intervals, points per round and decision times."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import sqrt
from typing import Any

Z95 = 1.959964


@dataclass(slots=True)
class MatchResult:
    index: int
    winner: str | None  # "a", "b", or None for a draw
    rounds: int
    points: dict[str, int]  # match total of each bot
    times: dict[str, list[float]] = field(default_factory=dict)  # seconds per decision
    cpu: dict[str, list[float]] = field(default_factory=dict)  # CPU seconds per decision


def wilson(successes: float, trials: int) -> tuple[float, float]:
    """The Wilson score interval at 95% for a proportion."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + Z95**2 / trials
    centre = (p + Z95**2 / (2 * trials)) / denominator
    half = Z95 * sqrt(p * (1 - p) / trials + Z95**2 / (4 * trials**2)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: Sequence[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@dataclass(frozen=True, slots=True)
class BotSummary:
    level: str
    wins: int
    win_rate: float
    ci: tuple[float, float]
    points_per_round: float
    decisions: int
    decisions_per_second: float
    median_ms: float
    p95_ms: float
    p99_ms: float
    cpu_median_ms: float  # the same on the process's CPU clock: what the search costs,
    cpu_p99_ms: float  # whatever else the machine is doing

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__slots__}
        data["ci"] = list(self.ci)
        return data


@dataclass(frozen=True, slots=True)
class Summary:
    a: BotSummary
    b: BotSummary
    matches: int
    draws: int
    rounds: int
    margin: float  # points per round, a minus b
    margin_ci: float  # half width of its 95% interval (matches as the unit)
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "matches": self.matches,
            "draws": self.draws,
            "rounds": self.rounds,
            "margin_per_round": self.margin,
            "margin_ci": self.margin_ci,
            "seconds": self.seconds,
        }

    def table(self, players: int, target: int, seed: int) -> str:
        lines = [
            f"{self.a.level} (a) vs {self.b.level} (b): {self.matches} matches to {target}, "
            f"{players} players, seed {seed}, half with each seating",
            f"{'bot':<10} {'wins':>5} {'win rate (95% CI)':>24} {'points/round':>13} "
            f"{'decisions/s':>12} {'ms median':>10} {'ms p95':>8} {'ms p99':>8}",
        ]
        for name, bot in (("a", self.a), ("b", self.b)):
            low, high = bot.ci
            lines.append(
                f"{name + ' ' + bot.level:<10} {bot.wins:>5} "
                f"{f'{bot.win_rate:.1%} ({low:.1%}-{high:.1%})':>24} "
                f"{bot.points_per_round:>13.1f} {bot.decisions_per_second:>12.0f} "
                f"{bot.median_ms:>10.2f} {bot.p95_ms:>8.2f} {bot.p99_ms:>8.2f}"
            )
        lines.append(
            f"points per round, a - b: {self.margin:+.1f} ± {self.margin_ci:.1f}; "
            f"{self.rounds} rounds, {self.draws} draws, {self.seconds:.0f} s"
        )
        return "\n".join(lines)


def _bot(results: Sequence[MatchResult], role: str, level: str) -> BotSummary:
    matches = len(results)
    wins = sum(1 for r in results if r.winner == role)
    rounds = sum(r.rounds for r in results)
    times = [t for r in results for t in r.times.get(role, [])]
    cpu = [t for r in results for t in r.cpu.get(role, [])]
    spent = sum(times)
    return BotSummary(
        level=level,
        wins=wins,
        win_rate=wins / matches if matches else 0.0,
        ci=wilson(wins, matches),
        points_per_round=sum(r.points[role] for r in results) / max(rounds, 1),
        decisions=len(times),
        decisions_per_second=len(times) / spent if spent else 0.0,
        median_ms=1000 * statistics.median(times) if times else 0.0,
        p95_ms=1000 * percentile(times, 0.95),
        p99_ms=1000 * percentile(times, 0.99),
        cpu_median_ms=1000 * statistics.median(cpu) if cpu else 0.0,
        cpu_p99_ms=1000 * percentile(cpu, 0.99),
    )


def margin(results: Sequence[MatchResult]) -> tuple[float, float]:
    """Mean points per round of a minus b, and the half width of its 95% interval
    (a ratio estimate over matches, since rounds within a match are not independent)."""
    rounds = sum(r.rounds for r in results)
    if not rounds:
        return (0.0, 0.0)
    diffs = [r.points["a"] - r.points["b"] for r in results]
    mean = sum(diffs) / rounds
    if len(results) < 2:
        return (mean, 0.0)
    average_rounds = rounds / len(results)
    residuals = [d - mean * r.rounds for d, r in zip(diffs, results, strict=True)]
    spread = statistics.stdev(residuals) / average_rounds
    return (mean, Z95 * spread / sqrt(len(results)))


def summarise(results: Sequence[MatchResult], a: str, b: str, seconds: float) -> Summary:
    mean, half = margin(results)
    return Summary(
        a=_bot(results, "a", a),
        b=_bot(results, "b", b),
        matches=len(results),
        draws=sum(1 for r in results if r.winner is None),
        rounds=sum(r.rounds for r in results),
        margin=mean,
        margin_ci=half,
        seconds=seconds,
    )
