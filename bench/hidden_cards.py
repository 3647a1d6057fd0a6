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
import random
import time
from collections.abc import Iterator

from app.engine.bots.expert import DEFAULT, Expert
from app.engine.bots.fastsim import Round
from app.engine.bots.simulate import MatchSpec, run_matches
from app.engine.bots.stats import Summary, summarise
from app.engine.cards import Card
from app.engine.state import GameState
from app.engine.views import SeatView


@dataclasses.dataclass(frozen=True, slots=True)
class Sighted(Expert):
    """The expert searching the real world: ``truth`` is the game as it stands."""

    truth: GameState | None = None
    sees_stock: bool = True  # else only the other hands: the stock is shuffled, ``count`` times

    def sample(
        self,
        base: Round,
        view: SeatView,
        unseen: list[int],
        rng: random.Random,
        count: int,
        surprise: float,
    ) -> Iterator[Round]:
        for _ in range(1 if self.sees_stock else count):
            yield self.real_world(base, view, rng)

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

    def play(self, state: GameState, view: SeatView, rng: random.Random) -> Card:
        return dataclasses.replace(self, truth=state).choose(view, rng)


def sighted(horizon: int, sees_stock: bool) -> Sighted:
    """The expert as it is, with ``horizon``; seeing the stock, one world is all there is."""
    settings = {f.name: getattr(DEFAULT, f.name) for f in dataclasses.fields(DEFAULT)}
    settings.update(horizon=horizon, sees_stock=sees_stock)
    if sees_stock:
        settings.update(samples=1, budget=0)
    return Sighted(**settings)


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
        results = list(run_matches(specs, args.jobs, sighted(horizon, stock).play))
        summary = summarise(results, "sighted", args.opponent, time.monotonic() - started)
        ahead = "to the round's end" if horizon < 0 else f"horizon {horizon}"
        sees = "every card" if stock else "the other hand only"
        print(row(f"seeing {sees}, {ahead}", summary), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
