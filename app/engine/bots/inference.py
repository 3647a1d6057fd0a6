"""Hidden hands that fit how the other seats have played, not only what was seen.

A seat that trailed when it could have taken cards, or took few when it could have
made a basra, probably did not hold the better card. Each sampled world is checked
against the other seats' plays in the current deal (the hand they held then is the
sampled hand plus the cards they played since): every play that was not the greedy
best in that world is a surprise, and the world is kept with odds ``SURPRISE`` to the
power of its surprises (rejection sampling, so kept worlds weigh the same). With
``SURPRISE = 1`` this is plain uniform sampling.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from app.engine.bots.fastsim import Round
from app.engine.bots.knowledge import (
    Decision,
    decisions_in_finished_deals,
    decisions_this_deal,
    sample_round,
)
from app.engine.bots.table import (
    BASRA_KIND,
    CARD_BITS,
    JACK_KIND,
    JACK_RANK,
    KIND_SHIFT,
    RANK,
    SEVEN_D,
    CaptureTable,
    iter_bits,
)
from app.engine.views import SeatView

MAX_TRIES = 20  # draws per kept world before the check is dropped
KEEPS = tuple(int(not (RANK[i] == JACK_RANK or i == SEVEN_D)) for i in range(52))


def greedy_score(table: CaptureTable, floor: int, card: int) -> int:
    """The greedy order as a number: jack basra, basra, cards taken, not a sweeper."""
    result = table.capture(floor, card)
    kind = result >> KIND_SHIFT
    score = 10_000 if kind == JACK_KIND else 1_000 if kind == BASRA_KIND else 0
    return score + 2 * (result & CARD_BITS).bit_count() + KEEPS[card]


def surprises(world: Round, decisions: list[Decision]) -> int:
    table = world.table
    count = 0
    for decision in decisions:
        chosen = greedy_score(table, decision.floor, decision.card)
        held = world.hands[decision.seat] + iter_bits(decision.later)
        if any(greedy_score(table, decision.floor, card) > chosen for card in held):
            count += 1
    return count


def passed_over_best(view: SeatView, table: CaptureTable) -> int:
    """How many plays of the other side in this round's finished deals were not the
    greedy best: there the seat's whole hand is known, so the count is exact. A seat that
    passed over its best looks further ahead than greedy does."""
    count = 0
    side = (view.seat or 0) % 2
    for decision in decisions_in_finished_deals(view):
        if decision.seat % 2 == side:
            continue
        chosen = greedy_score(table, decision.floor, decision.card)
        held = iter_bits(decision.later)
        if any(greedy_score(table, decision.floor, card) > chosen for card in held):
            count += 1
    return count


def sample_worlds(
    base: Round,
    view: SeatView,
    unseen: list[int],
    rng: random.Random,
    count: int,
    surprise: float,
) -> Iterator[Round]:
    """``count`` worlds, one at a time: a caller in a hurry may stop early (the worlds and the
    random draws are the same as when taken all at once)."""
    decisions = decisions_this_deal(view) if surprise < 1 else []
    sampled = 0
    budget = count * MAX_TRIES
    while sampled < count:
        world = sample_round(base, view, unseen, rng)
        budget -= 1
        if decisions and budget > 0:
            found = surprises(world, decisions)
            if found and rng.random() >= surprise**found:
                continue
        sampled += 1
        yield world
