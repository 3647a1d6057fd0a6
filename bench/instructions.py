"""Instructions a move and a health check cost in process, counted by callgrind.

    .venv/bin/python bench/instructions.py                       # this checkout, PostgreSQL
    .venv/bin/python bench/instructions.py --sqlite
    .venv/bin/python bench/instructions.py /tmp/before .         # trees side by side, alternated

A shared machine's speed swings by a fifth within a minute, and a CPU-time A/B of a 5% change
then needs dozens of runs. The instructions a piece of code executes do not depend on the
neighbours: callgrind (Debian's valgrind) counts them exactly, about 50 times slower. Each tree
runs in a process of its own under ``valgrind --tool=callgrind --instr-atstart=no``, through
Flask's test client as bench/profile_move.py does: a warm-up, then ``--moves`` moves (the
client's card and the greedy bot's reply) counted, then as many ``GET /healthz`` counted. Only
this process's user space is counted: not the kernel, not PostgreSQL's backend (bench/api.py
reports those as CPU time). The ratio is healthz ÷ move, bench/api.py's ratio for the worker's
own part of the work.
A tree is a checkout of this repository (``git worktree add /tmp/before <commit>``, with
``.venv`` linked); it is imported from there. Not part of ``make bench`` (a diagnosis tool).
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def count_inside(tree: str, moves: int, sqlite: bool) -> None:
    """Run under callgrind: play, counting the moves, then the health checks."""
    sys.path[:0] = [tree, f"{tree}/bench"]
    import profile_move  # the tree's own, and its app

    from app import create_app
    from app.persistence.schema import migrate_database
    from app.server.gc_tuning import tune_for_requests

    def dump(label: str) -> None:
        pid = str(os.getpid())
        subprocess.run(["callgrind_control", "-i", "off", pid], check=True, capture_output=True)
        subprocess.run(["callgrind_control", "-d", label, pid], check=True, capture_output=True)

    def start() -> None:
        subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=True,
                       capture_output=True)  # fmt: skip

    name = f"basra_instructions_{secrets.token_hex(4)}"
    directory = tempfile.TemporaryDirectory()
    if sqlite:
        url = f"sqlite:///{directory.name}/instructions.sqlite3"
    else:
        profile_move.admin(f'CREATE DATABASE "{name}"')
        url = profile_move.ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    app = None
    try:
        migrate_database(url)
        app = create_app({"DATABASE_URL": url, "RATE_LIMIT": "off", "TESTING": True})
        client = app.test_client()
        tune_for_requests()  # as every served worker does
        logging.disable(logging.CRITICAL)  # the request log's lines: the same on both sides
        match = profile_move.Match(client)
        for _ in range(60):
            match.move()
        start()
        for _ in range(moves):
            if match.view["status"] != "active":
                match = profile_move.Match(client)
            match.move()
        dump("moves")
        for _ in range(moves):  # warm, uncounted
            client.get("/healthz")
        start()
        for _ in range(moves):
            client.get("/healthz")
        dump("healthz")
    finally:
        if app is not None:
            app.extensions["basra_db"].dispose()
        if not sqlite:
            profile_move.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        directory.cleanup()


def counted(tree: str, moves: int, sqlite: bool) -> tuple[float, float]:
    """Millions of instructions a move and a health check, in a callgrind run of ``tree``."""
    with tempfile.TemporaryDirectory() as directory:
        out = f"{directory}/callgrind.out"
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                   f"--callgrind-out-file={out}", sys.executable, __file__, "--inside", tree,
                   "--moves", str(moves), *(["--sqlite"] if sqlite else [])]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        totals = {}
        for dumped in Path(directory).glob("callgrind.out.*"):
            text = dumped.read_text(errors="replace")
            label = re.search(r"^desc: Trigger: dump (\w+)", text, re.MULTILINE)
            total = re.search(r"^totals: (\d+)", text, re.MULTILINE)
            if label and total:
                totals[label.group(1)] = int(total.group(1)) / moves / 1e6
    return totals["moves"], totals["healthz"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", default=[str(ROOT)])
    parser.add_argument("--sqlite", action="store_true")
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=1, help="alternations of the trees")
    parser.add_argument("--inside", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        count_inside(args.inside, args.moves, args.sqlite)
        return 0
    trees = [str(Path(tree).resolve()) for tree in args.trees]
    runs: dict[str, list[tuple[float, float]]] = {tree: [] for tree in trees}
    for _ in range(args.repeat):
        for tree in trees:
            runs[tree].append(counted(tree, args.moves, args.sqlite))
    database = "SQLite" if args.sqlite else "PostgreSQL"
    print(f"{database}, {args.moves} moves and health checks a run, medians of {args.repeat}")
    print(f"{'tree':40} {'a move (M)':>11} {'a healthz (M)':>14} {'healthz / move':>15}")
    for tree, counts in runs.items():
        move = statistics.median(m for m, _ in counts)
        health = statistics.median(h for _, h in counts)
        print(f"{tree:40} {move:11.3f} {health:14.3f} {health / move:15.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
