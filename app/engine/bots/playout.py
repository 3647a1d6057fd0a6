"""The play-out: finish a sampled round fast, every seat playing the same policy.

The policy is the greedy rule made defensive: a move is worth the points it scores
(a basra, a jack basra, and ``CARD_WEIGHT`` a card towards the majority), less the
expected basra points the next seat takes from the floor it leaves, counted from the
cards the mover has not seen; a Jack or the 7D is kept for a fuller floor. The loop is
written out in one function on local variables because it is where a decision spends
nearly all its time.
"""

from __future__ import annotations

from math import comb

from app.engine.bots.fastsim import Round
from app.engine.bots.table import (
    CARD_BITS,
    HAND_SIZE,
    JACK_KIND,
    JACK_RANK,
    KIND_SHIFT,
    RANK,
    SEVEN_D,
    CaptureTable,
)

CARD_WEIGHT = 1.0  # points a captured card is worth towards the majority
SPECIAL_COST = 3.0  # what keeping a Jack or the 7D for later is worth
KEEP = tuple(SPECIAL_COST if RANK[i] == JACK_RANK or i == SEVEN_D else 0.0 for i in range(52))


def _hit_table() -> list[list[list[float]]]:
    """``HIT[u][k][h]``: odds that h cards drawn from u unseen include one of k given."""
    table = []
    for unseen in range(53):
        by_count = []
        for count in range(5):
            row = []
            for hand in range(HAND_SIZE + 1):
                draw = min(hand, unseen)
                miss = comb(unseen - count, draw) / comb(unseen, draw) if count <= unseen else 0.0
                row.append(1.0 - miss)
            by_count.append(row)
        table.append(by_count)
    return table


HIT = _hit_table()


def playout(
    state: Round,
    side: int,
    defend_us: float = 1.0,
    defend_them: float = 1.0,
    trace: list[int] | None = None,
    deals: int = -1,
) -> float:
    """Play ``state`` (which is used up) to the end of the round; the margin of ``side``.
    ``defend_us`` and ``defend_them`` weigh the next seat's expected basra for the
    seats of ``side`` and for the others; ``trace``, if given, receives every card.
    With ``deals`` at 0 or more, stop when the hands run out after that many new deals:
    the stock is then left undealt, and the margin returned is not the round's."""
    table = state.table
    memo = table.memo
    threats = table.threats
    threat_memo = table.threat_memo
    hands = state.hands
    stock = state.stock
    players = state.players
    floor = state.floor
    out = state.out
    cards = state.cards
    points = state.points
    last_side = state.last_side
    turn = state.turn
    in_hands = state.in_hands
    worth = (0.0, float(state.basra_points), float(state.jack_points))
    while in_hands:
        hand = hands[turn]
        if len(hand) == 1:
            card = hand[0]
            result = memo.get((floor << 6) | card)
            if result is None:
                result = table.capture(floor, card)
        else:
            defend = defend_us if turn & 1 == side else defend_them
            if defend:
                hand_mask = 0
                for card in hand:
                    hand_mask |= 1 << card
                hidden = CARD_BITS & ~(out | hand_mask)
                odds = HIT[hidden.bit_count()]
                reply = len(hands[(turn + 1) % players])
            best = -1e9
            card = result = -1
            for option in hand:
                found = memo.get((floor << 6) | option)
                if found is None:
                    found = table.capture(floor, option)
                captured = found & CARD_BITS
                if captured:
                    score = worth[found >> KIND_SHIFT] + (captured.bit_count() + 1) * CARD_WEIGHT
                    left = floor ^ captured
                else:
                    score = 0.0
                    left = floor | (1 << option)
                score -= KEEP[option]
                if defend and left:
                    found_threats = threat_memo.get(left)
                    if found_threats is None:
                        found_threats = threats(left)
                    for kind_mask, gain in found_threats:
                        count = (kind_mask & hidden).bit_count()
                        if count:
                            score -= defend * gain * odds[count][reply]
                if score > best:
                    best, card, result = score, option, found
        hand.remove(card)
        if trace is not None:
            trace.append(card)
        in_hands -= 1
        out |= 1 << card
        captured = result & CARD_BITS
        if captured:
            own = turn & 1
            floor ^= captured
            cards[own] += captured.bit_count() + 1
            last_side = own
            kind = result >> KIND_SHIFT
            if kind == JACK_KIND or (kind and (in_hands or stock or state.final_basra)):
                points[own] += int(worth[kind])
        else:
            floor |= 1 << card
        turn = (turn + 1) % players
        if not in_hands and stock:
            if not deals:
                break
            deals -= 1
            for offset in range(1, players + 1):
                hands[(state.dealer + offset) % players] = stock[:HAND_SIZE]
                del stock[:HAND_SIZE]
            in_hands = HAND_SIZE * players
    state.floor = floor
    state.last_side = last_side
    state.in_hands = 0
    return state.outcome(side)


def move_score(
    table: CaptureTable, floor: int, card: int, hidden: int, reply: int, defend: float
) -> float:
    """The play-out policy's worth of one move, as the loop above reckons it: points made,
    less ``defend`` times the next seat's expected basra points from the floor left
    (``hidden``: the cards the mover has not seen; ``reply``: the next hand's size), less
    what a Jack or the 7D is worth kept."""
    found = table.capture(floor, card)
    captured = found & CARD_BITS
    if captured:
        worth = (0.0, float(table.rules.basra_points), float(table.rules.jack_basra_points))
        score = worth[found >> KIND_SHIFT] + (captured.bit_count() + 1) * CARD_WEIGHT
        left = floor ^ captured
    else:
        score = 0.0
        left = floor | (1 << card)
    score -= KEEP[card]
    if defend and left:
        odds = HIT[hidden.bit_count()]
        for kind_mask, gain in table.threats(left):
            count = (kind_mask & hidden).bit_count()
            if count:
                score -= defend * gain * odds[count][reply]
    return score
