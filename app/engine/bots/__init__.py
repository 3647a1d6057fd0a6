"""Bots for Egyptian Basra. A bot sees exactly what a human in its seat sees: a
``SeatView`` (its own hand, the floor, the cards played this round, the sizes of the
other hands and of the stock) and draws any randomness from the ``rng`` it is given,
so a match with bots replays exactly.

The levels, weakest first: ``random``; ``greedy``, the best immediate result;
``skilled``, greedy that looks at what the next seat may take (``skilled.py``);
``expert``, card counting and a search over hidden hands that fit what the seat has seen
(``expert.py``). ``classic`` is an earlier expert, kept for the benchmarks only.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from app.engine.bots.expert import choose_classic, choose_expert
from app.engine.bots.simple import choose_greedy, choose_random
from app.engine.bots.skilled import choose_skilled
from app.engine.cards import Card
from app.engine.views import SeatView

BOT_LEVELS = ("random", "greedy", "skilled", "expert")  # weakest first
BENCH_LEVELS = (*BOT_LEVELS, "classic")  # what bench/bots.py and ``basra simulate`` may play
# A bot seat's name unless its creator gives one; no human seat may take these.
BOT_NAMES = {
    "random": "Random bot",
    "greedy": "Greedy bot",
    "skilled": "Skilled bot",
    "expert": "Expert bot",
}

Bot = Callable[[SeatView, random.Random], Card]
Searcher = Callable[[SeatView, random.Random, float | None], Card]

_BOTS: dict[str, Bot] = {
    "random": choose_random,
    "greedy": choose_greedy,
    "skilled": choose_skilled,
}
_SEARCHERS: dict[str, Searcher] = {"expert": choose_expert, "classic": choose_classic}


def choose_card(
    level: str, view: SeatView, rng: random.Random, deadline: float | None = None
) -> Card:
    """The card the bot of ``level`` plays for the seat to move in ``view``. The expert's
    search has a fixed size; ``deadline`` (``time.monotonic()``) is only a last guard on
    it, logged when it cuts a search short. The other levels never need long."""
    searcher = _SEARCHERS.get(level)
    if searcher is not None:
        return searcher(view, rng, deadline)
    bot = _BOTS.get(level)
    if bot is None:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(BOT_LEVELS)}")
    return bot(view, rng)


__all__ = ["BENCH_LEVELS", "BOT_LEVELS", "BOT_NAMES", "choose_card"]
