"""A round's end valued for the match, not only for its points.

Ten points ahead early in a match to 101 is worth little; ten points ahead when both sides
pass 101 this round is the match. A round's end is worth the odds it leaves of winning the
match, on a scale of ``SCALE`` points for a sure match: one when it ends the match in our
favour, none when against, and in between the odds summed exactly over every way the match
can go on from the totals (``MatchOdds``), each round to come drawn from the outcomes of
``round_outcomes.json``: who took the majority, and each side's basras and jack basras, in
40,000 rounds of the play-out policy against itself (bench/round_outcomes.py). The side that
leads a round takes its majority more often, and the lead passes every round, so the odds
also depend on who leads the next one. A round's points come in lumps (the majority's 30
decides most rounds), and so do the odds: at 80 each the next majority is the match, a basra
worth much less. Where the totals are too many to sum over (a far target, points with no
common step), a normal guess from the lead and the rounds left stands in (each round's margin
spreads by ``ROUND_SPREAD`` points, and the side ahead scores about ``PACE`` a round).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from math import erf, gcd, sqrt
from pathlib import Path

from app.engine.bots.fastsim import Round
from app.engine.rules import Rules
from app.engine.views import SeatView

# Both measured over 300 matches of skilled against skilled (docs/bots.md): a round's margin
# has a standard deviation of 34 points, and a side scores 20 points a round (36 the round's
# winner), so the side ahead gets to the target at about 24 a round.
ROUND_SPREAD = 34.0  # standard deviation of a round's margin between good players
PACE = 24.0  # points the leading side scores in a round
SCALE = 60.0  # points of value a sure match is worth
# A point of margin is worth this much besides the odds, so that where they barely move (a
# match all but won, or all but lost) the search still prefers the card that scores more.
MARGIN_WEIGHT = 0.1
MAX_STEPS = 64  # totals per side the exact odds are summed over, at most

OUTCOMES = Path(__file__).with_name("round_outcomes.json")


@cache
def round_outcomes(players: int) -> tuple[tuple[int, int, int, int, int, float], ...]:
    """Each measured outcome of a round of ``players``, side 0 being the side that leads it:
    (majority side, -1 for a tie; basras of side 0 and 1; jack basras of side 0 and 1; its
    odds)."""
    found = json.loads(OUTCOMES.read_text())["players"][str(players)]
    total = sum(row[-1] for row in found)
    return tuple((*row[:5], row[5] / total) for row in found)


class MatchOdds:
    """The odds of winning the match from every pair of totals short of the target, on the
    grid of ``step`` points every award is a multiple of, for the side that leads the next
    round and for the other (the lead passes to the other side every round). ``rounds``: the
    odds of each (points of the side that leads, points of the other) a round may score."""

    def __init__(self, target: int, step: int, rounds: dict[tuple[int, int], float]) -> None:
        self.step = step
        size = -(-target // step)  # totals i * step below the target: i < size
        moves = [(x // step, y // step, odds) for (x, y), odds in rounds.items() if x or y]
        stay = rounds.get((0, 0), 0.0)  # a round that scores nothing: the lead passes, no more
        leading = [[0.0] * size for _ in range(size)]  # ours, theirs -> odds; we lead next
        following = [[0.0] * size for _ in range(size)]  # the same; they lead next

        def after(ours: int, theirs: int, table: list[list[float]]) -> float:
            if ours >= size or theirs >= size:
                return 1.0 if ours > theirs else 0.0 if ours < theirs else 0.5
            return table[ours][theirs]

        for level in range(2 * size - 2, -1, -1):  # a round never lowers a total: top down
            for ours in range(max(0, level - size + 1), min(size - 1, level) + 1):
                theirs = level - ours
                lead = sum(p * after(ours + x, theirs + y, following) for x, y, p in moves)
                follow = sum(p * after(ours + y, theirs + x, leading) for x, y, p in moves)
                # lead = L + stay * follow(here), follow = F + stay * lead(here): solved
                scale = 1.0 - stay * stay
                leading[ours][theirs] = (lead + stay * follow) / scale
                following[ours][theirs] = (follow + stay * lead) / scale
        self.tables = (following, leading)

    def of(self, ours: int, theirs: int, we_lead: bool) -> float | None:
        """The odds of winning from these totals, both short of the target, when our side
        leads the next round or not; None off the grid."""
        if ours % self.step or theirs % self.step:
            return None
        return self.tables[we_lead][ours // self.step][theirs // self.step]


@cache
def odds_for(rules: Rules, players: int) -> MatchOdds | None:
    """The exact odds under these rules' target and points, or None where they are too many."""
    majority, basra = rules.majority_points, rules.basra_points
    jack = rules.jack_basra_points if rules.jack_basra != "off" else 0
    step = gcd(majority, basra, jack)
    if not step or -(-rules.target_score // step) > MAX_STEPS:
        return None
    rounds: dict[tuple[int, int], float] = {}
    for side, basras0, basras1, jacks0, jacks1, odds in round_outcomes(players):
        points = (basras0 * basra + jacks0 * jack, basras1 * basra + jacks1 * jack)
        if side >= 0:
            points = (points[0] + majority * (side == 0), points[1] + majority * (side == 1))
        rounds[points] = rounds.get(points, 0.0) + odds
    return MatchOdds(rules.target_score, step, rounds)


@dataclass(frozen=True, slots=True)
class MatchScore:
    totals: tuple[int, int]  # match totals of each side before this round
    target: int
    odds: MatchOdds | None = None
    next_lead: int = 0  # the side that leads the next round

    @classmethod
    def of(cls, view: SeatView) -> MatchScore:
        totals = (view.sides[0].score, view.sides[1].score)
        # The dealer moves one seat a round and the seat after it leads: two seats on.
        next_lead = (view.dealer + 2) % view.players % 2
        return cls(totals, view.rules.target_score, odds_for(view.rules, view.players), next_lead)

    def value(self, state: Round, side: int) -> float:
        """The worth for ``side`` of the round ended in ``state``."""
        return self.worth(state.round_points(), side)

    def worth(self, points: list[int], side: int) -> float:
        """The worth for ``side`` of a round that scores ``points`` per side."""
        ours = self.totals[side] + points[side]
        theirs = self.totals[1 - side] + points[1 - side]
        lead = ours - theirs
        top = max(ours, theirs)
        if top >= self.target:
            # over, or a tie played on from level
            return SCALE * ((lead > 0) - (lead < 0)) + MARGIN_WEIGHT * lead
        won = None if self.odds is None else self.odds.of(ours, theirs, side == self.next_lead)
        if won is not None:
            return SCALE * (2.0 * won - 1.0) + MARGIN_WEIGHT * lead
        rounds = max(1.0, (self.target - top) / PACE)
        return SCALE * erf(lead / (ROUND_SPREAD * sqrt(2 * rounds))) + MARGIN_WEIGHT * lead
