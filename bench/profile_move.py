"""Profile one move in process: ``POST /games/{id}/moves`` through Flask's test client.

    .venv/bin/python bench/profile_move.py                 # PostgreSQL, a fresh match
    .venv/bin/python bench/profile_move.py --deep 5000     # a match ~110 rounds deep
    .venv/bin/python bench/profile_move.py --sqlite        # the embedded default
    .venv/bin/python bench/profile_move.py --no-profile    # timings only

Prints the CPU and wall time of a move (median over ``--moves``), the database statements a
move sends, and the cProfile table (``--top`` lines, by own time). A move is the client's card
and the greedy bot's reply, as in bench/api.py. No HTTP server and no client threads: this is
the cost of the request inside one worker, which is what the move path can change.
Not part of ``make bench`` (a diagnosis tool, not a figure).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import secrets
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import create_engine, event, text  # noqa: E402

from app import create_app  # noqa: E402
from app.cli import migrate_database  # noqa: E402

ADMIN_URL = os.environ.get(
    "BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


def admin(statement: str) -> None:
    engine = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(statement))
    engine.dispose()


class Match:
    def __init__(self, client: Any, target: int = 10000) -> None:
        self.client = client
        response = client.post(
            "/games",
            json={"players": [{"name": "p"}, {"bot": "greedy"}], "rules": {"target_score": target}},
        )
        assert response.status_code == 201, response.json
        body = response.json
        self.id, self.token, self.view = body["id"], body["seats"][0]["token"], body["state"]

    def move(self) -> None:
        response = self.client.post(
            f"/games/{self.id}/moves",
            json={"card": self.view["hand"][0]},
            headers={"Authorization": f"Bearer {self.token}"},
        )
        assert response.status_code == 201, response.json
        self.view = response.json["state"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sqlite", action="store_true")
    parser.add_argument("--deep", type=int, default=0, help="moves played before timing")
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--sort", default="tottime")
    args = parser.parse_args()

    name = f"basra_profile_{secrets.token_hex(4)}"
    tmp = tempfile.TemporaryDirectory()
    if args.sqlite:
        url = f"sqlite:///{tmp.name}/profile.sqlite3"
    else:
        admin(f'CREATE DATABASE "{name}"')
        url = ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    try:
        migrate_database(url)
        app = create_app({"DATABASE_URL": url, "RATE_LIMIT": "off", "TESTING": True})
        client = app.test_client()
        statements: Counter[str] = Counter()
        engine = app.extensions["basra_db"].engine
        event.listen(engine, "before_cursor_execute",
                     lambda *a: statements.update([a[2].split()[0].upper()]))  # fmt: skip
        event.listen(engine, "commit", lambda *a: statements.update(["COMMIT"]))
        match = Match(client)
        for _ in range(args.deep):
            match.move()
        if args.deep:
            print(f"deep match at version {match.view['version']}, round {match.view['round']}")
        for _ in range(50):  # warm up
            match.move()
        statements.clear()
        profiler = cProfile.Profile()
        cpu, wall = [], []
        for _ in range(args.moves):
            if match.view["status"] != "active":
                match = Match(client)
            c0, w0 = time.process_time(), time.perf_counter()
            if not args.no_profile:
                profiler.enable()
            match.move()
            if not args.no_profile:
                profiler.disable()
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
        per_move = {k: round(v / args.moves, 2) for k, v in sorted(statements.items())}
        print(f"{'sqlite' if args.sqlite else 'postgresql'}: {args.moves} moves, "
              f"median CPU {statistics.median(cpu) * 1000:.2f} ms, "
              f"median wall {statistics.median(wall) * 1000:.2f} ms"
              f"{' (profiled)' if not args.no_profile else ''}")  # fmt: skip
        print(f"statements a move: {per_move}")
        if not args.no_profile:
            pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.top)
    finally:
        if not args.sqlite:
            app.extensions["basra_db"].dispose()
            admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
