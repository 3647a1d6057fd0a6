"""Live-stream benchmark: thousands of open streams on one instance while clients play.

gunicorn as `make run` starts it (`app.asgi:app`: streams and long polls on each worker's event
loop, the rest of the API in its thread pool), with the defaults, on PostgreSQL (--database
sqlite: on SQLite, `make run`'s own default). In one run:
  H. --clients clients call GET /healthz as fast as they can, no stream open: /healthz/s;
  M. the same clients play moves as fast as they can (each against a greedy bot): moves/s
     (the guard: at least half of /healthz/s);
  W. they play with --think seconds between moves, no stream open: moves/s, /healthz latency;
  S. --streams streams open, spread evenly over the clients' games (10,000: 625 on each of
     16), the same play: every stream accepted or not, each move record's delivery to each
     stream from the moment its mover read the answer, the records a stream missed (a move
     answered while it was open that never reached it), /healthz's latency meanwhile (a
     prober of its own), and the instance's resident memory (gunicorn's master and workers);
  then the streams close, and a W phase again (S is compared with the mean of the two).
With --instances 2, two instances share the database: the clients play on the first, the
streams follow on the second, so that every record crosses from one to the other.

The watchers are asyncio clients (one Protocol per stream, raw bytes scanned for move
records), in --watcher-processes processes of their own, each raising its open-file limit.
All of it shares this machine's cores with the server: the run prints who used the CPU.

Usage: .venv/bin/python bench/stream.py [--streams 10000] [--clients 16] [--think 1]
                                        [--seconds 20] [--database postgresql|sqlite]
                                        [--instances 1|2] [--workers N]
                                        [--watcher-processes 2] [--worker-class CLASS]
Needs PostgreSQL on 127.0.0.1:5432 (a database is created and dropped) unless --database
sqlite; only ever talks to 127.0.0.1. Every loop stops by its deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import http.client
import json
import multiprocessing
import os
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from harness import (  # bench/harness.py
    BIN,
    HOST,
    ROOT,
    cpu_seconds,
    free_port,
    percentile,
    postgres_pids,
    psql,
    workers_of,
)

from app.config import default_workers

MOVE = b'event: move\ndata: {"n":'
OPENING = 200  # streams being opened at once by one watcher process


def rss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            lines = Path(f"/proc/{pid}/status").read_text().splitlines()
        except OSError:
            continue
        total += sum(int(line.split()[1]) for line in lines if line.startswith("VmRSS:"))
    return total


def more_files(wanted: int) -> None:
    """Raise this process's open-file limit (each stream is a socket) as far as allowed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


class Http:
    """A keep-alive HTTP/1.1 client on one connection (JSON in, JSON out)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, method: str, path: str, body: object = None, token: str = "") -> dict:
        try:
            return await self._call(method, path, body, token)
        except ConnectionError:  # the server closed an idle keep-alive connection: not sent
            self.writer = None
            return await self._call(method, path, body, token)

    async def _call(self, method: str, path: str, body: object, token: str) -> dict:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        assert self.reader is not None
        payload = json.dumps(body).encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: {len(payload)}\r\n"
        head += "Content-Type: application/json\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        self.writer.write(head.encode() + b"\r\n" + payload)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionResetError("closed before answering")
        status = int(status_line.split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        data = json.loads(await self.reader.readexactly(length)) if length else {}
        assert status in (200, 201), (status, data)
        return data


class Player:
    """One client playing its own game against a greedy bot, the first card of its hand."""

    def __init__(self, port: int, answered: dict[tuple[str, int], float]) -> None:
        self.http = Http(port)
        self.answered = answered  # (game id, move n) -> when its mover read the answer
        self.game_id = ""
        self.token = ""
        self.view: dict = {}
        self.moves = 0
        self.checks = 0

    async def new_game(self) -> None:
        game = await self.http.call(
            "POST",
            "/games",
            {"players": [{"name": "bench"}, {"bot": "greedy"}], "rules": {"target_score": 10000}},
        )
        self.game_id, self.token, self.view = game["id"], game["seats"][0]["token"], game["state"]

    async def play(self, deadline: float, think: float) -> None:
        while time.monotonic() < deadline:
            if self.view["status"] != "active":
                await self.new_game()
            body = await self.http.call(
                "POST", f"/games/{self.game_id}/moves", {"card": self.view["hand"][0]}, self.token
            )
            now = time.monotonic()
            for move in body["moves"]:
                self.answered[(self.game_id, move["n"])] = now
            self.moves += len(body["moves"])
            self.view = body["state"]
            if think:
                await asyncio.sleep(min(think, max(0.0, deadline - time.monotonic())))

    async def check(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            await self.http.call("GET", "/healthz")
            self.checks += 1


class Stream(asyncio.Protocol):
    """One stream (HTTP/1.0: the body is the stream itself, not chunked): the arrival time of
    each move record, scanned from the raw bytes."""

    def __init__(self, game_id: str, after: int) -> None:
        self.game_id = game_id
        self.request = f"GET /games/{game_id}/stream?after={after} HTTP/1.0\r\nHost: {HOST}\r\n\r\n"
        self.head = b""
        self.body = b""
        self.status = asyncio.get_running_loop().create_future()
        self.opened_at = 0.0
        self.received: list[tuple[int, float]] = []
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        transport.write(self.request.encode())  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        if not self.status.done():
            self.head += data
            if b"\r\n\r\n" not in self.head:
                return
            self.head, _, data = self.head.partition(b"\r\n\r\n")
            self.opened_at = now
            self.status.set_result(int(self.head.split(b" ", 2)[1]))
        text = self.body + data
        cut = text.rfind(b"\n\n") + 2
        if cut < 2:
            self.body = text
            return
        self.body = text[cut:]
        start = text.find(MOVE, 0, cut)
        while start >= 0:
            number_end = text.index(b",", start + len(MOVE))
            self.received.append((int(text[start + len(MOVE) : number_end]), now))
            start = text.find(MOVE, number_end, cut)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.status.done():
            self.status.set_result(0)


async def open_streams(port: int, specs: list[tuple[str, int]]) -> list[Stream]:
    loop, gate = asyncio.get_running_loop(), asyncio.Semaphore(OPENING)

    async def one(game_id: str, after: int) -> Stream:
        async with gate:
            stream = Stream(game_id, after)
            try:
                await loop.create_connection(lambda: stream, HOST, port)
                await asyncio.wait_for(asyncio.shield(stream.status), 60)
            except (OSError, TimeoutError):
                if not stream.status.done():
                    stream.status.set_result(0)
            return stream

    return list(await asyncio.gather(*(one(game_id, after) for game_id, after in specs)))


def watch(port: int, specs: list[tuple[str, int]], pipe: Any) -> None:
    """A watcher process: open a stream per (game id, after), say how many were accepted,
    read until told to stop, then send back each stream's game, opening time and moves read.
    time.monotonic is the same clock in every process of this machine."""
    more_files(len(specs) + 256)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        streams = await open_streams(port, specs)
        statuses = [stream.status.result() for stream in streams]
        pipe.send(("open", statuses.count(200), len(statuses), time.monotonic() - started))
        assert await loop.run_in_executor(None, pipe.recv) == "stop"
        results = []
        for stream in streams:
            if stream.transport is not None:
                stream.transport.close()
            if stream.status.result() == 200:
                results.append((stream.game_id, stream.opened_at, stream.received))
        pipe.send(results)

    asyncio.run(run())


def probe(port: int, seconds: float, pipe: Any) -> None:
    """A process of its own asking GET /healthz every 50 ms for ``seconds``: the latencies."""
    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    while time.monotonic() < deadline:
        started = time.monotonic()
        try:
            connection.request("GET", "/healthz")
            answer = connection.getresponse()
            answer.read()
            assert answer.status == 200
        except (OSError, http.client.HTTPException):
            connection.close()
            connection = http.client.HTTPConnection(HOST, port, timeout=30)
            continue
        latencies.append(time.monotonic() - started)
        time.sleep(max(0.0, 0.05 - (time.monotonic() - started)))
    pipe.send(latencies)


class Prober:
    def __init__(self, port: int, seconds: float) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, theirs = context.Pipe()
        self.process = context.Process(target=probe, args=(port, seconds, theirs), daemon=True)
        self.process.start()

    async def latencies(self) -> list[float]:
        found: list[float] = await asyncio.get_running_loop().run_in_executor(None, self.pipe.recv)
        self.process.join(10)
        return found


class Watchers:
    """The watcher processes and their streams, spread evenly over the players' games."""

    def __init__(self, args: argparse.Namespace, port: int, players: list[Player]) -> None:
        specs = [
            (players[n % len(players)].game_id, players[n % len(players)].view["version"])
            for n in range(args.streams)
        ]
        context = multiprocessing.get_context("spawn")
        self.pipes, self.processes = [], []
        for part in range(args.watcher_processes):
            ours, theirs = context.Pipe()
            process = context.Process(
                target=watch, args=(port, specs[part :: args.watcher_processes], theirs),
                daemon=True,  # a run that fails ends them with it
            )  # fmt: skip
            process.start()
            self.pipes.append(ours)
            self.processes.append(process)

    async def opened(self) -> tuple[int, int, float]:
        """(streams accepted, streams asked, the seconds the slowest process took)."""
        loop = asyncio.get_running_loop()
        accepted = asked = 0
        slowest = 0.0
        for pipe in self.pipes:
            word, ok, tried, seconds = await loop.run_in_executor(None, pipe.recv)
            assert word == "open"
            accepted, asked, slowest = accepted + ok, asked + tried, max(slowest, seconds)
        return accepted, asked, slowest

    async def close(self) -> list[tuple[str, float, list[tuple[int, float]]]]:
        loop = asyncio.get_running_loop()
        results: list[tuple[str, float, list[tuple[int, float]]]] = []
        for pipe in self.pipes:
            pipe.send("stop")
        for pipe in self.pipes:
            results += await loop.run_in_executor(None, pipe.recv)
        for process in self.processes:
            process.join(30)
        return results

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes if process.pid]


async def phase(players: list[Player], seconds: float, think: float) -> float:
    before = sum(p.moves for p in players)
    started = time.monotonic()
    await asyncio.gather(*(p.play(started + seconds, think) for p in players))
    return (sum(p.moves for p in players) - before) / (time.monotonic() - started)


async def checks(players: list[Player], seconds: float) -> float:
    before = sum(p.checks for p in players)
    started = time.monotonic()
    await asyncio.gather(*(p.check(started + seconds) for p in players))
    return (sum(p.checks for p in players) - before) / (time.monotonic() - started)


def deliveries(
    results: list[tuple[str, float, list[tuple[int, float]]]],
    answered: dict[tuple[str, int], float],
    until: float,
) -> tuple[list[float], int, int]:
    """(each delivery's delay after the answer, records missed, records expected): a stream
    missed a move answered while it was open (up to ``until``) that never reached it."""
    by_game: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for (game_id, n), at in answered.items():
        by_game[game_id].append((at, n))
    for moves in by_game.values():
        moves.sort()
    delays, missed, expected = [], 0, 0
    for game_id, opened_at, received in results:
        got = {n for n, _ in received}
        for n, arrived in received:
            sent = answered.get((game_id, n))
            if sent is not None and sent >= opened_at:
                delays.append(max(0.0, arrived - sent))
        moves = by_game[game_id]
        due = [n for at, n in moves[bisect.bisect_left(moves, (opened_at, -1)) :] if at <= until]
        expected += len(due)
        missed += sum(n not in got for n in due)
    return delays, missed, expected


async def bench(args: argparse.Namespace, ports: list[int], masters: list[int]) -> dict:
    answered: dict[tuple[str, int], float] = {}
    players = [Player(ports[0], answered) for _ in range(args.clients)]
    for player in players:
        await player.new_game()
    await phase(players, 3, 0)  # warm up every worker
    result: dict[str, Any] = {"healthz_per_s": await checks(players, args.seconds)}
    result["moves_per_s_flat_out"] = await phase(players, args.seconds, 0)
    instance = [*masters, *(w for master in masters for w in workers_of(master))]
    result["rss_mib_before"] = rss_kib(instance) / 1024
    prober = Prober(ports[0], args.seconds)
    without = [await phase(players, args.seconds, args.think)]
    result["healthz_ms_without_streams"] = [x * 1000 for x in await prober.latencies()]

    watchers = Watchers(args, ports[-1], players)
    result["accepted"], result["asked"], result["open_seconds"] = await watchers.opened()
    await asyncio.sleep(2)
    result["rss_mib_idle_streams"] = rss_kib(instance) / 1024
    workers = [w for master in masters for w in workers_of(master)]
    before = time.monotonic(), cpu_seconds(workers), cpu_seconds(watchers.pids)
    prober = Prober(ports[0], args.seconds)
    with_streams = await phase(players, args.seconds, args.think)
    until = time.monotonic()
    wall = until - before[0]
    result["cpu_workers"] = (cpu_seconds(workers) - before[1]) / wall
    result["cpu_watchers"] = (cpu_seconds(watchers.pids) - before[2]) / wall
    if args.database == "postgresql":
        result["postgres_pids"] = len(postgres_pids())
    result["rss_mib_streams"] = rss_kib(instance) / 1024
    latencies = await prober.latencies()
    await asyncio.sleep(2)  # the last records reach the watchers
    results = await watchers.close()
    without.append(await phase(players, args.seconds, args.think))

    delays, missed, expected = deliveries(results, answered, until)
    result["moves_per_s_without_streams"] = statistics.mean(without)
    result["moves_per_s_with_streams"] = with_streams
    result["ratio"] = with_streams / statistics.mean(without)
    result["deliveries"] = len(delays)
    result["missed"], result["expected"] = missed, expected
    result["delivery_p50_ms"] = statistics.median(delays) * 1000 if delays else None
    result["delivery_p99_ms"] = percentile(delays, 0.99) * 1000 if delays else None
    result["delivery_max_ms"] = max(delays) * 1000 if delays else None
    result["healthz_p50_ms"] = statistics.median(latencies) * 1000
    result["healthz_p99_ms"] = percentile(latencies, 0.99) * 1000
    without_ms = result.pop("healthz_ms_without_streams")
    result["healthz_p99_ms_without_streams"] = percentile(without_ms, 0.99)
    return result


def start(args: argparse.Namespace, env: dict[str, str], log: Any) -> tuple[int, Any]:
    port = free_port()
    server = subprocess.Popen(
        [BIN / "gunicorn", "-c", "gunicorn.conf.py", args.app],
        cwd=ROOT, env={**env, "PORT": str(port)}, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=2)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return port, server
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not start")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--streams", type=int, default=10000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--think", type=float, default=1.0, help="seconds between two moves")
    parser.add_argument("--database", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--instances", type=int, choices=(1, 2), default=1)
    parser.add_argument("--workers", type=int, default=0, help="default: as `make run` has it")
    parser.add_argument("--worker-class", default=os.environ.get("GUNICORN_WORKER_CLASS", ""))
    parser.add_argument("--app", default="app.asgi:app")
    parser.add_argument("--watcher-processes", type=int, default=2)
    args = parser.parse_args()
    more_files(1024)

    folder = tempfile.mkdtemp(prefix="basra-bench-stream-")
    if args.database == "postgresql":
        name = f"basra_bench_{secrets.token_hex(4)}"
        psql(f'CREATE DATABASE "{name}"')
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    else:
        url = f"sqlite:///{folder}/basra.sqlite3"
    workers = args.workers or default_workers(url)
    env = {**os.environ, "DATABASE_URL": url, "RATE_LIMIT": "off", "WEB_CONCURRENCY": str(workers)}
    if args.worker_class:
        env["GUNICORN_WORKER_CLASS"] = args.worker_class
    servers: list[Any] = []
    with tempfile.TemporaryFile() as server_log:
        try:
            subprocess.run([BIN / "basra", "migrate"], env=env, check=True, capture_output=True)
            started = [start(args, env, server_log) for _ in range(args.instances)]
            servers = [server for _, server in started]
            ports = [port for port, _ in started]
            result = asyncio.run(bench(args, ports, [server.pid for server in servers]))
        except BaseException:
            server_log.seek(0)
            lines = server_log.read().decode(errors="replace").splitlines()
            tail = [line for line in lines if '"level": "info"' not in line][-40:]
            print("the server's log but the requests:", *tail, sep="\n", file=sys.stderr)
            raise
        finally:
            for server in servers:
                server.terminate()
                server.wait(timeout=30)
            if args.database == "postgresql":
                psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    load = os.getloadavg()[0]
    print(f"{args.app} on {args.database}, {args.instances} instance(s) of {workers} workers "
          f"{args.worker_class or ''}, {args.clients} clients thinking {args.think} s, "
          f"{args.streams} streams, {args.seconds:.0f} s a phase, load {load:.1f}")  # fmt: skip

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.0f}"

    flat_out = result["moves_per_s_flat_out"]
    rows = [
        ("/healthz/s, no stream open (H)", f"{result['healthz_per_s']:.0f}"),
        ("moves/s flat out, no stream open (M)", f"{result['moves_per_s_flat_out']:.0f}"),
        ("  M / H (guard >= 0.5)", f"{flat_out / result['healthz_per_s']:.2f}"),
        ("streams accepted / asked", f"{result['accepted']} / {result['asked']}"),
        ("  seconds to open them", f"{result['open_seconds']:.1f}"),
        ("moves/s thinking, no stream (mean of W)", f"{result['moves_per_s_without_streams']:.0f}"),
        ("moves/s thinking, streams following (S)", f"{result['moves_per_s_with_streams']:.0f}"),
        ("  S / W", f"{result['ratio']:.2f}"),
        ("records delivered (move x stream)", f"{result['deliveries']}"),
        ("records missed / due", f"{result['missed']} / {result['expected']}"),
        ("delivery p50 ms", ms(result["delivery_p50_ms"])),
        ("delivery p99 ms (goal <= 1000)", ms(result["delivery_p99_ms"])),
        ("delivery max ms", ms(result["delivery_max_ms"])),
        ("/healthz p99 ms, no stream", ms(result["healthz_p99_ms_without_streams"])),
        ("/healthz p50 ms, streams following", ms(result["healthz_p50_ms"])),
        ("/healthz p99 ms, streams following (goal <= 250)", ms(result["healthz_p99_ms"])),
        ("instance RSS MiB before streams", f"{result['rss_mib_before']:.0f}"),
        ("instance RSS MiB, streams idle", f"{result['rss_mib_idle_streams']:.0f}"),
        ("instance RSS MiB, streams following (goal <= 1536)", f"{result['rss_mib_streams']:.0f}"),
        ("workers' CPU s/s during S (2 cores: 2.0)", f"{result['cpu_workers']:.2f}"),
        ("watchers' CPU s/s during S", f"{result['cpu_watchers']:.2f}"),
    ]
    for row, value in rows:
        print(f"{row:52} {value:>14}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
