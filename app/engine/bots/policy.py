"""Play-out policies: how every seat plays inside a sampled world.

``greedy_card`` is the greedy bot's rule (jack basra, then basra, then most cards,
keeping Jacks and the 7D). ``defensive_card`` adds what the greedy rule misses: the
expected basra points the next seat can score on the floor a move leaves, counted
from the cards the mover has not seen (hypergeometric odds of it holding one).
"""

from __future__ import annotations

from math import comb

from app.engine.bots.fastsim import (
    CARD_BITS,
    JACK_KIND,
    JACK_RANK,
    KIND_SHIFT,
    RANK,
    SEVEN_D,
    Round,
)

SPECIAL = frozenset(i for i in range(52) if RANK[i] == JACK_RANK or i == SEVEN_D)
CARD_WEIGHT = 1.0  # points a captured card is worth towards the majority
SPECIAL_COST = 4.0  # what a Jack or the 7D is worth kept in hand


def _hit_table() -> list[list[list[float]]]:
    """``HIT[u][k][h]``: odds that h cards drawn from u unseen include one of k given."""
    table = []
    for unseen in range(53):
        by_count = []
        for count in range(5):
            row = []
            for hand in range(5):
                draw = min(hand, unseen)
                miss = comb(unseen - count, draw) / comb(unseen, draw) if count <= unseen else 0.0
                row.append(1.0 - miss)
            by_count.append(row)
        table.append(by_count)
    return table


HIT = _hit_table()


def greedy_card(state: Round) -> int:
    hand = state.hands[state.turn]
    if len(hand) == 1:
        return hand[0]
    capture = state.table.capture
    floor = state.floor
    best = hand[0]
    best_score = -1
    for card in hand:
        result = capture(floor, card)
        kind = result >> KIND_SHIFT
        score = kind * 1000 + (kind == JACK_KIND) * 10000
        score += ((result & CARD_BITS).bit_count()) * 2 + (card not in SPECIAL)
        if score > best_score:
            best, best_score = card, score
    return best


def defensive_card(state: Round) -> int:
    hand = state.hands[state.turn]
    if len(hand) == 1:
        return hand[0]
    table = state.table
    floor = state.floor
    hand_mask = 0
    for card in hand:
        hand_mask |= 1 << card
    hidden = CARD_BITS & ~(state.out | hand_mask)
    odds = HIT[hidden.bit_count()]
    reply = len(state.hands[(state.turn + 1) % state.players])
    best = hand[0]
    best_score = -1e9
    for card in hand:
        result = table.capture(floor, card)
        captured = result & CARD_BITS
        if captured:
            kind = result >> KIND_SHIFT
            score = (captured.bit_count() + 1) * CARD_WEIGHT
            if kind:
                score += state.jack_points if kind == JACK_KIND else state.basra_points
            left = floor ^ captured
        else:
            score = 0.0
            left = floor | (1 << card)
        if card in SPECIAL:
            score -= SPECIAL_COST
        for kind_mask, points in table.threats(left):
            count = (kind_mask & hidden).bit_count()
            if count:
                score -= points * odds[count][reply]
        if score > best_score:
            best, best_score = card, score
    return best
