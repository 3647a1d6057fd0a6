"""The expert: card counting and a search over the hands the seat cannot see.

Mid-round it is an information-set search by determinization: sample worlds that fit
the view (the unseen cards dealt at random into the other hands and the stock), play
each candidate card in every world, play on with the defensive play-out policy to the
end of the next deal, reckon the rest of the round from the majority race
(``horizon.py``), and keep the card with the best mean result. The same worlds serve
every candidate, so the comparison is paired and its noise small. Once the stock is
empty the unseen cards are exactly the other hands: with two players the position is
then open and the rest of the round is searched exactly (alpha-beta on the same value);
with four, each sampled deal of the three hidden hands is searched exactly once few
enough cards are left. A round's end is valued by the odds it leaves of winning the match
(``match.py``). An opponent seen this round passing over its greedy best is modelled in
the play-outs as defending too. ``classic``, an earlier expert (full play-outs valued by
the round's margin), is kept to measure by. The search has a fixed size (worlds, within
a budget of card plays), so a decision is reproducible from the view and the rng.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from app.engine.bots.endgame import exact_value
from app.engine.bots.fastsim import Round
from app.engine.bots.horizon import Worth, cut_value, margin
from app.engine.bots.inference import passed_over_best, sample_worlds
from app.engine.bots.knowledge import base_round, unseen_cards
from app.engine.bots.match import MatchScore
from app.engine.bots.playout import playout
from app.engine.bots.simple import greedy_key, legal_moves
from app.engine.bots.table import HAND_SIZE
from app.engine.capture import Capture
from app.engine.cards import SEVEN_OF_DIAMONDS, Card
from app.engine.views import SeatView

log = logging.getLogger("basra.bots")


@dataclass(frozen=True, slots=True)
class Expert:
    samples: int = 128  # sampled worlds per decision mid-round
    defend_us: float = 1.0  # weight of the next seat's expected basra in our play-outs
    defend_them: float = 0.0  # and in the other side's
    exact_cards: int = 8  # exact search once the stock is empty and this few cards are left
    exact_samples: int = 12  # sampled deals of the hidden hands for a four-player endgame
    surprise: float = 0.2  # odds kept for a world where another seat passed over its best
    min_worlds: int = 8  # searched even past a deadline
    match: bool = False  # value a round's end by the odds of winning the match
    # Against another side seen passing over its greedy best this round: its weight of our
    # next basra in the play-outs and the odds kept for a surprise (negative: as above).
    wise_defend: float = -1.0
    wise_surprise: float = -1.0
    budget: int = 0  # card plays a decision's play-outs may make, all worlds together; 0: none
    horizon: int = -1  # new deals a play-out plays before it reckons the rest; -1: all

    def choose(self, view: SeatView, rng: random.Random, deadline: float | None = None) -> Card:
        """The best card found in a search of fixed size, so the same view and ``rng`` give
        the same card on any machine at any load. ``deadline`` (a ``time.monotonic()``
        value) is a last guard only: past it the search stops after ``min_worlds`` worlds,
        and says so in the log."""
        candidates = distinct_moves(legal_moves(view))
        if len(candidates) == 1:
            return candidates[0].card
        scores, _ = self.search(view, candidates, rng, deadline)
        best = max(range(len(candidates)), key=lambda i: (scores[i], -i))
        return candidates[best].card

    def appraise(self, view: SeatView, rng: random.Random) -> list[tuple[Card, float]]:
        """Each distinct candidate (one card per kind, best-looking first) with its mean value
        over the search's worlds: what ``choose`` compares, on the scale of ``match``."""
        candidates = distinct_moves(legal_moves(view))
        totals, worlds = self.search(view, candidates, rng)
        return [(move.card, total / worlds) for move, total in zip(candidates, totals, strict=True)]

    def search(
        self,
        view: SeatView,
        candidates: list[Capture],
        rng: random.Random,
        deadline: float | None = None,
    ) -> tuple[list[float], int]:
        """Each candidate's total over the worlds searched, and how many worlds there were."""
        base = base_round(view)
        unseen = unseen_cards(view)
        side = view.seat % 2 if view.seat is not None else 0
        cards = [move.card.index for move in candidates]
        them, surprise = self.defend_them, self.surprise
        if (self.wise_defend >= 0 or self.wise_surprise >= 0) and passed_over_best(
            view, base.table
        ):
            them = self.wise_defend if self.wise_defend >= 0 else them
            surprise = self.wise_surprise if self.wise_surprise >= 0 else surprise
        score = MatchScore.of(view) if self.match else None
        leaf = score.value if score is not None else None
        if view.stock_size == 0 and base.in_hands <= self.exact_cards:
            worlds = 1 if view.players == 2 else self.exact_samples
            finish = _exact(side, leaf)
        else:
            worlds = self.worlds(len(cards), base.in_hands - 1, view.stock_size, view.players)
            if self.horizon < 0:
                finish = _playout(side, self.defend_us, them, leaf)
            else:
                worth = score.worth if score is not None else margin
                finish = _cut(side, self.defend_us, them, worth, self.horizon)
        return self._evaluate(base, view, unseen, rng, worlds, cards, finish, surprise, deadline)

    def worlds(self, candidates: int, in_hands: int, stock: int, players: int) -> int:
        """Worlds for a decision whose play-outs each play the ``in_hands`` cards left in
        the hands and then the stock, or its next ``horizon`` deals: as many as the budget
        pays for, ``samples`` at most."""
        if not self.budget:
            return self.samples
        if self.horizon >= 0:
            stock = min(stock, self.horizon * HAND_SIZE * players)
        per_world = max(1, candidates * (in_hands + stock))
        return max(self.min_worlds, min(self.samples, self.budget // per_world))

    def sample(
        self,
        base: Round,
        view: SeatView,
        unseen: list[int],
        rng: random.Random,
        count: int,
        surprise: float,
    ) -> Iterator[Round]:
        """The worlds a decision searches: ``count`` that fit the view (``inference.py``)."""
        return sample_worlds(base, view, unseen, rng, count, surprise)

    def _evaluate(
        self,
        base: Round,
        view: SeatView,
        unseen: list[int],
        rng: random.Random,
        worlds: int,
        cards: list[int],
        finish: Callable[[Round], float],
        surprise: float,
        deadline: float | None = None,
    ) -> tuple[list[float], int]:
        totals = [0.0] * len(cards)
        searched = 0
        for n, world in enumerate(self.sample(base, view, unseen, rng, worlds, surprise)):
            if deadline is not None and n >= self.min_worlds and time.monotonic() > deadline:
                # every candidate has been tried in the same n worlds: still a fair race
                log.warning("bot search cut short by its deadline after %d of %d worlds", n, worlds)
                break
            for i, card in enumerate(cards):
                child = world.copy()
                child.play(card)
                totals[i] += finish(child)
            searched += 1
        return totals, searched


def distinct_moves(moves: tuple[Capture, ...]) -> list[Capture]:
    """One move per kind of card (rank, the 7D apart), best-looking first: two cards
    of a rank take the same and leave the same, so searching both is wasted time."""
    seen: set[tuple[str, bool]] = set()
    unique = []
    for move in sorted(moves, key=greedy_key, reverse=True):
        kind = (move.card.rank, move.card is SEVEN_OF_DIAMONDS)
        if kind not in seen:
            seen.add(kind)
            unique.append(move)
    return unique


Leaf = Callable[[Round, int], float] | None


def _cut(side: int, us: float, them: float, worth: Worth, horizon: int) -> Callable[[Round], float]:
    def cut(state: Round) -> float:
        playout(state, side, us, them, None, horizon)
        return cut_value(state, side, worth)

    return cut


def _playout(side: int, us: float, them: float, leaf: Leaf) -> Callable[[Round], float]:
    if leaf is None:

        def margin(state: Round) -> float:
            return playout(state, side, us, them)

        return margin

    def valued(state: Round) -> float:
        playout(state, side, us, them)
        return leaf(state, side)

    return valued


def _exact(side: int, leaf: Leaf) -> Callable[[Round], float]:
    def finish(state: Round) -> float:
        return exact_value(state, side, -1e9, 1e9, leaf)

    return finish


# The expert before the match valuation, kept under the name ``classic`` to measure by.
CLASSIC = Expert()
DEFAULT = Expert(samples=192, match=True, budget=8_000, horizon=1, wise_defend=1.0)


def choose_expert(view: SeatView, rng: random.Random, deadline: float | None = None) -> Card:
    return DEFAULT.choose(view, rng, deadline)


def choose_classic(view: SeatView, rng: random.Random, deadline: float | None = None) -> Card:
    return CLASSIC.choose(view, rng, deadline)
