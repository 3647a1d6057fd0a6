"""Instructions a move and a health check cost gunicorn's workers over HTTP, counted by callgrind.

    .venv/bin/python bench/http_instructions.py                  # PostgreSQL and SQLite
    .venv/bin/python bench/http_instructions.py --databases sqlite --requests 800

bench/instructions.py counts a request in process, through Flask's test client. This counts it
where it is served: gunicorn as `make run` starts it (its workers for the database, RATE_LIMIT=off)
runs under ``valgrind --tool=callgrind``, each worker counted from its fork to its exit, and 8
client threads send requests over 127.0.0.1. Two servers are run for each kind of request: one
that answers a few requests and one that answers ``--requests`` more, so that what the workers
count to boot and to stop cancels out: (total of the long run - total of the short run) ÷ the
requests between them. The user-space instructions of the workers only: not the kernel, not
PostgreSQL's backends, not this process.

Each worker's deadline sweeper is off (SWEEPER=off): under valgrind a request takes some fifty
times as long, and the sweeper's timed wake-ups, counted per second, were charged to each request
fifty-fold (3.97 M a move on SQLite with it, 3.73 M without). Moves are the client's card and the
greedy bot's reply in matches to 101, new matches included, as in bench/api.py.
A diagnosis tool, not a figure of `make bench`: a run takes about ten minutes per database.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api import BIN, ROOT, Client, database, free_port, new_game, timed_move  # bench/api.py
from stream import workers_of  # bench/stream.py

from app.config import default_workers

CLIENTS = 8
FEW = 5  # requests a client sends to the short server


def play(port: int, count: int) -> None:
    client = Client(port)
    game_id, token, view = new_game(client, 101)
    for _ in range(count):
        if view["status"] != "active":
            game_id, token, view = new_game(client, 101)
        _, view = timed_move(client, game_id, token, view)


def check_health(port: int, count: int) -> None:
    client = Client(port)
    for _ in range(count):
        status, _ = client.call("GET", "/healthz")
        assert status == 200


def counted(url: str, workers: int, kind: str, per_client: int) -> int:
    """The workers' instructions, from fork to exit, for a server that answered ``per_client``
    requests of ``kind`` from each of the clients."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": url, "PORT": str(port), "RATE_LIMIT": "off",
           "WEB_CONCURRENCY": str(workers), "SWEEPER": "off"}  # fmt: skip
    subprocess.run([BIN / "basra", "migrate"], env=env, check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as directory:
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={directory}/cg.%p",
                   str(BIN / "python"), str(BIN / "gunicorn"), "-c", "gunicorn.conf.py",
                   "--timeout", "900", "app.wsgi:app"]  # fmt: skip
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            deadline = time.monotonic() + 600
            while len(workers_of(process.pid)) < workers or not _healthy(port):
                assert time.monotonic() < deadline, "gunicorn under valgrind did not start"
                time.sleep(1)
            time.sleep(30)  # every worker has built its app
            pids = workers_of(process.pid)
            work = play if kind == "moves" else check_health
            threads = [threading.Thread(target=work, args=(port, per_client))
                       for _ in range(CLIENTS)]  # fmt: skip
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            process.terminate()
            process.wait(timeout=300)
        total = 0
        for pid in pids:
            text = Path(f"{directory}/cg.{pid}").read_text(errors="replace")
            match = re.search(r"^totals: (\d+)", text, re.MULTILINE)
            assert match, f"no totals for worker {pid}"
            total += int(match.group(1))
        return total


def _healthy(port: int) -> bool:
    try:
        return Client(port).call("GET", "/healthz")[0] == 200
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="postgresql,sqlite")
    parser.add_argument("--requests", type=int, default=800, help="the long run's extra requests")
    args = parser.parse_args()
    per_client = FEW + max(1, args.requests // CLIENTS)
    extra = (per_client - FEW) * CLIENTS
    print(f"{'database':12} {'workers':>7} {'a move (M)':>11} {'a healthz (M)':>14} {'ratio':>6}")
    for kind in args.databases.split(","):
        with database(kind) as url:
            workers = default_workers(url)
            cost = {}
            for request in ("moves", "healthz"):
                short = counted(url, workers, request, FEW)
                long = counted(url, workers, request, per_client)
                cost[request] = (long - short) / extra / 1e6
        print(f"{kind:12} {workers:7} {cost['moves']:11.3f} {cost['healthz']:14.3f} "
              f"{cost['healthz'] / cost['moves']:6.3f}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
