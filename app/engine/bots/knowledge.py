"""What a seat knows: card counting from its view, and hidden hands that fit it.

Seen this round: the seat's own hand, the floor, and every card played and taken
(``view.round_moves``). Everything else is unseen: the other hands and the stock,
buried floor cards included. A sampled world deals the unseen cards at random into
hands of the sizes the view shows and a stock of the size it shows.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from app.engine.bots.fastsim import Round
from app.engine.bots.table import JACK_RANK, RANK, SEVEN_D, table_for
from app.engine.cards import Card
from app.engine.state import HAND_SIZE, SIDES
from app.engine.views import SeatView

ALL_CARDS = (1 << 52) - 1


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


def public_mask(view: SeatView) -> int:
    """Cards out of every hand and the stock: the floor and the piles of this round."""
    mask = mask_of(view.floor)
    for move in view.round_moves:
        mask |= (1 << move.card.index) | mask_of(move.captured)
    return mask


def unseen_cards(view: SeatView) -> list[int]:
    """Indices of the cards the seat has not seen this round, in canonical order."""
    hidden = ALL_CARDS & ~(public_mask(view) | mask_of(view.hand))
    return [index for index in range(52) if hidden >> index & 1]


def sweepers_out(view: SeatView) -> dict[str, int]:
    """How many Jacks and whether the 7D are still unseen: the cards worth fearing."""
    unseen = unseen_cards(view)
    return {
        "jacks": sum(1 for i in unseen if RANK[i] == JACK_RANK),
        "seven_of_diamonds": int(SEVEN_D in unseen),
    }


def majority_award(view: SeatView) -> int:
    """This round's majority points: ties carried over from the rounds just before."""
    rules = view.rules
    carried = 0
    if rules.majority_tie == "carry_over":
        for result in reversed(view.rounds):
            if result.majority is not None:
                break
            carried += rules.majority_points
    return rules.majority_points + carried


def base_round(view: SeatView) -> Round:
    """The public part of the round; the other hands and the stock are left empty."""
    if view.seat is None or view.turn is None:
        raise ValueError("a bot plays from the view of the seat to move")
    rules = view.rules
    state = Round.__new__(Round)
    state.table = table_for(rules)
    state.players = view.players
    state.hands = [[] for _ in range(view.players)]
    state.hands[view.seat] = [card.index for card in view.hand]
    state.stock = []
    state.floor = mask_of(view.floor)
    state.cards = [side.captured for side in view.sides[:SIDES]]
    state.points = [
        side.basras * rules.basra_points + side.jack_basras * rules.jack_basra_points
        for side in view.sides[:SIDES]
    ]
    capturer = view.last_capturer
    state.last_side = -1 if capturer is None else capturer % SIDES
    state.turn = view.turn
    state.dealer = view.dealer
    state.in_hands = sum(view.hand_sizes)
    state.final_basra = rules.basra_on_final_play
    state.basra_points = rules.basra_points
    state.jack_points = rules.jack_basra_points
    state.majority = majority_award(view)
    state.out = public_mask(view)
    return state


def sample_round(base: Round, view: SeatView, unseen: list[int], rng: random.Random) -> Round:
    """``base`` with the unseen cards dealt at random to the other seats and the stock."""
    cards = list(unseen)
    rng.shuffle(cards)
    world = base.copy()
    start = 0
    for seat, size in enumerate(view.hand_sizes):
        if seat != view.seat:
            world.hands[seat] = cards[start : start + size]
            start += size
    world.stock = cards[start:]
    if len(world.stock) != view.stock_size:
        raise ValueError("the view's hidden cards do not add up")
    return world


@dataclass(frozen=True, slots=True)
class Decision:
    """A card another seat played in the current deal, and what it then held besides."""

    seat: int
    floor: int  # the floor before the card, as a mask
    card: int
    later: int  # the cards that seat played after this one in the same deal
    move: int  # its place among the round's moves


def decisions_this_deal(view: SeatView) -> list[Decision]:
    """The other seats' plays since the last deal, each with the floor it met."""
    deal = HAND_SIZE * view.players
    start = len(view.round_moves) - len(view.round_moves) % deal
    return [d for d in decisions_this_round(view) if d.move >= start]


def decisions_in_finished_deals(view: SeatView) -> list[Decision]:
    """The other seats' plays in this round's finished deals: there ``later`` holds every
    card the seat still held, so each play can be checked against its whole hand."""
    deal = HAND_SIZE * view.players
    end = len(view.round_moves) - len(view.round_moves) % deal
    return [d for d in decisions_this_round(view) if d.move < end]


def decisions_this_round(view: SeatView) -> list[Decision]:
    """The other seats' plays this round, each with the floor it met and the cards the
    seat played later in the same deal. The floor is rebuilt backwards from the current
    one: put back what a card took, or lift off a card that was trailed."""
    moves = view.round_moves
    deal = HAND_SIZE * view.players
    floor = mask_of(view.floor)
    played_after = [0] * view.players
    found = []
    for index in range(len(moves) - 1, -1, -1):
        move = moves[index]
        if index % deal == deal - 1:
            played_after = [0] * view.players  # the last card of a deal: a new deal behind
        bit = 1 << move.card.index
        floor = floor | mask_of(move.captured) if move.captured else floor & ~bit
        if move.seat != view.seat:
            later = played_after[move.seat]
            found.append(Decision(move.seat, floor, move.card.index, later, index))
        played_after[move.seat] |= bit
    return found
