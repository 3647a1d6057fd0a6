"""What the hidden cards cost the expert: how it does against greedy as it plays, searching
over the hands it cannot see, beside the same search handed the real hidden cards.

The sighted expert is the expert with one change: in place of its sampled worlds it plays
out each candidate card once, in the real world (the other hands and the stock in their
real order). It cheats, so it is never a level; it shows how much of the gap to a perfect
player is hidden information, which no search over the seat's view can win back, and how
far ahead a play-out is worth playing when nothing is hidden (``--horizons``: new deals a
play-out plays before the majority race is reckoned; -1 plays to the round's end). One more
row sees the other hand but not the stock: it searches the expert's number of worlds, each
with the real hand and the stock shuffled, to tell which of the two hidden parts counts.

    .venv/bin/python bench/hidden_cards.py                       # 400 matches a row, seed 2026
    .venv/bin/python bench/hidden_cards.py --matches 100 --seed 7 --jobs 1

Matches as in ``basra simulate``: to 101, two players, in pairs on the same decks with the
seats swapped, each seat's rng hashed from the seed, so every row plays the same decks.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import random
import time
from collections.abc import Callable, Iterable
from typing import Any

from app.engine.bots import choose_card
from app.engine.bots.expert import DEFAULT, Expert
from app.engine.bots.fastsim import Round
from app.engine.bots.simulate import MatchSpec, a_side, match_seed, run_matches, seat_rng
from app.engine.bots.stats import MatchResult, Summary, summarise
from app.engine.fairness import shuffled_deck
from app.engine.game import Game
from app.engine.rules import Rules
from app.engine.state import GameState
from app.engine.views import SeatView, observe


@dataclasses.dataclass(frozen=True, slots=True)
class Sighted(Expert):
    """The expert searching the one real world: ``truth`` is the game as it stands."""

    truth: GameState | None = None
    sees_stock: bool = True  # else only the other hands: the stock is sampled, ``worlds`` times

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
    ) -> list[float]:
        totals = [0.0] * len(cards)
        for _ in range(1 if self.sees_stock else worlds):
            world = self.real_world(base, view, rng)
            for i, card in enumerate(cards):
                child = world.copy()
                child.play(card)
                totals[i] += finish(child)
        return totals

    def real_world(self, base: Round, view: SeatView, rng: random.Random) -> Round:
        """The real hands; the real stock, or the cards left shuffled into it."""
        assert self.truth is not None
        world = base.copy()
        for seat, hand in enumerate(self.truth.hands):
            if seat != view.seat:
                world.hands[seat] = [card.index for card in hand]
        world.stock = [card.index for card in self.truth.stock]
        if not self.sees_stock:
            rng.shuffle(world.stock)
        return world


Job = tuple[MatchSpec, int, bool]  # a match, the play-out horizon, whether the stock is seen


def play_sighted(job: Job) -> MatchResult:
    """One match of the sighted expert (``spec.a``) against ``spec.b``."""
    spec, horizon, stock = job
    settings = {**_fields(DEFAULT), "horizon": horizon, "sees_stock": stock}
    if stock:  # one world is all there is
        settings.update(samples=1, budget=0)
    sighted = Sighted(**settings)
    deck_seed = match_seed(spec.seed, spec.index)
    game = Game(Rules(target_score=spec.target), spec.players)
    role = ["a" if seat % 2 == a_side(spec.index) else "b" for seat in range(spec.players)]
    rngs = [seat_rng(deck_seed, spec.index, seat) for seat in range(spec.players)]
    while not game.is_over:
        state = game.state
        if game.needs_deal:
            game.deal(shuffled_deck(deck_seed, "", state.round + 1))
            continue
        seat = state.turn
        assert seat is not None
        view = observe(state, seat)
        if role[seat] == "a":
            card = dataclasses.replace(sighted, truth=state).choose(view, rngs[seat])
        else:
            card = choose_card(spec.b, view, rngs[seat])
        game.play(seat, card)
    side_of_a = a_side(spec.index)
    winner, scores = game.state.winner, game.state.scores
    return MatchResult(
        index=spec.index,
        winner=None if winner is None else ("a" if winner == side_of_a else "b"),
        rounds=len(game.state.rounds),
        points={"a": scores[side_of_a], "b": scores[1 - side_of_a]},
    )


def _fields(expert: Expert) -> dict[str, Any]:
    return {field.name: getattr(expert, field.name) for field in dataclasses.fields(expert)}


def _pool_map(jobs: int, work: Iterable[Job]) -> list[MatchResult]:
    if jobs <= 1:
        return list(map(play_sighted, work))
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return list(pool.imap_unordered(play_sighted, work, chunksize=4))


def row(name: str, summary: Summary) -> str:
    low, high = summary.a.ci
    return (
        f"| {name} | {summary.matches} | {summary.a.win_rate:.1%} ({low:.1%} to {high:.1%}) "
        f"| {summary.margin:+.1f} ± {summary.margin_ci:.1f} | {summary.seconds:.0f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=400, help="matches a row")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--opponent", default="greedy", help="the level played against")
    parser.add_argument(
        "--horizons", default="0,1,2,-1", help="the sighted expert's play-out horizons"
    )
    parser.add_argument(
        "--no-hand-only",
        dest="hand_only",
        action="store_false",
        help="leave out the row that sees the other hand but not the stock (2 minutes)",
    )
    args = parser.parse_args(argv)
    specs = [MatchSpec(i, "expert", args.opponent, args.seed, 2, 101) for i in range(args.matches)]
    print(f"Against {args.opponent}: {args.matches} matches to 101 a row, seed {args.seed}\n")
    print("| the expert | matches | wins (95% CI) | points/round (95% CI) | seconds |")
    print("|---|---:|---|---|---:|")
    started = time.monotonic()
    results = list(run_matches(specs, args.jobs))
    fair = summarise(results, "expert", args.opponent, time.monotonic() - started)
    print(row(f"as it plays (horizon {DEFAULT.horizon})", fair), flush=True)
    rows = [(DEFAULT.horizon, False)] if args.hand_only else []
    rows += [(int(h), True) for h in args.horizons.split(",")]
    for horizon, stock in rows:
        started = time.monotonic()
        results = _pool_map(args.jobs, [(spec, horizon, stock) for spec in specs])
        sighted = summarise(results, "sighted", args.opponent, time.monotonic() - started)
        ahead = "to the round's end" if horizon < 0 else f"horizon {horizon}"
        sees = "every card" if stock else "the other hand only"
        print(row(f"seeing {sees}, {ahead}", sighted), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
