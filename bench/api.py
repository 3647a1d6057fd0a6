"""HTTP benchmark: gunicorn (the `make run` configuration), 16 clients, PostgreSQL and SQLite.

Measures side by side, in one run, on each database (the goals in brackets):
  1. GET /healthz requests/s (a pool checkout and `SELECT 1`) and POST /moves requests/s,
     16 clients each playing whole games against a greedy bot (each move applies the
     client's card and the bot's reply), in alternating phases; the ratio of each pair of
     phases and their median [moves/s >= 0.5 x healthz/s; SQLite's within 10% of PG's].
     Both databases' servers run at once and their pairs are taken in turn, so SQLite's
     ratio is compared with PostgreSQL's of the same minute, pair by pair;
  2. move latency p50/p99 over every move phase [p99 <= 50 ms]. Those clients send their
     next move the moment an answer arrives, so by Little's law their mean latency is
     clients / throughput whatever the server does; hence also
  2b. latency when the same 16 clients send moves at a steady rate the server can keep up
     with (--paced, by default half the moves/s just measured), as real players do;
  3. a move early in a long match (target 10000) against one deep in it (the engine ends a
     match after 100 rounds: --late-round 99 by default), timed alternately
     [a move 110 rounds deep <= 1.1 x an early one];
  4. who used the CPU for one request of each kind (medians over the phases): this process's
     clients, gunicorn's workers and PostgreSQL's processes, in ms of CPU a request. The
     ratio in 1. is close to the totals' (all of it shares the same 2 cores), so this says
     where a move's extra cost lies; and the share of the machine's CPU each kind of phase
     left idle (a moves phase that leaves more idle waits on something, not on the CPU).

The ratios of 1. and 3. end with a verdict (bench/verdicts.py): their median, the interval
that holds the true median with a chance of about 95%, and "met" or "MISSED" only when the
whole interval is on one side of the target; "undecided" when it straddles it (on a shared
machine one pair's ratio swings by a quarter: more pairs narrow the interval).

Usage: .venv/bin/python bench/api.py [--seconds 3] [--pairs 9] [--clients 16]
       [--late-round 99] [--paced 0.5] [--databases postgresql,sqlite]
PostgreSQL must answer on 127.0.0.1:5432 (a database is created and dropped); SQLite uses a
file in a temporary directory. Only ever talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import secrets
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from harness import (  # bench/harness.py
    BIN,
    ROOT,
    cpu_seconds,
    free_port,
    idle_and_total,
    percentile,
    postgres_pids,
    psql,
    workers_of,
)
from verdicts import at_least, at_most, between, summary  # bench/verdicts.py

from app.config import default_workers


class Client:
    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.last_seconds = 0.0

    def call(
        self, method: str, path: str, body: object = None, token: str | None = None
    ) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        payload = json.dumps(body) if body is not None else None
        started = time.perf_counter()
        self.connection.request(method, path, payload, headers)
        response = self.connection.getresponse()
        data = response.read()
        # The server's part: until the whole answer is in, before this client decodes it
        # (a deep match's answer carries every round, and decoding is the client's cost).
        self.last_seconds = time.perf_counter() - started
        return response.status, (json.loads(data) if data else {})


def run_clients(count: int, seconds: float, work) -> list:
    results: list = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def worker() -> None:
        local = work(deadline)
        with lock:
            results.extend(local)

    threads = [threading.Thread(target=worker) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def healthz_load(port: int):
    def work(deadline: float) -> list[float]:
        client, times = Client(port), []
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            status, _ = client.call("GET", "/healthz")
            assert status == 200
            times.append(time.perf_counter() - start)
        return times

    return work


def play_load(port: int, target: int = 101):
    def work(deadline: float) -> list[float]:
        client, times = Client(port), []
        while time.perf_counter() < deadline:
            status, game = client.call(
                "POST",
                "/games",
                {
                    "players": [{"name": "bench"}, {"bot": "greedy"}],
                    "rules": {"target_score": target},
                },
            )
            assert status == 201, game
            token, view = game["seats"][0]["token"], game["state"]
            while view["status"] == "active" and time.perf_counter() < deadline:
                elapsed, view = timed_move(client, game["id"], token, view)
                times.append(elapsed)
        return times

    return work


def paced_load(port: int, interval: float, target: int = 101):
    """Each client sends a move every ``interval`` seconds (on a fixed schedule, so a slow
    answer is not hidden by sending the next one later), as long as the phase lasts."""

    def work(deadline: float) -> list[float]:
        client, times = Client(port), []
        game_id, token, view = new_game(client, target)
        next_at = time.perf_counter() + random.uniform(0, interval)  # spread the clients
        while next_at < deadline:
            time.sleep(max(0.0, next_at - time.perf_counter()))
            if view["status"] != "active":
                game_id, token, view = new_game(client, target)
            elapsed, view = timed_move(client, game_id, token, view)
            times.append(elapsed)
            next_at += interval
        return times

    return work


def new_game(client: Client, target: int) -> tuple[str, str, dict]:
    status, game = client.call(
        "POST",
        "/games",
        {"players": [{"name": "bench"}, {"bot": "greedy"}], "rules": {"target_score": target}},
    )
    assert status == 201, game
    return game["id"], game["seats"][0]["token"], game["state"]


def timed_move(client: Client, game_id: str, token: str, view: dict) -> tuple[float, dict]:
    status, body = client.call("POST", f"/games/{game_id}/moves", {"card": view["hand"][0]}, token)
    assert status == 201, body
    return client.last_seconds, body["state"]


def early_and_late(
    port: int, late_round: int, samples: int = 300
) -> tuple[list[float], list[float], int]:
    """Moves of a fresh match and of one played to round ``late_round``, timed alternately
    (the deep one stops being timed if its match ends)."""
    client = Client(port)
    long_id, long_token, long_view = new_game(client, 10000)
    while long_view["round"] < late_round and long_view["status"] == "active":
        _, long_view = timed_move(client, long_id, long_token, long_view)
    deep_round = long_view["round"]
    early, late = [], []
    fresh_id, fresh_token, fresh_view = new_game(client, 10000)
    for _ in range(samples):
        elapsed, fresh_view = timed_move(client, fresh_id, fresh_token, fresh_view)
        early.append(elapsed)
        if long_view["status"] == "active":
            elapsed, long_view = timed_move(client, long_id, long_token, long_view)
            late.append(elapsed)
        if fresh_view["version"] > 400:  # keep the early game early
            fresh_id, fresh_token, fresh_view = new_game(client, 10000)
    return early, late, deep_round


@contextmanager
def database(kind: str) -> Iterator[str]:
    """A new, empty database's URL, dropped afterwards."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as directory:
            yield f"sqlite:///{directory}/bench.sqlite3"
        return
    name = f"basra_bench_{secrets.token_hex(4)}"
    psql(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class CpuMeter:
    """CPU seconds used so far by this process, gunicorn's workers (the children of ``master``)
    and PostgreSQL's processes (the server runs on this machine), read from /proc with
    bench/harness.py's helpers."""

    def __init__(self, master: int) -> None:
        self.master = master

    def read(self) -> tuple[float, float, float]:
        own = os.times()
        workers = cpu_seconds(workers_of(self.master))
        return own.user + own.system, workers, cpu_seconds(postgres_pids())


def cpu_per_request(meter: CpuMeter, count: int, seconds: float, work) -> tuple[list, list[float]]:
    """Run one phase: what ``run_clients`` returns (a time per request), and the CPU in ms
    each request cost the clients, the workers and PostgreSQL, then the % of the machine's
    CPU the phase left idle."""
    before, idle_before = meter.read(), idle_and_total()
    done = run_clients(count, seconds, work)
    after, idle_after = meter.read(), idle_and_total()
    cpu = [1000 * (b - a) / max(1, len(done)) for a, b in zip(before, after, strict=True)]
    idle, total = (b - a for a, b in zip(idle_before, idle_after, strict=True))
    return done, [*cpu, 100 * idle / max(1, total)]  # then the share of the CPU left idle


@contextmanager
def server(
    url: str, workers: int, pids: list[int] | None = None, settings: dict[str, str] | None = None
) -> Iterator[int]:
    """gunicorn as `make run` starts it, on a free port of 127.0.0.1 (its master's pid is
    appended to ``pids`` when given), with ``settings`` added to its environment."""
    port = free_port()
    env = {**os.environ, **(settings or {}), "DATABASE_URL": url, "PORT": str(port),
           "RATE_LIMIT": "off", "WEB_CONCURRENCY": str(workers)}  # fmt: skip
    subprocess.run([BIN / "basra", "migrate"], env=env, check=True, capture_output=True)
    process = subprocess.Popen(
        [BIN / "gunicorn", "-c", "gunicorn.conf.py", APP],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    if pids is not None:
        pids.append(process.pid)
    try:
        for _ in range(200):
            try:
                if Client(port).call("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=20)


class Subject:
    """One database's server under test, and what its phases measured so far."""

    def __init__(self, kind: str, port: int, master: int, workers: int) -> None:
        self.kind, self.port, self.workers = kind, port, workers
        self.meter = CpuMeter(master)
        self.ratios: list[float] = []
        self.health_rates: list[float] = []
        self.move_rates: list[float] = []
        self.moves: list[float] = []
        self.health_cpu: list[list[float]] = []
        self.move_cpu: list[list[float]] = []

    def pair(self, args: argparse.Namespace) -> None:
        """A health-check phase, then a moves phase: one ratio."""
        health, cpu = cpu_per_request(self.meter, args.clients, args.seconds,
                                      healthz_load(self.port))  # fmt: skip
        self.health_cpu.append(cpu)
        played, cpu = cpu_per_request(self.meter, args.clients, args.seconds,
                                      play_load(self.port))  # fmt: skip
        self.move_cpu.append(cpu)
        self.health_rates.append(len(health) / args.seconds)
        self.move_rates.append(len(played) / args.seconds)
        self.ratios.append(self.move_rates[-1] / self.health_rates[-1])
        self.moves.extend(played)

    def results(self, args: argparse.Namespace) -> dict[str, float]:
        rate = statistics.median(self.move_rates) * args.paced
        paced = run_clients(args.clients, args.seconds,
                            paced_load(self.port, args.clients / rate))  # fmt: skip
        early, late, deep_round = early_and_late(self.port, args.late_round)
        early_ms, late_ms = statistics.median(early) * 1000, statistics.median(late) * 1000
        return {
            "healthz/s": statistics.median(self.health_rates),
            "moves/s": statistics.median(self.move_rates),
            "ratio": statistics.median(self.ratios),
            "ratios": self.ratios,  # type: ignore[dict-item]
            "p50": statistics.median(self.moves) * 1000,
            "p99": percentile(self.moves, 0.99) * 1000,
            "early": early_ms,
            "late": late_ms,
            "round": deep_round,
            "workers": self.workers,
            "paced/s": len(paced) / args.seconds,
            "paced p50": statistics.median(paced) * 1000,
            "paced p99": percentile(paced, 0.99) * 1000,
            "late/early": late_ms / early_ms,
            # Each deep move against the early move timed just before it: the pairs share the
            # machine's speed of that moment, so their interval says whether the run decides.
            "late/early pairs": [  # type: ignore[dict-item]
                b / a for a, b in zip(early, late, strict=False)
            ],
            **{
                f"{kind} cpu {party}": statistics.median(cpu[n] for cpu in spent)
                for kind, spent in (("healthz", self.health_cpu), ("move", self.move_cpu))
                for n, party in enumerate((*PARTIES, "idle"))
            },
        }


def measure(kinds: list[str], args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Every database's server up at once, their phase pairs taken in turn (PostgreSQL's
    pair, SQLite's pair, PostgreSQL's...): a machine whose speed drifts during the run
    slows both alike, so SQLite's ratio is compared with PostgreSQL's pair by pair. An idle
    server costs next to nothing while the other is loaded."""
    with ExitStack() as stack:
        subjects = []
        for kind in kinds:
            masters: list[int] = []
            url = stack.enter_context(database(kind))
            workers = args.workers or default_workers(url)
            port = stack.enter_context(server(url, workers, masters))
            subjects.append(Subject(kind, port, masters[0], workers))
        for subject in subjects:
            run_clients(args.clients, 2, play_load(subject.port))  # warm up every worker
        for _ in range(args.pairs):  # alternate, so that a change of load hits all alike
            for subject in subjects:
                subject.pair(args)
        return {subject.kind: subject.results(args) for subject in subjects}


PARTIES = ("clients", "workers", "postgresql")


def load_average() -> str:
    return f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "?"


APP = "app.asgi:app"  # what gunicorn serves (--app)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=3, help="length of each phase")
    parser.add_argument(
        "--pairs", type=int, default=9, help="healthz/moves phase pairs (9: a 96%% interval)"
    )
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--late-round", type=int, default=99)
    parser.add_argument(
        "--paced", type=float, default=0.5, help="the paced phase's rate, x the moves/s measured"
    )
    parser.add_argument("--databases", default="postgresql,sqlite")
    parser.add_argument(
        "--app",
        default="app.asgi:app",
        help="the entrance, as `make run` serves it; app.wsgi:app: the REST replicas (gthread)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("WEB_CONCURRENCY") or 0),
        help="gunicorn's workers (default: as `make run` starts it, by the database)",
    )
    args = parser.parse_args()
    global APP
    APP = args.app

    kinds = [kind.strip() for kind in args.databases.split(",") if kind.strip()]
    print(f"gunicorn workers: {args.workers or 'as make run starts them'}; clients={args.clients}, "
          f"{args.pairs} pairs of "
          f"{args.seconds:.0f} s phases; load average {load_average()} "
          f"on {os.cpu_count()} cores")  # fmt: skip
    results = measure(kinds, args)
    rows = [
        ("gunicorn workers", "workers", "{:.0f}", ""),
        ("GET /healthz requests/s (median phase)", "healthz/s", "{:.0f}", ""),
        ("POST /moves requests/s (median phase)", "moves/s", "{:.0f}", ""),
        ("moves/s / healthz/s (median of pairs)", "ratio", "{:.2f}", ">= 0.5"),
        ("move latency p50 ms", "p50", "{:.1f}", ""),
        ("move latency p99 ms", "p99", "{:.1f}", "<= 50"),
        ("paced: moves/s sent at a steady rate", "paced/s", "{:.0f}", ""),
        ("paced: move latency p50 ms", "paced p50", "{:.1f}", ""),
        ("paced: move latency p99 ms", "paced p99", "{:.1f}", "<= 50"),
        ("move in a fresh match, median ms", "early", "{:.2f}", ""),
        ("move deep in a match, median ms", "late", "{:.2f}", ""),
        ("  ... from round", "round", "{:.0f}", ""),
        ("late / early", "late/early", "{:.2f}", "<= 1.1"),
        *(
            (f"CPU ms a {kind}: {party}", f"{kind} cpu {party}", "{:.3f}", "")
            for kind in ("healthz", "move")
            for party in PARTIES
        ),
        *(
            (f"CPU idle % in {kind} phases", f"{kind} cpu idle", "{:.1f}", "")
            for kind in ("healthz", "move")
        ),
    ]
    print(f"{'measure':42}" + "".join(f"{kind:>12}" for kind in kinds) + "  target")
    for label, key, form, target in rows:
        cells = "".join(f"{form.format(results[kind][key]):>12}" for kind in kinds)
        print(f"{label:42}{cells}  {target}")
    # Each goal's verdict from the interval around its median (bench/verdicts.py): a run
    # whose pairs straddle the target is undecided, not met or missed.
    for kind in kinds:
        ratios: list[float] = results[kind]["ratios"]  # type: ignore[assignment]
        print(f"{kind} ratio of each pair: {', '.join(f'{r:.2f}' for r in ratios)}")
        print(f"  >= 0.5: {summary(ratios, at_least(ratios, 0.5))}")
    for kind in kinds:
        deep: list[float] = results[kind]["late/early pairs"]  # type: ignore[assignment]
        if deep:
            print(f"{kind} late / early, move by move: <= 1.1: "
                  f"{summary(deep, at_most(deep, 1.1), 'moves')}")  # fmt: skip
    if {"postgresql", "sqlite"} <= set(results):
        pg, lite = results["postgresql"]["ratios"], results["sqlite"]["ratios"]
        paired = [b / a for a, b in zip(pg, lite, strict=True)]  # type: ignore[call-overload]
        each = ", ".join(f"{r:.2f}" for r in paired)
        print(f"SQLite ratio / PostgreSQL ratio, pair by pair: {each}")
        print(f"  0.9 to 1.1: {summary(paired, between(paired, 0.9, 1.1))}")
    print(f"load average at the end {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
