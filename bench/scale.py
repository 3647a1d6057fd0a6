"""A million games: storage per finished game, and latency as the history grows.

Fills a PostgreSQL database of its own (`basra_scale` at 127.0.0.1:5432, created here and
dropped at the end) with games written as the service writes them: matches of a human seat
playing the greedy bot's cards against the greedy bot, to 101, played by the service's own use
cases in memory (real engine play, real logs), each copy under a new id with its hash chain
computed again for that id (copies share deals and times, never ids). A finished game is
stored as the sweep leaves it once its log is compacted and its stored answers have expired:
its row, its seats and its compacted log (app/persistence/log_compaction.py). The base holds
10,000 active games (their logs in rows), 200 waiting public ones and 5,000 finished ones to read
at N = 0 (more than the audit's checkpoints of every worker hold, so that N = 0 reads cold too).
Everything is written with COPY, by --fill-workers processes.

At each N of --games (finished games, filled up to in turn) a real gunicorn on 127.0.0.1
(RATE_LIMIT=off, bench/api.py's `server`) is measured by 16 client threads, one kind of request
at a time for --seconds each: create, move, view (a random active game), GET
/games?status=waiting, a replay step, /verify and an /events page (of random finished games).
It prints p50/p99 of each, bytes per finished game (tables, TOAST and indexes, over the games
added) and how long the fill took.

Usage: nice -n 10 .venv/bin/python bench/scale.py [--games 0,100000,1000000] [--seconds 5]
       [--clients 16] [--workers 2] [--fill-workers 2] [--keep]
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import multiprocessing
import os
import random
import secrets
import subprocess
import time
from datetime import UTC, datetime, timedelta

import psycopg
from api import BIN, Client, new_game, percentile, psql, run_clients, server  # bench/api.py

from app.engine.bots import choose_card
from app.engine.views import observe
from app.persistence.compacted_logs import compacted
from app.persistence.json_codec import json_text
from app.persistence.memory import MemoryUnitOfWork
from app.persistence.statements import game_row
from app.services.creation import Player
from app.services.games import PlayCard, create_game, play_card
from app.services.log import RawEvent, canonical_json
from app.services.model import GameRecord
from app.services.tokens import hash_token, new_token

NAME = "basra_scale"
URL = f"postgresql://postgres@127.0.0.1:5432/{NAME}"
ACTIVE, WAITING, READ_BASE = 10_000, 200, 5_000
TEMPLATES = 64
CHUNK = 2_000  # games a COPY transaction
JSON_COLUMNS = ("rules", "snapshot", "custom_deck")
_GAME, _PREV = "GAME-ID-HERE", "PREVIOUS-HASH-HERE"  # where the chain's text changes
KINDS = ("create", "move", "view", "list waiting", "replay step", "verify", "events page")


# ---------------------------------------------------------------- games, as the service plays them
def played(target: int, moves: int | None, rng: random.Random) -> tuple[GameRecord, list]:
    """A human seat (playing the greedy bot's card) against the greedy bot, played by the use
    cases on the in-memory store: to its end, or ``moves`` moves in."""
    uow = MemoryUnitOfWork()
    created = create_game(
        uow, [Player(name="Amira"), Player(bot="greedy")], {"target_score": target}
    )
    token = created.seats[0]["token"]
    for _ in range(moves if moves is not None else 10_000):
        game = uow.store.games[created.game_id]
        if game.status != "active":
            break
        card = choose_card("greedy", observe(game.state, 0), rng)
        play_card(uow, PlayCard(created.game_id, token, str(card)))
    return copy.deepcopy(uow.store.games[created.game_id]), list(uow.store.logs[created.game_id])


def waiting_game() -> tuple[GameRecord, list]:
    uow = MemoryUnitOfWork()
    created = create_game(uow, [Player(name="Amira"), Player(open=True)], public=True)
    return copy.deepcopy(uow.store.games[created.game_id]), list(uow.store.logs[created.game_id])


class Template:
    """One played game, ready to be written again under any id: its row, its seats, and each
    log entry's canonical text around the two values that change (the id, the previous hash)."""

    def __init__(self, game: GameRecord, log: list) -> None:
        self.row = game_row(game)
        for name in JSON_COLUMNS:
            self.row[name] = json_text(self.row[name])
        self.seats = [(s.seat, s.name, s.bot, s.seed) for s in game.seats]
        self.entries = [(e.seq, e.type, json_text(e.data), e.at) for e in log]
        self.pieces = []
        for e in log:
            body = canonical_json({"game": _GAME, "seq": e.seq, "type": e.type, "data": e.data,
                                   "at": e.at, "prev": _PREV})  # fmt: skip
            head, rest = body.split(_GAME.encode())
            middle, tail = rest.split(_PREV.encode())
            self.pieces.append((head, middle, tail))
        # The chain computed again under the game's own id is the one the service wrote.
        assert [r.hash for r in self.chain(game.id)] == [e.hash for e in log]

    def chain(self, game_id: str) -> list[RawEvent]:
        """The log's rows under ``game_id``, each hash computed again for it."""
        previous, rows, gid = "0" * 64, [], game_id.encode()
        for (seq, kind, data, at), (head, middle, tail) in zip(
            self.entries, self.pieces, strict=True
        ):
            previous = hashlib.sha256(head + gid + middle + previous.encode() + tail).hexdigest()
            rows.append(RawEvent(seq, kind, data, at, previous))
        return rows


def templates(seed: int) -> dict[str, list[Template]]:
    rng = random.Random(seed)
    over = [Template(*played(101, None, rng)) for _ in range(TEMPLATES)]
    active = [Template(*played(101, rng.randrange(0, 60), rng)) for _ in range(TEMPLATES)]
    return {"finished": over, "active": active, "waiting": [Template(*waiting_game())]}


# ---------------------------------------------------------------- the fill
_TEMPLATES: dict[str, list[Template]] = {}


def fill_chunk(task: tuple[str, int, int]) -> tuple[int, list[str]]:
    """Write ``count`` games of ``kind`` in one COPY transaction; (count, their ids)."""
    kind, count, seed = task
    rng = random.Random(seed)
    now = datetime.now(UTC)
    games, seats, logs, rows = [], [], [], []
    ids = []
    for _ in range(count):
        template = rng.choice(_TEMPLATES[kind])
        game_id = secrets.token_hex(8)
        ids.append(game_id)
        chain = template.chain(game_id)
        row = dict(template.row, id=game_id, last_hash=chain[-1].hash, log_swept=kind == "finished")
        row["created_at"] = now - timedelta(seconds=rng.uniform(3_600, 90 * 86_400))
        row["updated_at"] = row["created_at"] + timedelta(minutes=20)
        row["deadline"] = None if kind == "finished" else now + timedelta(days=2)
        games.append(row)
        for seat, name, bot, seed_ in template.seats:
            token = None if bot or name is None else hash_token(new_token())
            seats.append((game_id, seat, name, bot, seed_, token))
        if kind == "finished":
            logs.append((game_id, compacted(chain)))
        else:
            rows += [(game_id, r.seq, r.type, r.data, r.at, r.hash) for r in chain]
    columns = list(games[0])
    with psycopg.connect(URL) as connection, connection.cursor() as cursor:
        copy_rows(cursor, "games", columns, [[g[c] for c in columns] for g in games])
        copy_rows(cursor, "seats", ["game_id", "seat", "name", "bot", "seed", "token_hash"], seats)
        copy_rows(cursor, "compacted_logs", ["game_id", "log"], logs)
        copy_rows(cursor, "events", ["game_id", "seq", "type", "data", "at", "hash"], rows)
    return count, ids


def copy_rows(cursor: psycopg.Cursor, table: str, columns: list[str], rows: list) -> None:
    if not rows:
        return
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy_:
        for row in rows:
            copy_.write_row(row)


def fill(kind: str, count: int, workers: int, seed: int) -> tuple[float, list[str]]:
    """Add ``count`` games of ``kind``; the seconds it took (with VACUUM ANALYZE) and their ids."""
    started = time.monotonic()
    tasks = [(kind, min(CHUNK, count - at), seed + at) for at in range(0, count, CHUNK)]
    sample: list[str] = []
    done = 0
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for written, ids in pool.imap_unordered(fill_chunk, tasks):
            done += written
            sample += ids
            if done % 50_000 < CHUNK:
                rate = done / (time.monotonic() - started)
                print(f"  {kind}: {done:,} of {count:,} ({rate:,.0f} games/s)", flush=True)
    with psycopg.connect(URL, autocommit=True) as connection:
        connection.execute("VACUUM ANALYZE")
        connection.execute("CHECKPOINT")  # the fill's writes on disk, not in the measurements
    return time.monotonic() - started, sample


def stored_bytes() -> int:
    with psycopg.connect(URL) as connection:
        query = (
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n"
            " ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'"
        )
        return int(connection.execute(query).fetchone()[0])


# ---------------------------------------------------------------- the measurements
def measure(port: int, clients: int, seconds: float, active: list[str], over: list[str]) -> dict:
    rng = random.Random(7)
    results = {}

    def load(kind: str):
        def work(deadline: float) -> list[float]:
            client, times = Client(port), []
            game = None
            while time.perf_counter() < deadline:
                if kind == "move":
                    if game is None or game[2]["status"] != "active":
                        game = new_game(client, 101)
                    status, body = client.call("POST", f"/games/{game[0]}/moves",
                                               {"card": game[2]["hand"][0]}, game[1])  # fmt: skip
                    game = (game[0], game[1], body["state"])
                else:
                    status, _ = client.call("GET" if kind != "create" else "POST", *request(kind))
                assert status in (200, 201), (kind, status)
                times.append(client.last_seconds)
            return times

        return work

    def request(kind: str) -> tuple:
        if kind == "create":
            return "/games", {"players": [{"name": "bench"}, {"bot": "greedy"}]}
        if kind == "view":
            return (f"/games/{rng.choice(active)}",)
        if kind == "list waiting":
            return ("/games?status=waiting",)
        game_id = rng.choice(over)
        if kind == "replay step":
            return (f"/games/{game_id}/replay?step={rng.randrange(0, 48)}",)
        if kind == "verify":
            return (f"/games/{game_id}/verify",)
        return (f"/games/{game_id}/events?after={rng.randrange(0, 150)}",)

    for kind in KINDS:
        times = run_clients(clients, seconds, load(kind))
        results[kind] = (1000 * percentile(times, 0.5), 1000 * percentile(times, 0.99), len(times))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", default="0,100000", help="finished games, filled up to in turn")
    parser.add_argument("--seconds", type=float, default=5, help="length of each measured phase")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn's workers")
    parser.add_argument("--fill-workers", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="leave basra_scale for inspection")
    args = parser.parse_args()
    targets = sorted(int(n) for n in args.games.split(","))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    psql(f'DROP DATABASE IF EXISTS "{NAME}" WITH (FORCE)')
    psql(f'CREATE DATABASE "{NAME}"')
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{NAME}"
    try:
        return run(args, targets, url)
    finally:
        if not args.keep:
            psql(f'DROP DATABASE IF EXISTS "{NAME}" WITH (FORCE)')


def run(args: argparse.Namespace, targets: list[int], url: str) -> int:
    started = time.monotonic()
    _TEMPLATES.update(templates(seed=1))
    print(f"templates played in {time.monotonic() - started:.1f} s", flush=True)
    env = {**os.environ, "DATABASE_URL": url}
    subprocess.run([BIN / "basra", "migrate"], env=env, check=True, capture_output=True)
    _, active = fill("active", ACTIVE, args.fill_workers, seed=10**9)
    fill("waiting", WAITING, args.fill_workers, seed=2 * 10**9)
    _, over = fill("finished", READ_BASE, args.fill_workers, seed=3 * 10**9)
    base, filled, rows = stored_bytes(), 0, []
    for target in targets:
        seconds, sample = (
            fill("finished", target - filled, args.fill_workers, seed=filled)
            if target > filled
            else (0.0, [])
        )
        over += sample
        per_game = (stored_bytes() - base) / target if target else 0
        print(
            f"N={target:,}: filled in {seconds:.0f} s, {per_game:,.0f} bytes a finished game",
            flush=True,
        )
        filled = target
        with server(url, args.workers) as port:
            results = measure(port, args.clients, args.seconds, active, over)
        rows.append((target, seconds, per_game, results))
        for kind, (p50, p99, count) in results.items():
            print(
                f"  {kind:14} p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  ({count} requests)", flush=True
            )
    report(rows)
    return 0


def report(rows: list) -> None:
    print(
        "\n| N finished | fill s | bytes/game | "
        + " | ".join(f"{k} p50/p99 ms" for k in KINDS)
        + " |"
    )
    print("| ---: | ---: | ---: | " + " | ".join("---:" for _ in KINDS) + " |")
    for target, seconds, per_game, results in rows:
        cells = " | ".join(f"{results[k][0]:.1f} / {results[k][1]:.1f}" for k in KINDS)
        print(f"| {target:,} | {seconds:.0f} | {per_game:,.0f} | {cells} |")
    if len(rows) > 1:
        first, last = rows[0][3], rows[-1][3]
        ratios = ", ".join(f"{k} {last[k][1] / first[k][1]:.2f}" for k in KINDS)
        print(f"p99 at N={rows[-1][0]:,} / at N={rows[0][0]:,}: {ratios} (goal <= 1.25)")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    raise SystemExit(main())
