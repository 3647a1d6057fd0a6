"""Where a move deep in a long match costs more than an early one: a diagnosis, not a figure
of `make bench` (bench/api.py's "late / early" is the figure).

gunicorn as `make run` starts it; one client plays a match to 10,000 points up to round
``--late-round``, then moves of a fresh match and of the deep one in alternating blocks of
``--block`` moves, ``--blocks`` of each. For each kind it prints the median over the blocks of
the wall time a move took (until its answer was read) and the CPU a move cost this client,
gunicorn's workers and PostgreSQL's processes, read from /proc/<pid>/task/*/schedstat
(nanoseconds, where /proc/<pid>/stat counts 10 ms ticks). It does so on a fresh database, then
after ``--load`` seconds of 16 clients playing (bench/api.py's move phase), so that what a
loaded database adds shows too.

Usage: .venv/bin/python bench/deep_moves.py [--database postgresql|sqlite] [--load 20]
Only ever talks to 127.0.0.1; the PostgreSQL database is created and dropped.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys
from contextlib import suppress
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api import Client, database, new_game, play_load, run_clients, server, timed_move
from stream import postgres_pids, workers_of

KINDS = ("early", "late")
PARTIES = ("client", "workers", "postgresql")


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
            with suppress(OSError, ValueError, IndexError):  # a thread that just ended
                total += int(Path(path).read_text().split()[0])
    return total / 1e9


def cpu_now(master: int) -> tuple[float, float, float]:
    return cpu_seconds([os.getpid()]), cpu_seconds(workers_of(master)), cpu_seconds(postgres_pids())


def blocks(port: int, master: int, args: argparse.Namespace) -> dict[str, list[float]]:
    """The medians over the blocks, per kind: wall ms, then CPU ms of each party a move."""
    client = Client(port)
    deep_id, deep_token, deep = new_game(client, 10000)
    while deep["round"] < args.late_round and deep["status"] == "active":
        _, deep = timed_move(client, deep_id, deep_token, deep)
    fresh_id, fresh_token, fresh = new_game(client, 10000)
    measured: dict[str, list[list[float]]] = {kind: [] for kind in KINDS}
    for _ in range(args.blocks):
        for kind in KINDS:
            before, walls = cpu_now(master), []
            for _ in range(args.block):
                if kind == "early":
                    wall, fresh = timed_move(client, fresh_id, fresh_token, fresh)
                    if fresh["version"] > 400:  # keep the early game early
                        fresh_id, fresh_token, fresh = new_game(client, 10000)
                else:
                    assert deep["status"] == "active", "the deep match ended: lower --late-round"
                    wall, deep = timed_move(client, deep_id, deep_token, deep)
                walls.append(wall)
            after = cpu_now(master)
            cpu = [1000 * (b - a) / args.block for a, b in zip(before, after, strict=True)]
            measured[kind].append([1000 * statistics.median(walls), *cpu])
    return {kind: [statistics.median(column) for column in zip(*rows, strict=True)]
            for kind, rows in measured.items()}  # fmt: skip


def report(title: str, medians: dict[str, list[float]]) -> None:
    print(title)
    for kind in KINDS:
        wall, *cpu = medians[kind]
        parts = ", ".join(f"{party} {ms:.2f}" for party, ms in zip(PARTIES, cpu, strict=True))
        print(f"  {kind:5}: wall {wall:.2f} ms; CPU ms a move: {parts}")
    early, late = medians["early"], medians["late"]
    ratios = [f"{name} {b / a:.2f}" for name, a, b in zip(("wall", *PARTIES), early, late,
              strict=True) if a > 0]  # fmt: skip
    print(f"  late / early: {', '.join(ratios)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default="postgresql", choices=("postgresql", "sqlite"))
    parser.add_argument("--late-round", type=int, default=90)
    parser.add_argument("--block", type=int, default=40)
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--load", type=float, default=20, help="seconds of 16 clients playing")
    args = parser.parse_args()
    with database(args.database) as url:
        pids: list[int] = []
        with server(url, 4, pids) as port:
            report("fresh database:", blocks(port, pids[0], args))
            run_clients(16, args.load, play_load(port))
            report(f"after {args.load:.0f} s of 16 clients playing:", blocks(port, pids[0], args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
