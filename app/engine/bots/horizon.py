"""What a round cut short at a deal's end is worth: the points made, and the majority
race judged from the cards still to be taken.

Past the next deal, a play-out's cards are mostly luck that falls alike on every
candidate, so the search stops there and reckons the rest. The cards still to come (the
stock and the floor) split between the sides with a spread of about ``SPREAD`` times
their square root (measured on the play-out policy), so the side ahead by ``d`` cards
takes the majority with odds ``Phi(d / (SPREAD sqrt(left)))``. The basras still to come
are as likely on either side and are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from math import erf, sqrt

from app.engine.bots.fastsim import Round

SPREAD = 1.8  # standard deviation of the rest of a round's card margin, per sqrt(card)

Worth = Callable[[list[int], int], float]  # a round's points per side -> worth for a side


def majority_odds(state: Round, side: int) -> float:
    """The odds that ``side`` ends the round with strictly more cards."""
    left = len(state.stock) + state.floor.bit_count()
    lead = state.cards[side] - state.cards[1 - side]
    if not left:
        return float(lead > 0)
    return 0.5 * (1.0 + erf(lead / (SPREAD * sqrt(2.0 * left))))


def margin(points: list[int], side: int) -> float:
    return float(points[side] - points[1 - side])


def cut_value(state: Round, side: int, worth: Worth = margin) -> float:
    """The worth for ``side`` of ``state``: exact once the round is over, else the mean
    over who takes the majority (a tie, rare, is left out)."""
    if not state.stock:
        return worth(state.round_points(), side)
    odds = majority_odds(state, side)
    ours = list(state.points)
    ours[side] += state.majority
    theirs = list(state.points)
    theirs[1 - side] += state.majority
    return odds * worth(ours, side) + (1.0 - odds) * worth(theirs, side)
