"""Matchmaking under load: two instances behind HAProxy on one PostgreSQL, many players seeking
at once in waves, while other clients play games against bots.

Three runs of the same length on a fresh database (created and dropped here), through the shipped
balancer (deploy/haproxy.cfg) in front of two gunicorn instances:
  1. clients play whole games against a greedy bot: moves/s;
  2. the same, while ``--players`` players seek at once, wave after wave: each seeks (four in
     five for two players, the rest for four), follows its seek with ``GET /seeks/{id}?wait=30``
     until it is matched, then seeks again in the next wave (the seekers in a process of
     their own, so that they do not take the players' interpreter);
  3. 1. again: moves/s in 2. is compared with the mean of 1. and 3. (a shared machine drifts).
Checked after the run: every seek ended matched or expired (none lost, none waiting), every game
made from seeks holds exactly the players whose seeks name it, and no seek is in two games.
Printed: how fast the machine is (a fixed piece of Python, timed), seeks, games,
time to match (from the moment the table's last seek was sent to the moment its player heard of
the match: p50, p99, max), moves/s in the three runs, and how busy the machine's CPU was in each
(how much room the games left); then one more wave with nobody playing, and the CPU it cost the
workers and PostgreSQL.

With ``--idle-seeks N``, N seeks wait all along, each alone of its kind (written straight into
the database before the waves, as players at their seek limit on many addresses would leave
them): a pairing pass must not read them, and the time to match must not grow with them.

Usage: nice -n 10 .venv/bin/python bench/matchmaking.py [--seconds 20] [--players 200]
           [--waves 3] [--clients 8] [--workers 2] [--think 0] [--idle-seeks 0]
With ``--think`` the clients pause after each move, as people do: the games then need less than
the whole machine, and the run says whether they keep their pace beside the waves (with no
pause, the moves take every core, and the waves' CPU comes out of them).
Loopback only, bounded in time; needs /usr/sbin/haproxy (scripts/ensure-haproxy) and psql.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import http.client
import multiprocessing as mp
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from harness import (  # bench/harness.py
    ADMIN_URL,
    cpu_seconds,
    idle_and_total,
    percentile,
    workers_of,
)
from scaling import balancer, call, fresh_database, instances, load  # bench/scaling.py

GOALS = {"p99_seconds": 2.0, "moves_kept": 0.9}


def connection(port: int) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", port, timeout=60)


def make_players(port: int, count: int) -> list[dict]:
    conn = connection(port)
    players = []
    for number in range(count):
        status, body = call(conn, "POST", "/players", {"name": f"Seeker {number}"})
        assert status == 201, body
        players.append(body)
    return players


class Wave:
    """One wave: every player seeks at once, then follows its seek until it is settled."""

    def __init__(self, port: int, players: list[dict]) -> None:
        self.port = port
        self.players = players
        self.sent: dict[str, float] = {}  # seek id -> when its POST was sent
        self.owner: dict[str, str] = {}  # seek id -> its player's id
        self.heard: dict[str, tuple[float, dict]] = {}  # seek id -> (when settled, the seek)
        self.errors: list[str] = []
        self.lock = threading.Lock()

    def outcome(self) -> dict:
        """What the wave saw, in plain values (to come back from the process that ran it)."""
        return {"sent": self.sent, "owner": self.owner, "heard": self.heard, "errors": self.errors}

    @classmethod
    def from_outcome(cls, port: int, players: list[dict], outcome: dict) -> Wave:
        wave = cls(port, players)
        wave.sent, wave.owner = outcome["sent"], outcome["owner"]
        wave.heard, wave.errors = outcome["heard"], outcome["errors"]
        return wave

    def run(self, timeout: float = 120) -> None:
        gate = threading.Barrier(len(self.players))
        threads = [threading.Thread(target=self._seeker, args=(n, p, gate))
                   for n, p in enumerate(self.players)]  # fmt: skip
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=timeout)

    def _seeker(self, number: int, player: dict, gate: threading.Barrier) -> None:
        conn, token = connection(self.port), player["token"]
        # Bots take the seats left over after 10 s: a wave never waits for the 10 min expiry.
        body = {"players": 2 if number % 5 else 4, "bot_after": 10}
        try:
            gate.wait(timeout=30)
            sent = time.perf_counter()
            status, seek = call(conn, "POST", "/seeks", body, token)
            if status != 201:
                raise AssertionError(f"POST /seeks {status}: {seek}")
            with self.lock:
                self.sent[seek["id"]], self.owner[seek["id"]] = sent, player["id"]
            for _ in range(25):  # 25 long polls of 30 s: past the seek's 10 minutes
                status, seek = call(conn, "GET", f"/seeks/{seek['id']}?wait=30", None, token)
                if status != 200:
                    raise AssertionError(f"GET /seeks {status}: {seek}")
                if seek["status"] != "waiting":
                    with self.lock:
                        self.heard[seek["id"]] = (time.perf_counter(), seek)
                    return
        except Exception as error:  # counted, and the check below fails the run
            with self.lock:
                self.errors.append(f"{type(error).__name__}: {error}")

    def match_times(self) -> list[float]:
        """Per matched seek: from the last send of its table's seeks to when it heard."""
        tables: dict[str, list[str]] = {}
        for seek_id, (_, seek) in self.heard.items():
            if seek["status"] == "matched":
                tables.setdefault(seek["game_id"], []).append(seek_id)
        times = []
        for seek_ids in tables.values():
            ready = max(self.sent[seek_id] for seek_id in seek_ids)
            times.extend(self.heard[seek_id][0] - ready for seek_id in seek_ids)
        return times

    def problems(self, port: int) -> list[str]:
        """What breaks exactly-once: a lost seek, one left waiting, a game whose seats are not
        exactly the players whose seeks name it."""
        found = list(self.errors)
        lost = set(self.sent) - set(self.heard)
        found += [f"seek {seek_id} never settled" for seek_id in sorted(lost)]
        games: dict[str, list[dict]] = {}
        for _, seek in self.heard.values():
            if seek["status"] == "matched":
                games.setdefault(seek["game_id"], []).append(seek)
            elif seek["status"] != "expired":
                found.append(f"seek {seek['id']} ended {seek['status']}")
        conn = connection(port)
        for game_id, seeks in games.items():
            status, game = call(conn, "GET", f"/games/{game_id}")
            seats = [s["player"] for s in game.get("seats", [])] if status == 200 else []
            if len(seeks) != len(seats):
                found.append(f"game {game_id}: {len(seeks)} seeks for {len(seats)} seats")
                continue
            if any(seats[s["seat"]] != self.owner[s["id"]] for s in seeks):
                found.append(f"game {game_id}: its seats are not its seeks' players")
        return found


def seek_in_waves(port: int, players: list[dict], waves: int) -> list[dict]:
    """Every player seeks, wave after wave; what each wave saw."""
    outcomes = []
    for _ in range(waves):
        wave = Wave(port, players)
        wave.run()
        outcomes.append(wave.outcome())
    return outcomes


def machine_ms() -> float:
    """The best of five runs of one fixed piece of Python (``sum(range(10**6))``), in ms: the
    waves are a fixed amount of work in a run of fixed length, so on a slower machine they
    take a larger share of it; this says how fast the machine of a run was."""
    times = []
    for _ in range(5):
        began = time.perf_counter()
        sum(range(10**6))
        times.append(time.perf_counter() - began)
    return min(times) * 1000


def busy_while(run: Callable[[], list[float]]) -> tuple[list[float], float]:
    """What ``run`` returns, and the share of the machine's CPU time that was busy meanwhile
    (``/proc/stat``, every process): how much room the games left."""

    (idle_before, all_before), result = idle_and_total(), run()
    idle_after, all_after = idle_and_total()
    return result, 1 - (idle_after - idle_before) / max(1, all_after - all_before)


def psql_rows(query: str) -> list[str]:
    found = subprocess.run(["psql", ADMIN_URL, "-Atc", query], capture_output=True, text=True)
    return found.stdout.split()


def crowd(database: str, count: int) -> int:
    """``count`` waiting seeks, each of a kind nobody else seeks, for an hour; how many wait."""
    url = ADMIN_URL.rsplit("/", 1)[0] + f"/{database}"
    insert = (
        "INSERT INTO seeks (id, player_id, name, rating, players, rated, rules, kind, bot_after,"
        " status, created_at, expires_at) SELECT 'idle' || n, 'idle-player-' || n, 'Idle', 25,"
        " 2, false, '{}', '2:casual:idle' || n, NULL, 'waiting', now(), now() + interval '1 hour'"
        f" FROM generate_series(1, {int(count)}) AS n"
    )
    subprocess.run(["psql", url, "-qc", insert], check=True, capture_output=True)
    found = subprocess.run(["psql", url, "-Atc", "SELECT count(*) FROM seeks WHERE status = "
                            "'waiting'"], capture_output=True, text=True, check=True)  # fmt: skip
    return int(found.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--waves", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8, help="clients playing bots meanwhile")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per instance")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds each playing client waits after a move (0: none, so the "
                             "moves take the whole machine)")  # fmt: skip
    parser.add_argument("--idle-seeks", type=int, default=0,
                        help="seeks waiting all along, each alone of its kind")  # fmt: skip
    args = parser.parse_args()
    if not Path("/usr/sbin/haproxy").exists():
        print("bench/matchmaking.py skipped: no /usr/sbin/haproxy (scripts/ensure-haproxy)")
        return 0
    thinking = f" (each thinking {args.think:g} s a move)" if args.think else ""
    idle = f", {args.idle_seeks} seeks alone of their kinds waiting" if args.idle_seeks else ""
    print(f"{args.players} players x {args.waves} waves, {args.clients} clients playing bots"
          f"{thinking}{idle}, {args.seconds:.0f} s a run, 2 instances x {args.workers} workers, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start, "
          f"{machine_ms():.0f} ms for sum(range(10**6))")  # fmt: skip
    # Every player here comes from one address: past the balancer's cap on one address's
    # connections (deploy/haproxy.cfg, 100 by default) it would refuse them.
    os.environ["LB_CONNECTIONS_PER_ADDRESS"] = str(args.players + args.clients + 50)
    masters: list[int] = []
    with (
        fresh_database() as url,
        instances(2, args.workers, url, masters) as ports,
        contextlib.ExitStack() as stack,
    ):
        port = stack.enter_context(balancer(ports))
        return measure(port, args, masters, url.rsplit("/", 1)[1])


def wave_alone(port: int, players: list[dict], masters: list[int], database: str) -> None:
    """One more wave with nobody playing: its time to match, and the CPU it cost the workers
    and PostgreSQL (less noisy than a latency on a shared machine)."""
    workers = [pid for master in masters for pid in workers_of(master)]
    backends = [int(pid) for pid in psql_rows(
        f"SELECT pid FROM pg_stat_activity WHERE datname = '{database}'")]  # fmt: skip
    before = cpu_seconds(workers), cpu_seconds(backends)
    wave = Wave(port, players)
    wave.run()
    spent = cpu_seconds(workers) - before[0], cpu_seconds(backends) - before[1]
    times = wave.match_times()
    print(f"a wave alone: time to match p50 {percentile(times, 0.5):.3f} s, p99 "
          f"{percentile(times, 0.99):.3f} s; CPU {spent[0]:.2f} s of the workers, {spent[1]:.2f} s "
          f"of PostgreSQL's backends")  # fmt: skip


def measure(port: int, args: argparse.Namespace, masters: list[int], database: str) -> int:
    load(port, args.clients, 2)  # warm every worker up

    def play() -> list[float]:
        return load(port, args.clients, args.seconds, args.think)

    alone, busy_alone = busy_while(play)
    players = make_players(port, args.players)
    if args.idle_seeks:
        print(f"seeks waiting before the waves: {crowd(database, args.idle_seeks)}")
    # The seekers run in a process of their own, as other people's clients would: threads of
    # this one would take its interpreter from the clients whose moves are being counted.
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=mp.get_context("fork")) as pool:
        seeking = pool.submit(seek_in_waves, port, players, args.waves)
        beside, busy_beside = busy_while(play)
        waves = [Wave.from_outcome(port, players, o) for o in seeking.result(timeout=600)]
    # Alone again after: on a shared machine the rate drifts, and the run beside the waves is
    # compared with the mean of the runs on either side of it.
    alone_after, busy_after = busy_while(play)
    times = [t for wave in waves for t in wave.match_times()]
    problems = [p for wave in waves for p in wave.problems(port)]
    settled = [s for wave in waves for _, s in wave.heard.values()]
    games = {s["game_id"] for s in settled if s["status"] == "matched"}
    expired = sum(1 for s in settled if s["status"] == "expired")
    alone_rate = (len(alone) + len(alone_after)) / 2 / args.seconds
    kept = (len(beside) / args.seconds) / alone_rate
    print(f"seeks {sum(len(w.sent) for w in waves)}, settled {len(settled)} ({expired} expired),"
          f" games {len(games)}, problems {len(problems)}")  # fmt: skip
    print(f"time to match: p50 {percentile(times, 0.5):.3f} s, p99 {percentile(times, 0.99):.3f} s,"
          f" max {max(times, default=float('nan')):.3f} s (goal: p99 <= 2 s)")  # fmt: skip
    print(f"moves/s: {len(alone) / args.seconds:.0f} and {len(alone_after) / args.seconds:.0f} "
          f"alone (before and after), {len(beside) / args.seconds:.0f} while seeking ({kept:.0%} "
          f"of their mean kept; goal: >= 90%)")  # fmt: skip
    print("a move's time, p50 / p99 ms: " + ", ".join(
        f"{name} {percentile(run, 0.5) * 1000:.0f} / {percentile(run, 0.99) * 1000:.0f}"
        for name, run in (("alone before", alone), ("beside the waves", beside),
                          ("alone after", alone_after))))  # fmt: skip
    print(f"the machine's CPU busy: {busy_alone:.0%} and {busy_after:.0%} alone, {busy_beside:.0%}"
          f" beside the waves")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    for problem in problems[:20]:
        print(f"  {problem}")
    wave_alone(port, players, masters, database)
    met = not problems and percentile(times, 0.99) <= GOALS["p99_seconds"]
    met = met and kept >= GOALS["moves_kept"]
    print("goals met" if met else "goals NOT met")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
