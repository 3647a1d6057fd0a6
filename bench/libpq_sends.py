"""A move's two statements sent by a psycopg cursor against sent through libpq (libpq.py).

    .venv/bin/python bench/libpq_sends.py            # --statements 2000 --rounds 4

Plays a few moves of a real game through the app (PostgreSQL), keeps the last save the
repository sent, then sends the game's load and that save over and over, each way in turn:

- cursor: ``connection.execute`` in autocommit, as postgres.py did before the twelfth session;
- libpq: ``OnConnection.execute`` (prepared once, values as text, rows read in binary).

Each save is given the next version and log steps, so every one is a real write. Prints this
process's CPU per statement (user and system, round trip included) in microseconds: the
smallest and the median of ``--rounds`` rounds. Needs PostgreSQL on 127.0.0.1:5432 (a
database is created and dropped); talks only to 127.0.0.1. Not part of ``make bench``: it
decided a design (docs/performance.md, "Twelfth session").
"""

from __future__ import annotations

import argparse
import copy
import logging
import secrets
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from profile_move import ADMIN_URL, Match, admin

import app.persistence.postgres as postgres
from app import create_app
from app.cli import migrate_database
from app.persistence.libpq import OnConnection, Prepared


def captured_saves() -> list[tuple[str, dict[str, Any]]]:
    """The lone statements the repository commits from now on (a move's save), kept."""
    saves: list[tuple[str, dict[str, Any]]] = []
    commit = postgres.PostgresGameRepository.commit

    def keeping(self: postgres.PostgresGameRepository) -> None:
        if len(self.held) == 1:
            statement, parameters = self.held[0]
            saves.append((statement, copy.copy(dict(parameters))))  # type: ignore[arg-type]
        commit(self)

    postgres.PostgresGameRepository.commit = keeping  # type: ignore[method-assign]
    return saves


def next_saves(parameters: dict[str, Any], version: int) -> Iterator[dict[str, Any]]:
    """The save again and again, each one version and as many log steps further."""
    entries = orjson.loads(parameters["entries"])
    while True:
        steps = [dict(entry, seq=version + 1 + n) for n, entry in enumerate(entries)]
        yield parameters | {"expected_version": version, "version": version + len(entries),
                            "entries": orjson.dumps(steps).decode()}  # fmt: skip
        version += len(entries)


def cpu_per_call(call: Callable[[], object], count: int, rounds: int) -> tuple[float, float]:
    for _ in range(100):
        call()
    spent = []
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(count):
            call()
        spent.append((time.process_time() - started) / count * 1e6)
    return min(spent), statistics.median(spent)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--statements", type=int, default=2000, help="per round and way")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    name = f"basra_libpq_{secrets.token_hex(4)}"
    admin(f'CREATE DATABASE "{name}"')
    url = ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    app = None
    try:
        migrate_database(url)
        saves = captured_saves()
        app = create_app({"DATABASE_URL": url, "RATE_LIMIT": "off", "TESTING": True})
        match = Match(app.test_client())
        for _ in range(30):  # mid-round: a snapshot of the usual size
            match.move()
        save, values = saves[-1]
        load, loaded = postgres._LOAD, {"game_id": match.id}
        engine = app.extensions["basra_db"].engine
        with engine.connect() as pooled:
            driver: Any = pooled.connection.driver_connection
            driver.commit()
            version = driver.execute("SELECT version FROM games WHERE id = %s", (match.id,))
            saved = next_saves(values, version.fetchone()[0])
            driver.commit()
            on_connection = OnConnection.of(pooled.info, driver)

            def cursor(statement: str, parameters: Any) -> Callable[[], object]:
                def send() -> object:
                    driver.autocommit = True
                    try:
                        return driver.execute(statement, parameters() if callable(parameters)
                                              else parameters).fetchall()  # fmt: skip
                    finally:
                        driver.autocommit = False

                return send

            def through_libpq(statement: str, parameters: Any) -> Callable[[], object]:
                prepared = Prepared.of(statement)

                def send() -> object:
                    sent = parameters() if callable(parameters) else parameters
                    return on_connection.first_row(on_connection.execute(prepared, sent))

                return send

            ways = {
                "load, cursor": cursor(load, loaded),
                "load, libpq": through_libpq(load, loaded),
                "save, cursor": cursor(save, lambda: next(saved)),
                "save, libpq": through_libpq(save, lambda: next(saved)),
            }
            print(f"us of this process's CPU a statement ({args.rounds} rounds of "
                  f"{args.statements}): smallest, median")  # fmt: skip
            for label, send in ways.items():
                smallest, median = cpu_per_call(send, args.statements, args.rounds)
                print(f"  {label:14s} {smallest:7.1f} {median:7.1f}")
    finally:
        if app is not None:
            app.extensions["basra_db"].dispose()
        admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
