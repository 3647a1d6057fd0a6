"""Bots for Egyptian Basra. A bot sees exactly what a human in its seat sees: a
``SeatView`` (its own hand, the floor, the cards played this round, the sizes of the
other hands and of the stock) and draws any randomness from the ``rng`` it is given,
so a match with bots replays exactly.

The levels: ``random``; ``greedy``, the best immediate result; ``expert``, card counting
and a search over hidden hands that fit what the seat has seen (see ``expert.py``).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from app.engine.bots.expert import choose_expert
from app.engine.bots.simple import choose_greedy, choose_random
from app.engine.cards import Card
from app.engine.views import SeatView

BOT_LEVELS = ("random", "greedy", "expert")
# A bot seat's name unless its creator gives one; no human seat may take these.
BOT_NAMES = {"random": "Random bot", "greedy": "Greedy bot", "expert": "Expert bot"}

_BOTS: dict[str, Callable[[SeatView, random.Random], Card]] = {
    "random": choose_random,
    "greedy": choose_greedy,
    "expert": choose_expert,
}


def choose_card(
    level: str, view: SeatView, rng: random.Random, deadline: float | None = None
) -> Card:
    """The card the bot of ``level`` plays for the seat to move in ``view``. ``deadline``
    (``time.monotonic()``) bounds the expert's search; the others never need long."""
    if level == "expert":
        return choose_expert(view, rng, deadline)
    bot = _BOTS.get(level)
    if bot is None:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(BOT_LEVELS)}")
    return bot(view, rng)


__all__ = ["BOT_LEVELS", "BOT_NAMES", "choose_card"]
