"""A round's end valued for the match, not only for its points.

Ten points ahead early in a match to 101 is worth about seven points; ten points ahead when
both sides pass 101 this round is the match. A round's end is worth the odds it leaves of
winning the match: one when it ends the match in our favour, none when against, and in
between a normal guess from the lead and the rounds still to play (each round's margin
spreads by ``ROUND_SPREAD`` points, and a side scores about ``PACE`` a round), on a scale
of ``SCALE`` points for a sure match: at the start of a match to 101 a point of margin is
then worth about 0.7 point. Only the shape counts: every leaf of a search is on this scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import erf, sqrt

from app.engine.bots.fastsim import Round
from app.engine.views import SeatView

# Both measured over 300 matches of skilled against skilled (docs/bots.md): a round's margin
# has a standard deviation of 34 points, and a side scores 20 points a round (36 the round's
# winner), so the side ahead gets to the target at about 24 a round.
ROUND_SPREAD = 34.0  # standard deviation of a round's margin between good players
PACE = 24.0  # points the leading side scores in a round
SCALE = 60.0  # points of value a sure match is worth


@dataclass(frozen=True, slots=True)
class MatchScore:
    totals: tuple[int, int]  # match totals of each side before this round
    target: int

    @classmethod
    def of(cls, view: SeatView) -> MatchScore:
        return cls((view.sides[0].score, view.sides[1].score), view.rules.target_score)

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
            return SCALE * ((lead > 0) - (lead < 0))  # over, or a tie played on from level
        rounds = max(1.0, (self.target - top) / PACE)
        return SCALE * erf(lead / (ROUND_SPREAD * sqrt(2 * rounds)))
