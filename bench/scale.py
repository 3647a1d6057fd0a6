"""A million games: storage per finished game, and latency as the history grows.

Fills a PostgreSQL database of its own (`basra_scale` at 127.0.0.1:5432, or
BENCH_SCALE_DATABASE; created here and dropped at the end) with games written as the service
writes them: matches of a human seat playing the greedy bot's cards against the greedy bot, to
101, played by the service's own use cases in memory (real engine play, real logs), each copy
under a new id with its hash chain computed again for that id (copies share deals and times,
never ids). A finished game is stored as the sweep leaves it once its log is compacted and its
stored answers have expired: its row, its seats and its compacted log
(app/persistence/compacted_logs.py). The base holds 10,000 active games (their logs in rows),
200 waiting public ones and --read-base finished ones; a copy of it (`basra_scale_0`) is the
database at N = 0. Everything is written with COPY, by --fill-workers processes.

At each N of --games (finished games, filled up to in turn) two real gunicorns on 127.0.0.1
(RATE_LIMIT=off, bench/api.py's `server`), one on the database at N and one at N = 0, are
measured by 16 client threads, one kind of request and one database at a time: create, move,
view (a random active game), GET /games?status=waiting, a replay step, /verify and an /events
page (of random finished games). Each kind gets --seconds on each database, cut in --rounds
phases taken in turn with every other kind's and database's, so that a busy minute of a shared
machine falls on them alike. A replay step and a /verify each read a finished game the server
has not read before (the audit keeps checkpoints of the games it verified: read again, a game
costs a fraction). Clients connect afresh every few requests, so that no phase is measured on
one lucky or unlucky split of the connections between the workers. It prints p50/p99 of each,
bytes per finished game (tables, TOAST and indexes, over the games added), how long the fill
took, and each kind's p99 at N over its p99 at N = 0.

Usage: nice -n 10 .venv/bin/python bench/scale.py [--games 0,100000,1000000] [--seconds 5]
       [--rounds 5] [--clients 16] [--workers 2] [--fill-workers 2] [--read-base 20000]
       [--keep | --again]
--keep leaves both databases; --again measures them again (the base filled anew if missing).
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
import threading
import time
import zlib
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta

import psycopg
from api import Client, new_game, run_clients, server  # bench/api.py
from harness import BIN, percentile, psql  # bench/harness.py

from app.engine.bots import choose_card
from app.engine.views import observe
from app.persistence.compacted_logs import FORMAT, _text, _varint, compacted
from app.persistence.memory import MemoryUnitOfWork
from app.persistence.statements import game_row, json_text
from app.services.access import hash_token, new_token
from app.services.creation import Player
from app.services.games import create_game
from app.services.log import ROUND_DEALT, RawEvent, canonical_json
from app.services.model import GameRecord
from app.services.playing import PlayCard, play_card

# Filled to each N in turn, and the base alone (N = 0) beside it.
NAME = os.environ.get("BENCH_SCALE_DATABASE", "basra_scale")
BASE = f"{NAME}_0"


def psycopg_url(name: str) -> str:
    return f"postgresql://postgres@127.0.0.1:5432/{name}"


def sqlalchemy_url(name: str) -> str:
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


URL = psycopg_url(NAME)
ACTIVE, WAITING = 10_000, 200
# Each client connects afresh after this many requests. The kernel hands each connection to one
# gunicorn worker (SO_REUSEPORT), and 16 kept for a whole phase split anywhere from 8/8 to 11/5:
# one phase's p99 was then that of its busier worker, another's of an even split.
RECONNECT = 10
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
        # A compacted log differs between copies only in its anchors, at the end of the
        # value: the rest is compressed once, and each copy resumes from there.
        own = self.chain(game.id)
        body = zlib.decompress(compacted(own)[1:])
        head = body[: len(body) - len(self.anchors(own))]
        self.compressor = zlib.compressobj(9)
        self.start = bytes([FORMAT]) + self.compressor.compress(head)
        other = self.chain(secrets.token_hex(8))
        assert self.compacted(other) == compacted(other)

    @staticmethod
    def anchors(rows: list) -> bytes:
        """The end of a compacted log's body: the hashes it keeps (compacted_logs.py)."""
        last = len(rows) - 1
        kept = [(i, r.hash) for i, r in enumerate(rows) if r.type == ROUND_DEALT or i == last]
        return _varint(len(kept)) + b"".join(_varint(i) + _text(digest) for i, digest in kept)

    def compacted(self, rows: list[RawEvent]) -> bytes:
        """``compacted(rows)`` of a copy of this game, without compressing its head again."""
        compressor = self.compressor.copy()
        return self.start + compressor.compress(self.anchors(rows)) + compressor.flush()

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


def fill_chunk(task: tuple[str, str, int, int]) -> tuple[int, list[str]]:
    """Write ``count`` games of ``kind`` in one COPY transaction; (count, their ids)."""
    url, kind, count, seed = task
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
            logs.append((game_id, template.compacted(chain)))
        else:
            rows += [(game_id, r.seq, r.type, r.data, r.at, r.hash) for r in chain]
    columns = list(games[0])
    with psycopg.connect(url) as connection, connection.cursor() as cursor:
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


def fill(kind: str, count: int, workers: int, seed: int, url: str = URL) -> tuple[float, list[str]]:
    """Add ``count`` games of ``kind``; the seconds it took (with VACUUM ANALYZE) and their ids."""
    started = time.monotonic()
    tasks = [(url, kind, min(CHUNK, count - at), seed + at) for at in range(0, count, CHUNK)]
    sample: list[str] = []
    done = 0
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for written, ids in pool.imap_unordered(fill_chunk, tasks):
            done += written
            sample += ids
            if done % 50_000 < CHUNK:
                rate = done / (time.monotonic() - started)
                print(f"  {kind}: {done:,} of {count:,} ({rate:,.0f} games/s)", flush=True)
    with psycopg.connect(url, autocommit=True) as connection:
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
class Unread:
    """Finished games handed out once each, in a random order: a replay step or a /verify
    never meets a game the server read before in this run, whose checkpoints a worker may
    still keep (app/services/audit_cache.py). A small pool read again and again is mostly
    served from them, a large one almost never: unlike work at different N."""

    def __init__(self, game_ids: list[str], seed: int) -> None:
        self.game_ids = list(game_ids)
        random.Random(seed).shuffle(self.game_ids)
        self.taken = 0
        self.lock = threading.Lock()

    def take(self) -> str:
        with self.lock:
            if self.taken >= len(self.game_ids):
                raise SystemExit(
                    f"all {len(self.game_ids):,} finished games read: more --read-base"
                )
            self.taken += 1
            return self.game_ids[self.taken - 1]


class Subject:
    """One database under measurement: its server, the games its requests are about, and the
    latencies measured so far."""

    def __init__(self, port: int, active: list[str], over: list[str]) -> None:
        self.port, self.active, self.over = port, active, over
        self.unread = Unread(over, seed=len(over))
        self.rng = random.Random(7)
        self.times: dict[str, list[float]] = {kind: [] for kind in KINDS}

    def load(self, kind: str):
        def work(deadline: float) -> list[float]:
            client, times = Client(self.port), []
            game = None
            while time.perf_counter() < deadline:
                if len(times) % RECONNECT == RECONNECT - 1:
                    client.connection.close()  # the next request connects afresh
                if kind == "move":
                    if game is None or game[2]["status"] != "active":
                        game = new_game(client, 101)
                    status, body = client.call("POST", f"/games/{game[0]}/moves",
                                               {"card": game[2]["hand"][0]}, game[1])  # fmt: skip
                    game = (game[0], game[1], body["state"])
                else:
                    method = "POST" if kind == "create" else "GET"
                    status, _ = client.call(method, *self.request(kind))
                assert status in (200, 201), (kind, status)
                times.append(client.last_seconds)
            return times

        return work

    def request(self, kind: str) -> tuple:
        rng = self.rng
        if kind == "create":
            return "/games", {"players": [{"name": "bench"}, {"bot": "greedy"}]}
        if kind == "view":
            return (f"/games/{rng.choice(self.active)}",)
        if kind == "list waiting":
            return ("/games?status=waiting",)
        if kind == "replay step":
            return (f"/games/{self.unread.take()}/replay?step={rng.randrange(0, 48)}",)
        if kind == "verify":
            return (f"/games/{self.unread.take()}/verify",)
        return (f"/games/{rng.choice(self.over)}/events?after={rng.randrange(0, 150)}",)

    def results(self) -> dict:
        return {kind: (1000 * percentile(taken, 0.5), 1000 * percentile(taken, 0.99), len(taken))
                for kind, taken in self.times.items()}  # fmt: skip


def measure(subjects: list[Subject], clients: int, seconds: float, rounds: int) -> None:
    """Each kind in ``rounds`` phases, taken in turn with the other kinds' and, for each kind,
    the databases' in turn: a minute when the shared machine was busy falls on every kind and
    every N alike, not on whichever was measured then."""
    for _ in range(rounds):
        for kind in KINDS:
            for subject in subjects:
                subject.times[kind] += run_clients(clients, seconds / rounds, subject.load(kind))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", default="0,100000", help="finished games, filled up to in turn")
    parser.add_argument("--seconds", type=float, default=5, help="time each kind is measured")
    parser.add_argument("--rounds", type=int, default=5, help="phases each kind's time is cut in")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn's workers")
    parser.add_argument("--fill-workers", type=int, default=2)
    parser.add_argument(
        "--read-base", type=int, default=20_000, help="finished games to read at N = 0"
    )
    parser.add_argument("--keep", action="store_true", help="leave the databases for inspection")
    parser.add_argument(
        "--again", action="store_true", help="measure the databases an earlier --keep left"
    )
    args = parser.parse_args()
    targets = sorted({0, *(int(n) for n in args.games.split(","))})
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    if args.again:
        return again(args)
    for name in (NAME, BASE):
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    psql(f'CREATE DATABASE "{NAME}"')
    try:
        return run(args, targets)
    finally:
        if not args.keep:
            for name in (NAME, BASE):
                psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run(args: argparse.Namespace, targets: list[int]) -> int:
    active, over = fill_base(NAME, args)
    psql(f'CREATE DATABASE "{BASE}" TEMPLATE "{NAME}"')  # N = 0, measured beside each N
    base, filled, pairs = stored_bytes(), 0, []
    base_over = list(over)
    for target in targets[1:] or [0]:
        seconds, sample = 0.0, []
        if target > filled:
            seconds, sample = fill("finished", target - filled, args.fill_workers, seed=filled)
        over += sample
        per_game = (stored_bytes() - base) / target if target else 0
        print(f"N={target:,}: filled in {seconds:.0f} s, {per_game:,.0f} bytes a finished game",
              flush=True)  # fmt: skip
        filled = target
        with (
            server(sqlalchemy_url(BASE), args.workers) as empty,
            server(sqlalchemy_url(NAME), args.workers) as full,
        ):
            subjects = [Subject(empty, active, base_over), Subject(full, active, over)]
            measure(subjects if target else subjects[:1], args.clients, args.seconds, args.rounds)
        pairs.append((target, seconds, per_game, subjects[0].results(), subjects[1].results()))
    report(pairs)
    return 0


def fill_base(name: str, args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """Migrate the (empty) database and fill the base; the ids of its active and finished
    games."""
    started = time.monotonic()
    _TEMPLATES.update(templates(seed=1))
    print(f"templates played in {time.monotonic() - started:.1f} s", flush=True)
    env = {**os.environ, "DATABASE_URL": sqlalchemy_url(name)}
    subprocess.run([BIN / "basra", "migrate"], env=env, check=True, capture_output=True)
    url = psycopg_url(name)
    _, active = fill("active", ACTIVE, args.fill_workers, seed=10**9, url=url)
    fill("waiting", WAITING, args.fill_workers, seed=2 * 10**9, url=url)
    _, over = fill("finished", args.read_base, args.fill_workers, seed=3 * 10**9, url=url)
    return active, over


def again(args: argparse.Namespace) -> int:
    """Measure the two databases a run with --keep left, as that run did at its last N (the
    finished games of the larger one beyond the base are its N); the base is filled anew if
    it is not there."""
    with psycopg.connect(psycopg_url("postgres")) as connection:
        found = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (BASE,))
        missing = found.fetchone() is None
    if missing:
        psql(f'CREATE DATABASE "{BASE}"')
        fill_base(BASE, args)
    subjects = []
    with ExitStack() as stack:
        for name in (BASE, NAME):
            with psycopg.connect(psycopg_url(name)) as connection:
                # The filled games: the measurements' own are younger than an hour.
                active = [row[0] for row in connection.execute(
                    "SELECT id FROM games WHERE status = 'active'"
                    " AND created_at < now() - interval '1 hour'")]  # fmt: skip
                over = [row[0] for row in connection.execute("SELECT game_id FROM compacted_logs")]
            port = stack.enter_context(server(sqlalchemy_url(name), args.workers))
            subjects.append(Subject(port, active, over))
        target = len(subjects[1].over) - len(subjects[0].over)
        print(f"N={target:,}: {len(subjects[1].over):,} finished games", flush=True)
        measure(subjects, args.clients, args.seconds, args.rounds)
    report([(target, 0.0, 0.0, subjects[0].results(), subjects[1].results())])
    return 0


def report(pairs: list) -> None:
    """Each N beside the base measured in the same rounds, and the ratios of their p99s."""
    print(
        "\n| N finished | fill s | bytes/game | "
        + " | ".join(f"{k} p50/p99 ms" for k in KINDS)
        + " |"
    )
    print("| ---: | ---: | ---: | " + " | ".join("---:" for _ in KINDS) + " |")
    for target, seconds, per_game, empty, full in pairs:
        rows = [(0, "", "", empty)] + ([(target, f"{seconds:.0f}", f"{per_game:,.0f}", full)]
                                       if target else [])  # fmt: skip
        for n, fill_s, per, results in rows:
            cells = " | ".join(f"{results[k][0]:.1f} / {results[k][1]:.1f}" for k in KINDS)
            print(f"| {n:,} | {fill_s} | {per} | {cells} |")
    for target, _, _, empty, full in pairs:
        if target:
            ratios = ", ".join(f"{k} {full[k][1] / empty[k][1]:.2f}" for k in KINDS)
            print(f"p99 at N={target:,} / at N=0 beside it: {ratios} (goal <= 1.25)")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    raise SystemExit(main())
