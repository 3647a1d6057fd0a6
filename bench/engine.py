"""Engine benchmarks: the capture search and whole random rounds.

Run with ``.venv/bin/python bench/engine.py``. Standard library and app.engine only.
Each figure is the median of several timed repetitions (time.perf_counter). "cold"
clears every capture cache first; "warm" repeats the same work with the caches full.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine import FULL_DECK, PLAYING, Card, Game, Rules, find_capture, parse_cards
from app.engine import capture as capture_module
from app.engine.fairness import shuffled_deck

# RULES.md 3.6: four tens, then K, Q, 9, 8, 7S, 6, 5, 4, 3, 2, A trailed.
FIFTEEN_TEXT = "10S 10H 10D 10C KS QS 9S 8S 7S 6S 5S 4S 3S 2S AS"
FIFTEEN = parse_cards(FIFTEEN_TEXT.split())
# The 36 number cards A..9 of every suit, the 7D among them.
THIRTY_SIX = parse_cards([f"{rank}{suit}" for suit in "SHDC" for rank in "A23456789"])
TEN = Card.parse("10S")


def clear_caches() -> None:
    """Empty the capture memo and every lru_cache of the capture module."""
    capture_module._CAPTURES.clear()
    for value in vars(capture_module).values():
        cache_clear = getattr(value, "cache_clear", None)
        if callable(cache_clear):
            cache_clear()


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def median_ms(work: Callable[[], object], repeat: int, cold: bool) -> float:
    samples = []
    for _ in range(repeat):
        if cold:
            clear_caches()
        samples.append(timed(work))
    return statistics.median(samples) * 1000


def floor_search(floor: Sequence[Card], card: Card, rules: Rules) -> Callable[[], object]:
    return lambda: find_capture(floor, card, rules)


def fifteen_card_floor(repeat: int) -> list[tuple[str, float, float]]:
    """Every card that could be played onto the 15-card floor, one at a time."""
    rules = Rules()
    hand = [card for card in FULL_DECK if card not in FIFTEEN]
    cold = {str(c): median_ms(floor_search(FIFTEEN, c, rules), repeat, True) for c in hand}
    warm = {str(c): median_ms(floor_search(FIFTEEN, c, rules), repeat, False) for c in hand}
    worst = max(cold, key=cold.__getitem__)
    return [
        ("15-card floor, median over the 37 cards", statistics.median(cold.values()),
         statistics.median(warm.values())),
        (f"15-card floor, slowest card ({worst})", cold[worst], warm[worst]),
    ]  # fmt: skip


def thirty_six_card_floor(repeat: int) -> list[tuple[str, float, float]]:
    rows = []
    for seven in ("wild", "plain"):
        work = floor_search(THIRTY_SIX, TEN, Rules(seven_on_floor=seven))
        cold = median_ms(work, repeat, True)
        warm = median_ms(work, repeat, False)
        rows.append((f"36 cards A..9, 10 played, seven_on_floor={seven}", cold, warm))
    return rows


def server_seed(number: int) -> bytes:
    return hashlib.sha256(f"bench-{number}".encode()).digest()


def play_rounds(count: int, first: int, rng: random.Random) -> None:
    """``count`` whole 2-player rounds through the public API, random legal cards."""
    for number in range(first, first + count):
        game = Game(Rules(), 2)
        game.deal(shuffled_deck(server_seed(number), "", 1))
        state = game.state
        while state.phase == PLAYING:
            turn = state.turn
            assert turn is not None
            hand = state.hands[turn]
            game.play(turn, hand[rng.randrange(len(hand))])


def rounds_per_second(count: int, repeat: int, cold: bool) -> tuple[float, float]:
    """Median rounds per wall-clock second and per second of this process's CPU time
    (the second shows what the engine does when other work shares the 2 cores)."""
    wall, cpu = [], []
    for _ in range(repeat):
        if cold:
            clear_caches()
        cpu_start = time.process_time()
        seconds = timed(lambda: play_rounds(count, 0, random.Random(0)))
        wall.append(count / seconds)
        cpu.append(count / max(time.process_time() - cpu_start, 1e-9))
    return statistics.median(wall), statistics.median(cpu)


def shuffle_us(repeat: int) -> float:
    samples = [timed(lambda: shuffled_deck(server_seed(0), "", 1)) for _ in range(repeat)]
    return statistics.median(samples) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="timed repetitions per figure")
    parser.add_argument("--rounds", type=int, default=1000, help="rounds per repetition")
    args = parser.parse_args()

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} cores, load average {load:.2f}")  # fmt: skip
    print(f"medians of {args.repeat} repetitions\n")

    searches = fifteen_card_floor(args.repeat) + thirty_six_card_floor(args.repeat)
    width = max(len(name) for name, _, _ in searches)
    print(f"{'capture search':<{width}}  {'cold ms':>9}  {'warm ms':>9}")
    for name, cold, warm in searches:
        print(f"{name:<{width}}  {cold:>9.3f}  {warm:>9.4f}")

    cold_rate, cold_cpu = rounds_per_second(args.rounds, args.repeat, True)
    warm_rate, warm_cpu = rounds_per_second(args.rounds, args.repeat, False)
    heading = f"whole random 2-player rounds, {args.rounds} a repetition"
    print(f"\n{heading:<{width}}  {'rounds/s':>9}  {'per CPU s':>9}")
    print(
        f"{'caches cleared before each repetition':<{width}}  {cold_rate:>9.0f}  {cold_cpu:>9.0f}"
    )
    print(f"{'caches warm (the same rounds again)':<{width}}  {warm_rate:>9.0f}  {warm_cpu:>9.0f}")
    print(f"{'one shuffled_deck, microseconds':<{width}}  {shuffle_us(args.repeat * 50):>9.1f}")

    worst_fifteen = searches[1][1]
    worst_36 = max(cold for _, cold, _ in searches[2:])
    print("\ntargets: 15-card search < 1 ms: "
          f"{'met' if searches[0][1] < 1 else 'MISSED'} (slowest card {worst_fifteen:.3f} ms); "
          f"36-card search < 100 ms: {'met' if worst_36 < 100 else 'MISSED'}; "
          f">= 2000 rounds/s: {'met' if cold_rate >= 2000 else 'MISSED'}; "
          f">= 5000 warm rounds per CPU s: {'met' if warm_cpu >= 5000 else 'MISSED'}")  # fmt: skip
    if hasattr(os, "getloadavg"):
        print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
