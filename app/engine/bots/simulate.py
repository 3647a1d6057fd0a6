"""``basra simulate``: bot-against-bot matches, with win rates and timings.

Matches come in pairs on the same decks, each bot once on each side (duplicate
play), so half the matches have each seating and the luck of the deal cancels out.
A match's decks are ``shuffled_deck(seed, "", round)`` with ``seed`` hashed from
``--seed`` and the pair's index; each seat's ``random.Random`` is hashed from the same,
so any single match can be replayed exactly.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TextIO

from app.engine.bots import BENCH_LEVELS, choose_card
from app.engine.bots.stats import MatchResult, Summary, summarise
from app.engine.cards import Card
from app.engine.fairness import shuffled_deck
from app.engine.game import Game
from app.engine.rules import Rules
from app.engine.state import GameState
from app.engine.views import SeatView, observe

MAX_ROUNDS = 500  # a guard against an endless run of tied totals under end_tie=play_on


@dataclass(frozen=True, slots=True)
class MatchSpec:
    index: int
    a: str
    b: str
    seed: int
    players: int
    target: int


def match_seed(seed: int, index: int) -> bytes:
    return hashlib.sha256(f"basra-simulate|{seed}|{index // 2}".encode()).digest()


def seat_rng(deck_seed: bytes, index: int, seat: int) -> random.Random:
    digest = hashlib.sha256(deck_seed + f"|bot|{index}|{seat}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def a_side(index: int) -> int:
    """The side bot ``a`` sits on: side 0 (it leads round 1) in even matches."""
    return index % 2


# A player in place of bot ``a``'s level: the game as it stands, the seat's view, its rng.
Player = Callable[[GameState, SeatView, random.Random], Card]


def play_match(spec: MatchSpec, player_a: Player | None = None) -> MatchResult:
    """One match; ``player_a``, if given, plays for ``a`` (bench/hidden_cards.py's expert
    that is shown the hidden cards)."""
    deck_seed = match_seed(spec.seed, spec.index)
    game = Game(Rules(target_score=spec.target), spec.players)
    role = ["a" if seat % 2 == a_side(spec.index) else "b" for seat in range(spec.players)]
    level = {"a": spec.a, "b": spec.b}
    rngs = [seat_rng(deck_seed, spec.index, seat) for seat in range(spec.players)]
    times: dict[str, list[float]] = {"a": [], "b": []}
    cpu: dict[str, list[float]] = {"a": [], "b": []}
    while not game.is_over and len(game.state.rounds) < MAX_ROUNDS:
        state = game.state
        if game.needs_deal:
            game.deal(shuffled_deck(deck_seed, "", state.round + 1))
            continue
        seat = state.turn
        if seat is None:  # playing with nobody to move: an engine bug, not a result
            raise RuntimeError(f"match {spec.index}: no seat to move in round {state.round}")
        view = observe(state, seat)
        started, spent = time.perf_counter(), time.process_time()
        if player_a is not None and role[seat] == "a":
            card = player_a(state, view, rngs[seat])
        else:
            card = choose_card(level[role[seat]], view, rngs[seat])
        times[role[seat]].append(time.perf_counter() - started)
        cpu[role[seat]].append(time.process_time() - spent)
        game.play(seat, card)
    side_of_a = a_side(spec.index)
    winner = game.state.winner
    scores = game.state.scores
    return MatchResult(
        index=spec.index,
        winner=None if winner is None else ("a" if winner == side_of_a else "b"),
        rounds=len(game.state.rounds),
        points={"a": scores[side_of_a], "b": scores[1 - side_of_a]},
        times=times,
        cpu=cpu,
    )


def run_matches(
    specs: Sequence[MatchSpec], jobs: int, player_a: Player | None = None
) -> Iterator[MatchResult]:
    play = partial(play_match, player_a=player_a)
    if jobs <= 1:
        yield from map(play, specs)
        return
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from pool.imap_unordered(play, specs, chunksize=1)


class Progress:
    """A bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.enabled = stream.isatty()
        self.started = time.monotonic()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = width * done // max(self.total, 1)
        elapsed = time.monotonic() - self.started
        left = elapsed / done * (self.total - done) if done else 0.0
        bar = "#" * filled + "." * (width - filled)
        line = f"\r[{bar}] {done}/{self.total} matches  {elapsed:.0f}s, ~{left:.0f}s left"
        self.stream.write(line)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="basra simulate",
        description="Play bots against each other; print win rates with 95%% confidence "
        "intervals, points per round and decision times.",
    )
    parser.add_argument("--a", choices=BENCH_LEVELS, default="expert", help="first bot")
    parser.add_argument("--b", choices=BENCH_LEVELS, default="greedy", help="second bot")
    parser.add_argument("--matches", type=int, default=100, help="matches (half each seating)")
    parser.add_argument("--seed", type=int, default=0, help="seed of decks and bots")
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--target", type=int, default=101, help="target score of a match")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    if args.target < 1:
        parser.error("--target must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    specs = [
        MatchSpec(i, args.a, args.b, args.seed, args.players, args.target)
        for i in range(args.matches)
    ]
    progress = Progress(len(specs), sys.stderr)
    started = time.monotonic()
    results: list[MatchResult] = []
    for result in run_matches(specs, max(1, args.jobs)):
        results.append(result)
        progress.update(len(results))
    progress.close()
    results.sort(key=lambda r: r.index)
    summary = summarise(results, args.a, args.b, time.monotonic() - started)
    if args.json:
        print(json.dumps(_json(summary, args), indent=2))
    else:
        print(summary.table(args.players, args.target, args.seed))
    return 0


def _json(summary: Summary, args: argparse.Namespace) -> dict[str, Any]:
    names = ("a", "b", "matches", "seed", "players", "target")
    settings = {name: getattr(args, name) for name in names}
    return {"settings": settings, **summary.to_dict()}


if __name__ == "__main__":
    raise SystemExit(main())
