"""Measure how rounds end between good players, for the expert's odds of winning a match.

Deals rounds at random and plays each to its end with the expert's play-out policy in every
seat (app/engine/bots/playout.py), every hand known to it; counts each outcome (the side that
took the majority, or a tie; the basras and jack basras of each side; side 0 is the side that
leads the round) and writes the counts, for two and for four players, to
app/engine/bots/round_outcomes.json, which match.py reads.

Usage: .venv/bin/python bench/round_outcomes.py [--rounds 40000] [--seed 7] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter

from app.engine.bots.fastsim import Round
from app.engine.bots.knowledge import base_round, sample_round, unseen_cards
from app.engine.bots.match import OUTCOMES
from app.engine.bots.playout import playout
from app.engine.bots.table import CARD_BITS, JACK_KIND, KIND_SHIFT
from app.engine.fairness import shuffled_deck
from app.engine.game import Game
from app.engine.rules import Rules
from app.engine.views import observe

Outcome = tuple[int, int, int, int, int]  # majority side (-1: a tie), basras 0/1, jack basras 0/1


def dealt_round(players: int, rng: random.Random) -> Round:
    """A first round dealt at random (seat 0 leads it), every hand and the stock filled in."""
    game = Game(Rules(), players)
    game.deal(shuffled_deck(rng.randbytes(32), "", 1))
    view = observe(game.state, game.state.turn)
    return sample_round(base_round(view), view, unseen_cards(view), rng)


def outcome(state: Round) -> Outcome:
    """Play ``state`` out with the policy, replaying its cards to count each capture's kind."""
    replay, cards = state.copy(), []
    playout(state, 0, 1.0, 1.0, cards)
    basras, jacks = [0, 0], [0, 0]
    for card in cards:
        side, final = replay.turn % 2, replay.in_hands == 1 and not replay.stock
        found = replay.table.capture(replay.floor, card)
        kind = found >> KIND_SHIFT
        if found & CARD_BITS and kind == JACK_KIND:
            jacks[side] += 1
        elif found & CARD_BITS and kind and (replay.final_basra or not final):
            basras[side] += 1
        replay.play(card)
    if replay.points != state.points:
        raise AssertionError("the replay scored differently from the play-out")
    taken = list(state.cards)
    if state.last_side >= 0:
        taken[state.last_side] += state.floor.bit_count()
    majority = -1 if taken[0] == taken[1] else int(taken[1] > taken[0])
    return (majority, basras[0], basras[1], jacks[0], jacks[1])


def measure(players: int, rounds: int, seed: int) -> Counter[Outcome]:
    rng = random.Random(f"{seed}|{players}")
    return Counter(outcome(dealt_round(players, rng)) for _ in range(rounds))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    found = {"rounds": args.rounds, "seed": args.seed, "players": {}}
    for players in (2, 4):
        counts = measure(players, args.rounds, args.seed)
        points = sum(n * (30 * (o[0] == 0) + 10 * o[1] + 30 * o[3]) for o, n in counts.items())
        ties = sum(n for o, n in counts.items() if o[0] < 0)
        print(f"{players} players: {len(counts)} outcomes, side 0 scores {points / args.rounds:.1f}"
              f" a round (default points), majority tied in {ties / args.rounds:.1%}")  # fmt: skip
        found["players"][str(players)] = [[*o, n] for o, n in counts.most_common()]
    if not args.no_write:
        OUTCOMES.write_text(json.dumps(found, separators=(",", ":")) + "\n")
        print(f"written to {OUTCOMES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
