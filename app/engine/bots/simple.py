"""The two baseline bots: random, and greedy (the best immediate result)."""

from __future__ import annotations

import random

from app.engine.capture import BASRA, JACK_BASRA, Capture
from app.engine.cards import SEVEN_OF_DIAMONDS, Card
from app.engine.views import SeatView


def legal_moves(view: SeatView) -> tuple[Capture, ...]:
    if view.seat is None or view.turn != view.seat or not view.legal_moves:
        raise ValueError("a bot is asked only for the seat to move, with its legal moves")
    return view.legal_moves


def choose_random(view: SeatView, rng: random.Random) -> Card:
    return rng.choice(legal_moves(view)).card


def is_special(card: Card) -> bool:
    """A Jack or the 7D: the cards that sweep, worth keeping for a full floor."""
    return card.rank == "J" or card is SEVEN_OF_DIAMONDS


def greedy_key(move: Capture) -> tuple[bool, bool, int, bool]:
    """Jack basra first, then basra, then the most cards; keep Jacks and the 7D."""
    return (
        move.basra == JACK_BASRA,
        move.basra == BASRA,
        len(move.captured),
        not is_special(move.card),
    )


def choose_greedy(view: SeatView, rng: random.Random) -> Card:
    moves = legal_moves(view)
    best = max(greedy_key(move) for move in moves)
    return rng.choice([move for move in moves if greedy_key(move) == best]).card
