"""Exact search of the rest of a round whose every hand is known (no stock left).

Alpha-beta on the round's point margin for ``side``: seats of that side maximise, the
others minimise. Cards of one kind (rank, with the 7D apart) are one move.
"""

from __future__ import annotations

from collections.abc import Callable

from app.engine.bots.fastsim import Round
from app.engine.bots.table import CARD_BITS, KIND_SHIFT, RANK, SEVEN_D


def kind_of(card: int) -> int:
    return 13 if card == SEVEN_D else RANK[card]


def ordered_moves(state: Round) -> list[int]:
    """The distinct cards of the seat to move, biggest capture first (prunes sooner)."""
    capture = state.table.capture
    floor = state.floor
    scored = []
    kinds = 0
    for card in state.hands[state.turn]:
        bit = 1 << kind_of(card)
        if kinds & bit:
            continue
        kinds |= bit
        result = capture(floor, card)
        scored.append(((result >> KIND_SHIFT) * 100 + (result & CARD_BITS).bit_count(), card))
    scored.sort(reverse=True)
    return [card for _, card in scored]


def exact_value(
    state: Round,
    side: int,
    alpha: float,
    beta: float,
    leaf: Callable[[Round, int], float] | None = None,
) -> float:
    """The value of ``state`` for ``side`` with best play by all: ``leaf`` of the round's
    end (its point margin unless given)."""
    if not state.in_hands:
        return state.outcome(side) if leaf is None else leaf(state, side)
    maximising = state.turn % 2 == side
    best = -1e9 if maximising else 1e9
    for card in ordered_moves(state):
        child = state.copy()
        child.play(card)
        value = exact_value(child, side, alpha, beta, leaf)
        if maximising:
            best = max(best, value)
            alpha = max(alpha, value)
        else:
            best = min(best, value)
            beta = min(beta, value)
        if alpha >= beta:
            break
    return best
