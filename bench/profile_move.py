"""Profile one move in process: ``POST /games/{id}/moves`` through Flask's test client.

    .venv/bin/python bench/profile_move.py                 # PostgreSQL, a fresh match
    .venv/bin/python bench/profile_move.py --deep 2160 --moves 200   # rounds 90-98 of a match
    .venv/bin/python bench/profile_move.py --sqlite        # the embedded default
    .venv/bin/python bench/profile_move.py --no-profile    # timings only
    .venv/bin/python bench/profile_move.py --instructions /tmp/before .   # callgrind, two trees

Prints the CPU and wall time of a move (median over ``--moves``), the database statements a
move sends, how often psycopg waited for the server (one round trip each), and the
cProfile table (``--top`` lines, by own time). A move is the client's card
and the greedy bot's reply, as in bench/api.py. No HTTP server and no client threads: this is
the cost of the request inside one worker, which is what the move path can change.

``--instructions TREE...`` counts instead, with callgrind (Debian's valgrind), the instructions
this process executes for a move and for a health check of each tree (a checkout:
``git worktree add /tmp/before <commit>``), alternated ``--repeat`` times. A shared machine's
speed swings by a fifth within a minute; the instructions code executes do not depend on the
neighbours. Only this process's user space is counted: not the kernel, not PostgreSQL's
backend (bench/api.py reports those as CPU time). Not part of ``make bench`` (a diagnosis tool).
"""

from __future__ import annotations

import argparse
import cProfile
import logging
import os
import pstats
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# A tree to count (--count-inside) puts itself first; otherwise this checkout's app.
sys.path.insert(0, sys.argv[sys.argv.index("--count-inside") + 1] if "--count-inside" in sys.argv
                else str(ROOT))  # fmt: skip

from sqlalchemy import create_engine, event, text  # noqa: E402

from app import create_app  # noqa: E402
from app.persistence.schema import migrate_database  # noqa: E402
from app.server.gc_tuning import tune_for_requests  # noqa: E402

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


def count_psycopg_waits(counter: Counter[str]) -> bool:
    """Count the round trips to the server as "waits": psycopg's waits."""
    try:
        import psycopg
    except ImportError:
        return False
    psycopg.Connection.wait = counting_waits(psycopg.Connection.wait, counter)  # type: ignore[method-assign]
    return True


def counting_waits(wait: Callable[..., Any], counter: Counter[str]) -> Callable[..., Any]:
    """psycopg's ``Connection.wait``, counting as "waits" the calls whose work goes to the
    socket. Some go nowhere (setting ``autocommit`` outside a transaction, a COMMIT with
    none open: psycopg sends nothing) and are not counted. tests/persistence uses it too."""

    def counted_wait(self: Any, gen: Any, *args: Any, **kwargs: Any) -> Any:
        return wait(self, _counted(gen, counter), *args, **kwargs)

    return counted_wait


def _counted(gen: Any, counter: Counter[str]) -> Any:
    """``gen``, counted as a wait once it first asks to wait for the socket."""
    try:
        asked = next(gen)
    except StopIteration as done:
        return done.value
    counter.update(["waits"])
    while True:
        ready = yield asked
        try:
            asked = gen.send(ready)
        except StopIteration as done:
            return done.value


class BackendCpu:
    """The CPU time of the PostgreSQL server processes of one database, from /proc (the
    server runs on this machine): what a move costs the database, beside what it costs us."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.ticks = os.sysconf("SC_CLK_TCK")

    def seconds(self) -> float:
        engine = create_engine(ADMIN_URL)
        with engine.connect() as connection:
            pids = (
                connection.execute(
                    text("SELECT pid FROM pg_stat_activity WHERE datname = :name"),
                    {"name": self.database},
                )
                .scalars()
                .all()
            )
        engine.dispose()
        total = 0
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # not on this machine, or gone
                continue
            total += int(fields[11]) + int(fields[12])
        return total / self.ticks


AREAS = (  # (area, a fragment of the file path), first match wins
    ("engine", "/app/engine/"),
    ("services", "/app/services/"),
    ("persistence", "/app/persistence/"),
    ("api", "/app/api/"),
    ("psycopg", "/psycopg"),
    ("sqlalchemy", "/sqlalchemy/"),
    ("json (stdlib)", "/json/"),
    ("orjson", "orjson"),
    ("flask, werkzeug", "/flask"),
    ("flask, werkzeug", "/werkzeug/"),
    ("marshmallow, smorest", "/marshmallow/"),
    ("marshmallow, smorest", "/flask_smorest/"),
)


def print_shares(stats: pstats.Stats) -> None:
    """Own time summed by area (the engine, the database driver, JSON, ...)."""
    totals: Counter[str] = Counter()
    for (path, _line, name), row in stats.stats.items():  # type: ignore[attr-defined]
        area = next((a for a, fragment in AREAS if fragment in path), None)
        if area is None:
            area = "json (stdlib)" if "json" in name else "other"
        totals[area] += row[2]
    whole = sum(totals.values()) or 1
    print("own time by area: " + ", ".join(
        f"{area} {100 * t / whole:.0f}%" for area, t in totals.most_common()))  # fmt: skip


def count_inside(moves: int, sqlite: bool) -> None:
    """Run under callgrind: play, counting the moves, then the health checks."""

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
        admin(f'CREATE DATABASE "{name}"')
        url = ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    app = None
    try:
        migrate_database(url)
        app = create_app({"DATABASE_URL": url, "RATE_LIMIT": "off", "TESTING": True})
        client = app.test_client()
        tune_for_requests()  # as every served worker does
        logging.disable(logging.CRITICAL)  # the request log's lines: the same on both sides
        match = Match(client)
        for _ in range(60):
            match.move()
        start()
        for _ in range(moves):
            if match.view["status"] != "active":
                match = Match(client)
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
            admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        directory.cleanup()


def counted(tree: str, moves: int, sqlite: bool) -> tuple[float, float]:
    """Millions of instructions a move and a health check, in a callgrind run of ``tree``."""
    with tempfile.TemporaryDirectory() as directory:
        out = f"{directory}/callgrind.out"
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                   f"--callgrind-out-file={out}", sys.executable, __file__, "--count-inside", tree,
                   "--moves", str(moves), *(["--sqlite"] if sqlite else [])]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True, cwd=tree)
        totals = {}
        for dumped in Path(directory).glob("callgrind.out.*"):
            text_ = dumped.read_text(errors="replace")
            label = re.search(r"^desc: Trigger: dump (\w+)", text_, re.MULTILINE)
            total = re.search(r"^totals: (\d+)", text_, re.MULTILINE)
            if label and total:
                totals[label.group(1)] = int(total.group(1)) / moves / 1e6
    return totals["moves"], totals["healthz"]


def instructions(trees: list[str], moves: int, sqlite: bool, repeat: int) -> None:
    trees = [str(Path(tree).resolve()) for tree in trees or [str(ROOT)]]
    runs: dict[str, list[tuple[float, float]]] = {tree: [] for tree in trees}
    for _ in range(repeat):
        for tree in trees:
            runs[tree].append(counted(tree, moves, sqlite))
    database = "SQLite" if sqlite else "PostgreSQL"
    print(f"{database}, {moves} moves and health checks a run, medians of {repeat}")
    print(f"{'tree':40} {'a move (M)':>11} {'a healthz (M)':>14} {'healthz / move':>15}")
    for tree, counts in runs.items():
        move = statistics.median(m for m, _ in counts)
        health = statistics.median(h for _, h in counts)
        print(f"{tree:40} {move:11.3f} {health:14.3f} {health / move:15.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sqlite", action="store_true")
    parser.add_argument("--deep", type=int, default=0, help="moves played before timing")
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--sort", default="tottime")
    parser.add_argument(
        "--wall",
        action="store_true",
        help="profile wall-clock time (default: this process's CPU time)",
    )
    parser.add_argument(
        "--default-gc",
        action="store_true",
        help="keep Python's garbage collector settings (served workers tune them)",
    )
    parser.add_argument("--dump", help="also write the profile here (pstats format)")
    parser.add_argument(
        "--instructions",
        nargs="*",
        metavar="TREE",
        help="count instructions with callgrind in these trees (default: this one)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="alternations of the trees")
    parser.add_argument("--count-inside", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count_inside:
        count_inside(args.moves, args.sqlite)
        return 0
    if args.instructions is not None:
        instructions(args.instructions, 200 if args.moves == 400 else args.moves, args.sqlite,
                     args.repeat)  # fmt: skip
        return 0

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
        if not args.default_gc:
            tune_for_requests()  # as app/wsgi.py does in every served worker
        statements: Counter[str] = Counter()
        engine = app.extensions["basra_db"].engine
        event.listen(engine, "before_cursor_execute",
                     lambda *a: statements.update([a[2].split()[0].upper()]))  # fmt: skip
        event.listen(engine, "commit", lambda *a: statements.update(["COMMIT"]))
        count_psycopg_waits(statements)
        match = Match(client)
        backends = BackendCpu(name) if not args.sqlite else None
        for _ in range(args.deep):
            match.move()
        if args.deep:
            print(f"deep match at version {match.view['version']}, round {match.view['round']}")
        for _ in range(50):  # warm up
            match.move()
        statements.clear()
        # CPU time by default: waiting for the database is not work this process does,
        # and under load it is the CPU a move costs that bounds the moves per second.
        profiler = cProfile.Profile() if args.wall else cProfile.Profile(time.process_time)
        cpu, wall = [], []
        server_cpu = backends.seconds() if backends is not None else 0.0
        timed_moves = 0
        for _ in range(args.moves):
            if match.view["status"] != "active":
                if args.deep:  # a fresh match would not be deep: stop timing here
                    print(f"the deep match ended after {timed_moves} timed moves")
                    break
                match = Match(client)
            timed_moves += 1
            c0, w0 = time.process_time(), time.perf_counter()
            if not args.no_profile:
                profiler.enable()
            match.move()
            if not args.no_profile:
                profiler.disable()
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
        if backends is not None:
            server_cpu = backends.seconds() - server_cpu
            print(f"PostgreSQL backends' CPU a move: {server_cpu / timed_moves * 1000:.2f} ms"
                  f"{' (profiled)' if not args.no_profile else ''}")  # fmt: skip
        per_move = {k: round(v / timed_moves, 2) for k, v in sorted(statements.items())}
        print(f"{'sqlite' if args.sqlite else 'postgresql'}: {timed_moves} moves, "
              f"median CPU {statistics.median(cpu) * 1000:.2f} ms, "
              f"median wall {statistics.median(wall) * 1000:.2f} ms"
              f"{' (profiled)' if not args.no_profile else ''}")  # fmt: skip
        print(f"statements a move: {per_move}")
        if not args.no_profile:
            stats = pstats.Stats(profiler)
            if args.dump:
                stats.dump_stats(args.dump)
            print_shares(stats)
            stats.sort_stats(args.sort).print_stats(args.top)
    finally:
        if not args.sqlite:
            app.extensions["basra_db"].dispose()
            admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
