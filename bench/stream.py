"""Live-stream benchmark: 1,000 open streams while 16 clients play against bots.

gunicorn (the `make run` configuration, worker class from GUNICORN_WORKER_CLASS or --worker-class)
on PostgreSQL. In one run, phases of --seconds each, for --rounds rounds (2 by default):
  W. 16 clients play against a greedy bot, no stream open: moves/s;
  S. 1,000 streams open (spread over the 16 games; the first time, they idle for 3 s first:
     memory per idle stream, the workers' RSS before and after divided by the streams), and
     the same play with them following it: moves/s, and the delivery time of each move record
     to each watcher, from the moment its mover read the answer of the move;
  then the streams close, and a W phase again.
Each S phase is compared with the mean of the W phases either side of it (W S W S W), so that
the machine's drift weighs on both sides alike; the ratio printed is the median of the rounds.

The watchers run in a process of their own (--watcher-processes, 1 by default): in the players'
event loop, reading 1,000 streams slowed the players themselves, which measured the client,
not the server. All of it shares this machine's cores with the server, so the run also prints
who used the CPU in the first W and S phases (seconds of CPU per second: players, watchers,
gunicorn's workers, PostgreSQL), and the CPU each record cost the workers (beyond what the
same moves cost without streams) and the watchers.

Usage: .venv/bin/python bench/stream.py [--seconds 15] [--streams 1000] [--clients 16]
                                        [--worker-class gthread|gevent] [--workers N]
                                        [--rounds 2] [--watcher-processes 1]
Needs PostgreSQL on 127.0.0.1:5432 (a database is created and dropped) and only ever
talks to 127.0.0.1. Every loop stops by its deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import secrets
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import (  # bench/harness.py
    ADMIN_URL,
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


def rss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def sessions(database: str) -> int:
    """Connections PostgreSQL opened to the database so far (a pool that churns shows here)."""
    query = f"SELECT sessions FROM pg_stat_database WHERE datname = '{database}'"
    found = subprocess.run(
        ["psql", ADMIN_URL, "-Atc", query], check=True, capture_output=True, text=True
    )
    return int(found.stdout.strip() or 0)


OPENED = "PostgreSQL connections opened"
WORKERS = "gunicorn workers"


class CpuMeter:
    """CPU seconds per wall second of each party over one phase, and the connections opened."""

    def __init__(self, parties: dict[str, list[int]], database: str) -> None:
        self.parties, self.database = parties, database
        self.sessions = sessions(database)
        self.started = time.monotonic()
        self.before = {name: cpu_seconds(pids) for name, pids in parties.items()}

    def read(self) -> dict[str, float]:
        wall = time.monotonic() - self.started
        used = {
            name: (cpu_seconds(pids) - self.before[name]) / wall
            for name, pids in self.parties.items()
        }
        return used | {OPENED: sessions(self.database) - self.sessions}


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

    async def new_game(self) -> None:
        game = await self.http.call(
            "POST",
            "/games",
            {"players": [{"name": "bench"}, {"bot": "greedy"}], "rules": {"target_score": 10000}},
        )
        self.game_id, self.token, self.view = game["id"], game["seats"][0]["token"], game["state"]

    async def play(self, deadline: float) -> None:
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


def open_stream(port: int, game_id: str, after: int) -> tuple[socket.socket, bytes]:
    """A stream (HTTP/1.0, so the body is the stream itself, not chunked), its headers read;
    the socket and whatever body came with them."""
    sock = socket.create_connection((HOST, port), timeout=60)
    path = f"/games/{game_id}/stream?after={after}"
    sock.sendall(f"GET {path} HTTP/1.0\r\nHost: {HOST}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, "the server closed the stream before its headers"
        head += chunk
    head, _, body = head.partition(b"\r\n\r\n")
    assert b" 200 " in head.split(b"\r\n", 1)[0], head
    sock.setblocking(False)
    return sock, body


def moves_in(text: bytes) -> list[int]:
    """The move numbers of the whole records in ``text``."""
    numbers = []
    start = text.find(MOVE)
    while start >= 0:
        number_end = text.index(b",", start + len(MOVE))
        numbers.append(int(text[start + len(MOVE) : number_end]))
        start = text.find(MOVE, number_end)
    return numbers


def watch(port: int, specs: list[tuple[str, int]], pipe: Any) -> None:
    """The watcher process: open a stream per (game id, after), say so, read until told to
    stop, then send back every (game id, move n, arrival time). time.monotonic is the same
    clock in every process of this machine.

    One thread and epoll, reading raw bytes and scanning them for move records: this process
    shares the server's two cores, and every microsecond it spends on a record is taken from
    the server. An asyncio StreamReader per stream cost ~14 us a record, which starved the
    process and measured its own backlog as delivery time (docs/performance.md)."""
    streams: dict[int, tuple[socket.socket, str]] = {}
    pending: dict[int, bytes] = {}
    received: list[tuple[str, int, float]] = []
    poller = select.epoll()
    for game_id, after in specs:
        sock, body = open_stream(port, game_id, after)
        streams[sock.fileno()] = (sock, game_id)
        pending[sock.fileno()] = body
        poller.register(sock.fileno(), select.EPOLLIN)
    poller.register(pipe.fileno(), select.EPOLLIN)
    pipe.send("open")
    stop = pipe.fileno()
    stopping, deadline = False, time.monotonic() + 900  # the bench is over long before
    while not stopping and time.monotonic() < deadline:
        ready = poller.poll(1.0)
        now = time.monotonic()
        for fd, _ in ready:
            if fd == stop:
                stopping = True
                continue
            sock, game_id = streams[fd]
            try:
                chunk = sock.recv(1 << 16)
            except BlockingIOError:
                continue
            if not chunk:  # the stream ended (its hour, the game's end)
                poller.unregister(fd)
                continue
            text = pending[fd] + chunk
            cut = text.rfind(b"\n\n") + 2
            if cut < 2:
                pending[fd] = text
                continue
            pending[fd] = text[cut:]
            received += [(game_id, n, now) for n in moves_in(text[:cut])]
    assert pipe.recv() == "stop"
    for sock, _ in streams.values():
        sock.close()
    pipe.send(received)


async def play_phase(players: list[Player], seconds: float) -> float:
    before = sum(p.moves for p in players)
    started = time.monotonic()
    await asyncio.gather(*(p.play(started + seconds) for p in players))
    return (sum(p.moves for p in players) - before) / (time.monotonic() - started)


def parties(master: int, watcher_pids: list[int]) -> dict[str, list[int]]:
    return {
        "players (this process)": [os.getpid()],
        "watchers": watcher_pids,
        WORKERS: workers_of(master),
        "PostgreSQL": postgres_pids(),
    }


class Watchers:
    """The watcher processes and their streams, spread over the players' games."""

    def __init__(self, args: argparse.Namespace, port: int, players: list[Player]) -> None:
        specs = [
            (players[n % len(players)].game_id, players[n % len(players)].view["version"])
            for n in range(args.streams)
        ]
        context = multiprocessing.get_context("spawn")
        self.pipes, self.processes = [], []
        for part in range(args.watcher_processes):
            ours, theirs = context.Pipe()
            # daemonic: a run that fails ends them with it instead of waiting out their deadline
            process = context.Process(
                target=watch,
                args=(port, specs[part :: args.watcher_processes], theirs),
                daemon=True,
            )
            process.start()
            self.pipes.append(ours)
            self.processes.append(process)

    async def opened(self) -> None:
        loop = asyncio.get_running_loop()
        for pipe in self.pipes:
            assert await loop.run_in_executor(None, pipe.recv) == "open"

    async def close(self) -> list[tuple[str, int, float]]:
        """Stop them: every (game id, move n, arrival time) they read."""
        loop = asyncio.get_running_loop()
        received: list[tuple[str, int, float]] = []
        for pipe in self.pipes:
            pipe.send("stop")
        for pipe in self.pipes:
            received += await loop.run_in_executor(None, pipe.recv)
        for process in self.processes:
            process.join(30)
        return received

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes if process.pid]


async def bench(args: argparse.Namespace, port: int, master: int) -> dict:
    """Phases without streams and with them, alternately (W S W S W for two rounds): each
    phase with streams is compared with the mean of the phases either side of it, so that
    the machine's drift (other work on a shared machine) weighs on both sides alike."""
    answered: dict[tuple[str, int], float] = {}
    players = [Player(port, answered) for _ in range(args.clients)]
    for player in players:
        await player.new_game()
    await play_phase(players, 3)  # warm up every worker
    without, with_streams, ratios, per_delivery, read_cost = [], [], [], [], []
    cpu_without, cpu_with = [], []
    received: list[tuple[str, int, float]] = []
    result: dict = {}

    meter = CpuMeter(parties(master, []), args.database)
    without.append(await play_phase(players, args.seconds))
    cpu_without.append(meter.read())
    for number in range(args.rounds):
        idle_before = rss_kib(workers_of(master))
        watchers = Watchers(args, port, players)
        await watchers.opened()
        if number == 0:
            await asyncio.sleep(3)
            result["rss_kib_before_streams"] = idle_before
            grown = rss_kib(workers_of(master)) - idle_before
            result["kib_per_idle_stream"] = grown / args.streams
        meter = CpuMeter(parties(master, watchers.pids), args.database)
        with_streams.append(await play_phase(players, args.seconds))
        cpu_with.append(meter.read())
        await asyncio.sleep(2)  # the last records reach the watchers
        this_round = await watchers.close()
        received += this_round
        meter = CpuMeter(parties(master, []), args.database)
        without.append(await play_phase(players, args.seconds))
        cpu_without.append(meter.read())
        ratios.append(with_streams[-1] / statistics.mean(without[-2:]))
        # The workers' CPU beyond what the same moves cost without streams, per record sent.
        around = zip(cpu_without[-2:], without[-2:], strict=True)
        per_move = statistics.mean(cpu[WORKERS] / moves for cpu, moves in around)
        extra = cpu_with[-1][WORKERS] - with_streams[-1] * per_move
        per_delivery.append(extra / (len(this_round) / args.seconds))
        read_cost.append(cpu_with[-1]["watchers"] / (len(this_round) / args.seconds))

    delays, early = [], 0
    for game_id, n, arrived in received:
        sent = answered.get((game_id, n))
        if sent is None:
            continue
        early += arrived < sent
        delays.append(max(0.0, arrived - sent))
    result["moves_per_s_without_streams"] = statistics.median(without)
    result["moves_per_s_with_streams"] = statistics.median(with_streams)
    result["ratio_of_each_round"] = ratios
    result["ratio"] = statistics.median(ratios)
    result["cpu_without_streams"] = cpu_without[0]
    result["cpu_with_streams"] = cpu_with[0]
    result["worker_cpu_us_per_delivery"] = statistics.median(per_delivery) * 1e6
    result["watcher_cpu_us_per_delivery"] = statistics.median(read_cost) * 1e6
    result["deliveries"] = len(delays)
    result["deliveries_before_the_answer"] = early
    result["delivery_p50_ms"] = statistics.median(delays) * 1000
    result["delivery_p99_ms"] = percentile(delays, 0.99) * 1000
    result["delivery_max_ms"] = max(delays) * 1000
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("WEB_CONCURRENCY") or default_workers("postgresql://")),
        help="gunicorn's workers (default: as `make run` starts it on PostgreSQL)",
    )
    parser.add_argument("--worker-class", default=os.environ.get("GUNICORN_WORKER_CLASS", ""))
    parser.add_argument("--watcher-processes", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    database = args.database = f"basra_bench_{secrets.token_hex(4)}"
    psql(f'CREATE DATABASE "{database}"')
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"postgresql+psycopg://postgres@127.0.0.1:5432/{database}",
        "PORT": str(port),
        "RATE_LIMIT": "off",
        "WEB_CONCURRENCY": str(args.workers),
    }
    if args.worker_class:
        env["GUNICORN_WORKER_CLASS"] = args.worker_class
    # shown if the run fails: WORKER TIMEOUT and the like
    with tempfile.TemporaryFile() as server_log:
        server = None
        try:
            subprocess.run([BIN / "basra", "migrate"], env=env, check=True, capture_output=True)
            server = subprocess.Popen(
                [BIN / "gunicorn", "-c", "gunicorn.conf.py", "app.wsgi:app"],
                cwd=ROOT,
                env=env,
                stdout=server_log,
                stderr=subprocess.STDOUT,
            )
            for _ in range(200):
                try:
                    with socket.create_connection((HOST, port), timeout=1):
                        break
                except OSError:
                    time.sleep(0.1)
            result = asyncio.run(bench(args, port, server.pid))
        except BaseException:
            server_log.seek(0)
            lines = server_log.read().decode(errors="replace").splitlines()
            tail = [line for line in lines if '"level": "info"' not in line][-40:]  # no requests
            print("the server's log but the requests:", *tail, sep="\n", file=sys.stderr)
            raise
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=30)
            psql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')

    worker_class = args.worker_class or "gunicorn.conf.py's default"
    load = os.getloadavg()[0]
    print(f"worker class {worker_class}, workers={args.workers}, clients={args.clients}, "
          f"streams={args.streams} in {args.watcher_processes} process(es), "
          f"{args.seconds:.0f} s a phase, load {load:.1f}")  # fmt: skip
    ratios = ", ".join(f"{ratio:.2f}" for ratio in result["ratio_of_each_round"])
    rows = [
        ("moves/s, no stream open (median phase)", f"{result['moves_per_s_without_streams']:.0f}"),
        ("moves/s, 1,000 streams following (median)", f"{result['moves_per_s_with_streams']:.0f}"),
        ("with streams / without (goal >= 0.90)", f"{result['ratio']:.2f}"),
        ("  each round: with / mean of the phases around", ratios),
        ("delivery p50 ms", f"{result['delivery_p50_ms']:.1f}"),
        ("delivery p99 ms (goal < 250)", f"{result['delivery_p99_ms']:.1f}"),
        ("delivery max ms", f"{result['delivery_max_ms']:.1f}"),
        ("records delivered, all rounds (move x watcher)", f"{result['deliveries']}"),
        ("  of them before the mover read its answer", f"{result['deliveries_before_the_answer']}"),
        ("workers' CPU per record delivered, us", f"{result['worker_cpu_us_per_delivery']:.1f}"),
        ("watchers' CPU per record read, us", f"{result['watcher_cpu_us_per_delivery']:.1f}"),
        ("memory per idle stream KiB (workers' RSS)", f"{result['kib_per_idle_stream']:.1f}"),
        ("workers' RSS before the streams MiB", f"{result['rss_kib_before_streams'] / 1024:.0f}"),
    ]
    for name, value in rows:
        print(f"{name:46} {value:>10}")
    print("CPU seconds per second (2 cores: 2.0), first round   no stream   streams")
    for party in result["cpu_with_streams"]:
        before, during = result["cpu_without_streams"][party], result["cpu_with_streams"][party]
        shape = "{:>10.0f} {:>9.0f}" if party == OPENED else "{:>10.2f} {:>9.2f}"
        print(f"  {party:50} " + shape.format(before, during))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
