"""The skilled bot: greedy with one look at the next seat's reply.

Each card is worth what it scores now (a basra, a jack basra, a point a card towards the
majority) less the basra points the next seat may take from the floor it leaves: for every
kind of card that would clear that floor, the hypergeometric odds that the next hand holds
one, counted from the cards this seat has not seen. A Jack or the 7D is worth a few points
kept. It is the expert's play-out policy played for real, without the search: it no longer
hands a basra over, but it neither counts what it gives up later nor plans the last deal,
so a careful player beats it now and then.
"""

from __future__ import annotations

import random

from app.engine.bots.knowledge import mask_of, public_mask
from app.engine.bots.playout import move_score
from app.engine.bots.simple import legal_moves
from app.engine.bots.table import CARD_BITS, table_for
from app.engine.cards import Card
from app.engine.views import SeatView


def choose_skilled(view: SeatView, rng: random.Random) -> Card:
    moves = legal_moves(view)
    if len(moves) == 1:
        return moves[0].card
    table = table_for(view.rules)
    floor = mask_of(view.floor)
    hidden = CARD_BITS & ~(public_mask(view) | mask_of(view.hand))
    seat = view.seat if view.seat is not None else 0
    reply = view.hand_sizes[(seat + 1) % view.players]
    scores = [move_score(table, floor, move.card.index, hidden, reply, 1.0) for move in moves]
    best = max(scores)
    return rng.choice([m for m, s in zip(moves, scores, strict=True) if s == best]).card
