"""psycopg's pipeline mode against plain statements: CPU per transaction, client and server.

    .venv/bin/python bench/psycopg_modes.py            # --transactions 3000 --rounds 2

Why it exists: pipeline mode sends a transaction's statements together and waits for the
server once, which saves waiting; but on this 2-core machine a move server is bound by CPU,
not by waiting, so what counts is the CPU a transaction costs the client (this process) and
the server (its backend, read from /proc). Two shapes of a move's transaction, each run
plainly (one wait a statement) and pipelined, alternately, ``--rounds`` times:

- load: BEGIN, a locked ``SELECT`` of one row with a JSON column, ROLLBACK;
- write: BEGIN, a locked ``SELECT``, an UPDATE, a ``pg_notify``, COMMIT.

Prints microseconds of CPU per transaction (medians over the rounds) and wall time.
Needs PostgreSQL on 127.0.0.1:5432 (a temporary table only); talks only to 127.0.0.1.
Not part of ``make bench``: it decided a design (docs/performance.md), it is not a figure.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import psycopg

URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
LOAD = "SELECT id, version, data FROM bench_rows WHERE id = %(id)s FOR UPDATE"
HZ = os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transactions", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with psycopg.connect(URL) as connection:
        connection.execute(
            "CREATE TEMP TABLE bench_rows (id text PRIMARY KEY, version int, data json)"
        )
        connection.execute("INSERT INTO bench_rows VALUES ('a', 1, '{\"cards\": [1, 2, 3]}')")
        connection.commit()
        shapes = _shapes(connection)
        figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in shapes}
        for _ in range(args.rounds):
            for name, transaction in shapes.items():
                figures[name].append(_measure(connection, transaction, args.transactions))
    print(f"{'transaction':<18}{'client CPU µs':>15}{'server CPU µs':>15}{'wall µs':>10}")
    for name, runs in figures.items():
        client, server, wall = (statistics.median(run[i] for run in runs) for i in range(3))
        print(f"{name:<18}{client:>15.0f}{server:>15.0f}{wall:>10.0f}")
    return 0


def _shapes(connection: psycopg.Connection) -> dict[str, Callable[[], None]]:
    def load_plain() -> None:
        connection.execute(LOAD, {"id": "a"}).fetchone()
        connection.rollback()

    def load_pipelined() -> None:
        with connection.pipeline():
            rows = connection.execute(LOAD, {"id": "a"})
        rows.fetchone()
        connection.rollback()

    def write_plain() -> None:
        connection.execute(LOAD, {"id": "a"}).fetchone()
        connection.execute("UPDATE bench_rows SET version = version + 1 WHERE id = %(id)s",
                           {"id": "a"})  # fmt: skip
        connection.execute("SELECT pg_notify('bench', 'a')")
        connection.commit()

    def write_pipelined() -> None:
        with connection.pipeline():
            connection.execute(LOAD, {"id": "a"})
            cursor = connection.cursor()
            cursor.execute("UPDATE bench_rows SET version = version + 1 WHERE id = %(id)s",
                           {"id": "a"})  # fmt: skip
            cursor.execute("SELECT pg_notify('bench', 'a')")
            cursor.execute("COMMIT")

    return {"load, plain": load_plain, "load, pipelined": load_pipelined,
            "write, plain": write_plain, "write, pipelined": write_pipelined}  # fmt: skip


def _measure(
    connection: psycopg.Connection, transaction: Callable[[], None], count: int
) -> tuple[float, float, float]:
    """Client CPU, server CPU and wall time per transaction, in microseconds."""
    backend = connection.info.backend_pid
    server0, client0, wall0 = _cpu_of(backend), time.process_time(), time.perf_counter()
    for _ in range(count):
        transaction()
    server = _cpu_of(backend) - server0
    client, wall = time.process_time() - client0, time.perf_counter() - wall0
    return client / count * 1e6, server / count * 1e6, wall / count * 1e6


def _cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


if __name__ == "__main__":
    raise SystemExit(main())
