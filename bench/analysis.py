"""Analysis benchmark: gunicorn (the `make run` configuration) on SQLite or PostgreSQL.

Measures, in one run (the goals in brackets):
  1. how long a finished match to 101 between two humans takes to analyse, from the first
     GET /games/{id}/analysis to its 200, one game at a time on an otherwise idle server
     [each within 20 s]; and the CPU seconds its judging takes, the first --cpu-games logs
     judged again in this process (what a machine's load changes least: on an idle machine an
     analysis takes about that over ANALYSIS_WORKERS, 2 by default);
  2. live moves' throughput while analyses run: 16 clients play whole games against a greedy
     bot, in phases taken in turn, one with nothing else and one while analyses of fresh
     matches are running (asked for at the phase's start, more than the pool judges at once);
     the ratio of each pair of phases and their median [>= 0.9], with a verdict
     (bench/verdicts.py: "met" only when the interval of the median is wholly above it);
  3. how far to trust a loss (--noise N): N positions of matches between the skilled
     bot and greedy, each judged twice with seeds that differ, as the analysis judges them;
     the median and 90th percentile of how much a card's loss (its value below the best's)
     moves between the two, in round points.

Usage: .venv/bin/python bench/analysis.py [--games 3] [--cpu-games 1] [--pairs 5] [--per-phase 2]
       [--seconds 4] [--clients 16]
       [--database sqlite|postgresql] [--noise 0]
PostgreSQL must answer on 127.0.0.1:5432 for --database postgresql (a database is created and
dropped). Only ever talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from api import Client, database, play_load, run_clients, server  # bench/api.py
from verdicts import at_least, summary  # bench/verdicts.py

from app.config import default_workers


def finished_match(client: Client, rng: random.Random) -> str:
    """Two humans play a match to 101 to its end, each a card of its hand at random."""
    status, game = client.call("POST", "/games", {"players": [{"name": "Amira"}, {"name": "Badr"}]})
    assert status == 201, game
    tokens = [seat["token"] for seat in game["seats"]]
    state = game["state"]
    while state["status"] == "active":
        token = tokens[state["turn"]]
        _, view = client.call("GET", f"/games/{game['id']}", token=token)
        status, answer = client.call(
            "POST", f"/games/{game['id']}/moves", {"card": rng.choice(view["hand"])}, token=token
        )
        assert status == 201, answer
        state = answer["state"]
    return str(game["id"])


def analysed_in(client: Client, game_id: str, timeout: float = 300) -> float:
    """Seconds from the first request for the analysis to its 200."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        status, body = client.call("GET", f"/games/{game_id}/analysis")
        if status == 200:
            return time.perf_counter() - started
        assert status == 202, body
        time.sleep(0.1)
    raise AssertionError(f"{game_id} was not analysed within {timeout} s")


def judging_cpu(client: Client, game_id: str, work: int) -> float:
    """CPU seconds this process takes to judge the game's human moves, from its whole log."""
    from app.engine.bots.analysis import judge_log
    from app.engine.events import EVENT_TYPES
    from app.engine.rules import Rules

    _, page = client.call("GET", f"/games/{game_id}/events?limit=1000")
    events = [(e["type"], e["data"]) for e in page["events"] if e["type"] in EVENT_TYPES]
    started = time.process_time()
    judge_log(Rules().to_dict(), 2, events, [0, 1], work=work)
    return time.process_time() - started


def throughput_pairs(port: int, games: list[str], args: argparse.Namespace) -> list[float]:
    """Moves/s with analyses running over moves/s without, a pair of phases at a time."""
    ratios = []
    for pair in range(args.pairs):
        alone = len(run_clients(args.clients, args.seconds, play_load(port))) / args.seconds
        asker = Client(port)
        fresh = games[pair * args.per_phase : (pair + 1) * args.per_phase]
        refused = 0
        for game_id in fresh:
            status, body = asker.call("GET", f"/games/{game_id}/analysis")
            assert status in (200, 202, 503), body
            refused += status == 503  # the queues are full of analyses still running
        beside = len(run_clients(args.clients, args.seconds, play_load(port))) / args.seconds
        running = sum(
            asker.call("GET", f"/games/{game_id}/analysis")[0] == 202 for game_id in fresh
        )
        ratios.append(beside / alone)
        print(f"  pair {pair + 1}: {alone:.0f} moves/s alone, {beside:.0f} beside analyses "
              f"({refused} of {len(fresh)} asked refused, 503; {running} still running at its "
              f"end): {ratios[-1]:.2f}", flush=True)  # fmt: skip
    return ratios


def noise(count: int, work: int) -> tuple[float, float]:
    """How much a loss moves when the search's worlds change, over ``count`` positions."""
    from app.engine import Game, Rules, observe
    from app.engine.bots import choose_card
    from app.engine.bots.analysis import analyst, canonical
    from app.engine.fairness import shuffled_deck

    rng, moved = random.Random(7), []
    game = Game(Rules(), 2)
    game.deal(shuffled_deck(b"noise", "", 1))
    while len(moved) < count:
        if game.is_over or game.needs_deal:
            game = Game(Rules(), 2)
            game.deal(shuffled_deck(f"noise-{len(moved)}".encode(), "", 1))
        seat = game.state.turn
        assert seat is not None
        view = canonical(observe(game.state, seat))
        if len({(c.rank, c.index == 32) for c in view.hand}) > 1:
            judged = [dict(analyst(work).appraise(view, random.Random(s))) for s in (1, 2)]
            for card in judged[0]:
                losses = [max(j.values()) - j[card] for j in judged]
                moved.append(abs(losses[0] - losses[1]))
        card = choose_card("skilled" if seat == 0 else "greedy", observe(game.state, seat), rng)
        game.play(seat, card)
    moved.sort()
    return statistics.median(moved), moved[int(0.9 * (len(moved) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="matches timed one at a time")
    parser.add_argument("--cpu-games", type=int, default=1, help="of those, judged again here")
    parser.add_argument("--pairs", type=int, default=5, help="pairs of throughput phases")
    parser.add_argument("--per-phase", type=int, default=2, help="analyses asked for a phase")
    parser.add_argument("--seconds", type=float, default=4.0, help="a phase's length")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--database", default="sqlite", choices=("sqlite", "postgresql"))
    parser.add_argument("--noise", type=int, default=0, help="positions for item 3 (0: skip)")
    parser.add_argument("--work", type=int, default=16_000,
                        help="ANALYSIS_WORK for the CPU of item 1 and for item 3")  # fmt: skip
    args = parser.parse_args()
    rng = random.Random(2026)
    with database(args.database) as url, server(url, default_workers(url)) as port:
        client = Client(port)
        needed = args.games + args.pairs * args.per_phase
        started = time.perf_counter()
        games = [finished_match(client, rng) for _ in range(needed)]
        print(f"{needed} matches to 101 between two humans played in "
              f"{time.perf_counter() - started:.0f} s ({args.database})", flush=True)  # fmt: skip
        times = [analysed_in(client, game_id) for game_id in games[: args.games]]
        print("1. analysed in: " + ", ".join(f"{t:.1f} s" for t in times)
              + f"; median {statistics.median(times):.1f} s, slowest {max(times):.1f} s "
              f"[each <= 20 s: {'met' if max(times) <= 20 else 'MISSED'}]", flush=True)  # fmt: skip
        # A connection of its own each: judging takes longer than a kept-alive one idles.
        cpu = [judging_cpu(Client(port), game_id, args.work)
               for game_id in games[: args.cpu_games]]  # fmt: skip
        print("   CPU to judge each again in this process: "
              + ", ".join(f"{c:.1f} s" for c in cpu), flush=True)  # fmt: skip
        print(f"2. moves/s beside analyses over moves/s alone, {args.clients} clients, "
              f"{args.seconds:.0f} s phases:", flush=True)  # fmt: skip
        ratios = throughput_pairs(port, games[args.games :], args)
        print("   " + summary(ratios, at_least(ratios, 0.9)), flush=True)
    if args.noise:
        median, p90 = noise(args.noise, args.work)
        print(
            f"3. a card's loss between two searches of {args.work} card plays, over "
            f"{args.noise} positions: median {median:.2f}, p90 {p90:.2f} points"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
