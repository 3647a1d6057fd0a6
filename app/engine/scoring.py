"""Scoring at the end of a round (RULES.md section 5) and the end of the match (section 6)."""

from __future__ import annotations

from app.engine.capture import BASRA, JACK_BASRA, Capture
from app.engine.events import MatchEnded, RoundScored
from app.engine.rules import MAX_ROUNDS
from app.engine.state import SIDES, GameState, side_of


def score_round(state: GameState, seat: int, last: Capture) -> RoundScored:
    """The round's result once ``last`` (the round's final card) is played by ``seat``."""
    rules = state.rules
    side = side_of(seat)
    cards = [len(pile) for pile in state.piles]
    basras = list(state.basras)
    jack_basras = list(state.jack_basras)
    capturer = state.last_capturer
    if last.captured:
        cards[side] += len(last.captured) + 1
        capturer = seat
        floor = [c for c in state.floor if c not in last.captured]
        if last.basra == BASRA:
            basras[side] += 1
        elif last.basra == JACK_BASRA:
            jack_basras[side] += 1
    else:
        floor = [*state.floor, last.card]
    leftover_side = None if capturer is None else side_of(capturer)
    if leftover_side is not None:
        cards[leftover_side] += len(floor)
    award = rules.majority_points + state.majority_carry
    top = max(cards)
    majority = cards.index(top) if cards.count(top) == 1 else None
    points = [
        basras[s] * rules.basra_points
        + jack_basras[s] * rules.jack_basra_points
        + (award if majority == s else 0)
        for s in range(SIDES)
    ]
    return RoundScored(
        state.round, tuple(floor), leftover_side, tuple(cards), tuple(basras),
        tuple(jack_basras), majority, tuple(points),
    )  # fmt: skip


def match_end(state: GameState, scored: RoundScored) -> MatchEnded | None:
    """RULES.md 6, and the bound on a match's length: after round ``MAX_ROUNDS`` the side
    with the strictly highest total wins, and equal totals are a draw, whatever the target."""
    totals = [total + points for total, points in zip(state.scores, scored.points, strict=True)]
    top = max(totals)
    leader = totals.index(top) if totals.count(top) == 1 else None
    if scored.round >= MAX_ROUNDS:
        return MatchEnded(leader)
    if top < state.rules.target_score:
        return None
    if leader is not None:
        return MatchEnded(leader)
    return MatchEnded(None) if state.rules.end_tie == "draw" else None
