"""What SQLite's own statements cost a move, in a request and replayed warm.

    .venv/bin/python bench/sqlite_statements.py                 # 3,000 moves, then the replays
    .venv/bin/python bench/sqlite_statements.py --moves 1000 --replays 500

1. Plays moves of 101-point matches through Flask's test client on a new SQLite file (as
   bench/profile_move.py does), with the calls of a move's own path timed (the connection's
   ``execute``, ``executemany`` and ``commit``, which app/persistence/sqlite.py uses; a subclass
   of ``sqlite3.Connection`` given to ``sqlite3.connect`` as its factory), and prints the median
   CPU time of each kind of call and of a whole move.
2. Replays the last move's UPDATE and its commit on one game, again and again, with Python work
   between two saves (the standard library's ``json.dumps`` of a list of N small dicts, N from
   ``--work``): how much of a statement's cost in a request is the CPU's caches emptied by the
   request's own Python.

Not part of ``make bench`` (a diagnosis tool, docs/performance.md, "Seventeenth session").
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from profile_move import Match  # bench/profile_move.py

from app import create_app
from app.cli import migrate_database
from app.gc_tuning import tune_for_requests
from app.persistence.database import _tune_sqlite

TIMES: defaultdict[str, list[float]] = defaultdict(list)
LAST_UPDATE: list[tuple[str, Any]] = []


class TimedConnection(sqlite3.Connection):
    """Times each statement (by its first word) and each commit, in this process's CPU time."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:  # type: ignore[override]
        started = time.process_time()
        try:
            return super().execute(sql, parameters)
        finally:
            kind = sql.split(None, 1)[0].upper()
            TIMES[kind].append(time.process_time() - started)
            if kind == "UPDATE" and sql.startswith("UPDATE games"):
                LAST_UPDATE[:] = [(sql, parameters)]

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:  # type: ignore[override]
        started = time.process_time()
        try:
            return super().executemany(sql, parameters)
        finally:
            TIMES[sql.split(None, 1)[0].upper() + " (many)"].append(time.process_time() - started)

    def commit(self) -> None:
        started = time.process_time()
        try:
            super().commit()
        finally:
            TIMES["COMMIT"].append(time.process_time() - started)


def play(url: str, moves: int) -> None:
    # SQLAlchemy's pysqlite dialect connects through ``sqlite3.dbapi2``, a module of its own.
    original = sqlite3.dbapi2.connect

    def timed_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        return original(*args, **{**kwargs, "factory": TimedConnection})

    sqlite3.dbapi2.connect = timed_connect  # type: ignore[assignment]
    try:
        app = create_app({"DATABASE_URL": url, "RATE_LIMIT": "off", "TESTING": True})
        tune_for_requests()  # as app/wsgi.py does in every served worker
        client = app.test_client()
        match = Match(client, 101)
        whole = []
        for number in range(moves):
            if match.view["status"] != "active":
                match = Match(client, 101)
            if number == moves // 10:  # the first tenth warms up
                TIMES.clear()
            started = time.process_time()
            match.move()
            whole.append(time.process_time() - started)
        app.extensions["basra_db"].dispose()
    finally:
        sqlite3.dbapi2.connect = original  # type: ignore[assignment]
    print(f"in {moves} moves (the last {len(whole) - moves // 10}), median CPU a call:")
    for kind, spent in sorted(TIMES.items()):
        print(f"  {kind:16} {statistics.median(spent) * 1e6:8.1f} us  ({len(spent)} calls)")
    print(f"  {'a whole move':16} {statistics.median(whole[moves // 10 :]) * 1e6:8.1f} us")


def replay(path: str, repeats: int, work: list[int]) -> None:
    """The last move's UPDATE and commit, again, on the game it saved."""
    sql, stored = LAST_UPDATE[0]
    connection = sqlite3.connect(path)
    _tune_sqlite(connection, None)  # as the app's engine sets up each of its connections
    game_id = stored["game_id"]
    (version,) = connection.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
    connection.commit()
    print(f"the UPDATE of a move ({len(stored['snapshot'])} bytes of snapshot) and its commit, "
          f"replayed {repeats} times, median wall time (one thread):")  # fmt: skip
    print(f"  {'Python between':>22} {'UPDATE':>9} {'commit':>9}")
    for entries in work:
        between = [{f"k{n}": [n, str(n)]} for n in range(entries)]
        updates, commits, gaps = [], [], []
        for _ in range(repeats):
            started = time.perf_counter()
            json.dumps(between)
            worked = time.perf_counter()
            values = {**stored, "expected_version": version, "version": version + 1}
            assert connection.execute(sql, values).rowcount == 1
            updated = time.perf_counter()
            connection.commit()
            committed = time.perf_counter()
            version += 1
            gaps.append(worked - started)
            updates.append(updated - worked)
            commits.append(committed - updated)
        gap, update = statistics.median(gaps) * 1e3, statistics.median(updates) * 1e6
        print(f"  {gap:19.1f} ms {update:7.1f} us {statistics.median(commits) * 1e6:7.1f} us")
    connection.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--replays", type=int, default=1500)
    parser.add_argument("--work", default="0,2000,4000,16000",
                        help="entries of the list encoded between two replayed saves")  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = f"{directory}/statements.sqlite3"
        url = f"sqlite:///{path}"
        migrate_database(url)
        play(url, args.moves)
        replay(path, args.replays, [int(n) for n in args.work.split(",")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
