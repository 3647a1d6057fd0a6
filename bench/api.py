"""HTTP benchmark: gunicorn (the `make run` configuration) on PostgreSQL, 16 clients.

Measures side by side, in one run:
  1. GET /healthz requests/s (a round trip to the database and back);
  2. moves/s and move latency p50/p99 for 16 clients each playing whole games against
     a greedy bot (each POST /moves applies the client's card and the bot's reply);
  3. the latency of a move early in a long match (target 10000) against one late in it,
     to show a move's cost does not grow with the log.

Usage: .venv/bin/python bench/api.py [--seconds 20] [--clients 16] [--late-moves 2000]
Needs PostgreSQL on 127.0.0.1:5432 (a database is created and dropped) and only ever
talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ADMIN_URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def psql(statement: str) -> None:
    subprocess.run(["psql", ADMIN_URL, "-qc", statement], check=True, capture_output=True)


class Client:
    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(
        self, method: str, path: str, body: object = None, token: str | None = None
    ) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        payload = json.dumps(body) if body is not None else None
        self.connection.request(method, path, payload, headers)
        response = self.connection.getresponse()
        data = response.read()
        return response.status, (json.loads(data) if data else {})


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


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
                start = time.perf_counter()
                status, body = client.call(
                    "POST", f"/games/{game['id']}/moves", {"card": view["hand"][0]}, token
                )
                assert status == 201, body
                times.append(time.perf_counter() - start)
                view = body["state"]
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
    start = time.perf_counter()
    status, body = client.call("POST", f"/games/{game_id}/moves", {"card": view["hand"][0]}, token)
    assert status == 201, body
    return time.perf_counter() - start, body["state"]


def early_and_late(
    port: int, late_moves: int, samples: int = 300
) -> tuple[list[float], list[float], int]:
    """Moves of a fresh match and of one ``late_moves`` deep, timed alternately."""
    client = Client(port)
    long_id, long_token, long_view = new_game(client, 10000)
    for _ in range(late_moves):
        _, long_view = timed_move(client, long_id, long_token, long_view)
    early, late = [], []
    fresh_id, fresh_token, fresh_view = new_game(client, 10000)
    for _ in range(samples):
        elapsed, fresh_view = timed_move(client, fresh_id, fresh_token, fresh_view)
        early.append(elapsed)
        elapsed, long_view = timed_move(client, long_id, long_token, long_view)
        late.append(elapsed)
        if fresh_view["version"] > 400:  # keep the early game early
            fresh_id, fresh_token, fresh_view = new_game(client, 10000)
    return early, late, long_view["version"]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--late-moves", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "4")))
    args = parser.parse_args()

    database = f"basra_bench_{secrets.token_hex(4)}"
    psql(f'CREATE DATABASE "{database}"')
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"postgresql+psycopg://postgres@127.0.0.1:5432/{database}",
        "PORT": str(port),
        "RATE_LIMIT": "off",
        "WEB_CONCURRENCY": str(args.workers),
    }
    server = None
    try:
        subprocess.run([BIN / "basra", "migrate"], env=env, check=True, capture_output=True)
        server = subprocess.Popen(
            [BIN / "gunicorn", "-c", "gunicorn.conf.py", "app.wsgi:app"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                if Client(port).call("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        run_clients(args.clients, 2, play_load(port))  # warm up every worker

        health = run_clients(args.clients, args.seconds, healthz_load(port))
        moves = run_clients(args.clients, args.seconds, play_load(port))
        early, late, version = early_and_late(port, args.late_moves)

        health_rate = len(health) / args.seconds
        move_rate = len(moves) / args.seconds
        print(
            f"gunicorn workers={args.workers}, clients={args.clients}, {args.seconds:.0f} s a phase"
        )
        print(f"{'measure':44} {'value':>12}")
        print(f"{'GET /healthz requests/s':44} {health_rate:12.0f}")
        print(f"{'POST /moves requests/s (each + 1 bot reply)':44} {move_rate:12.0f}")
        print(
            f"{'moves/s divided by healthz/s':44} {move_rate / health_rate:12.2f}  (target >= 0.33)"
        )
        print(f"{'move latency p50 ms':44} {statistics.median(moves) * 1000:12.1f}")
        print(f"{'move latency p99 ms':44} {percentile(moves, 0.99) * 1000:12.1f}  (target < 100)")
        early_ms, late_ms = statistics.median(early) * 1000, statistics.median(late) * 1000
        print(f"{'move in a fresh match, median ms':44} {early_ms:12.2f}")
        print(f"{'move in a match at version ' + str(version) + ', median ms':44} {late_ms:12.2f}")
        print(f"{'late / early':44} {late_ms / early_ms:12.2f}  (target <= 1.25)")
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
        psql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
