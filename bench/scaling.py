"""One instance against two, on this one machine: moves/s and move latency (p50, p99).

Three set-ups in turn, each on a fresh PostgreSQL database at 127.0.0.1:5432 (created and dropped
here), each loaded by the same clients for the same time; every client plays whole games against
a greedy bot (each POST /moves applies its card and the bot's reply):
  1. one gunicorn instance, clients connect to it directly;
  2. the same instance behind HAProxy (deploy/haproxy.cfg; the second server slot is unused);
  3. two instances behind HAProxy (leastconn), the same number of workers each.

Usage: .venv/bin/python bench/scaling.py [--seconds 10] [--clients 16] [--workers 2]
Loopback only, bounded in time; needs /usr/sbin/haproxy (scripts/ensure-haproxy) and psql.
Both instances share the machine's cores (and the database's): two instances here show the
balancer's cost and that nothing breaks, not the gain of a second machine.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import secrets
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from harness import BIN, ROOT, free_port, psql  # bench/harness.py


def call(
    connection: http.client.HTTPConnection, method: str, path: str, body: object = None,
    token: str | None = None,
) -> tuple[int, dict]:  # fmt: skip
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = connection.getresponse()
    data = response.read()
    return response.status, (json.loads(data) if data else {})


def wait_until_up(port: int, path: str = "/readyz", timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, http.client.HTTPException):
            if (
                call(http.client.HTTPConnection("127.0.0.1", port, timeout=5), "GET", path)[0]
                == 200
            ):
                return
        time.sleep(0.2)
    raise SystemExit(f"nothing ready on port {port} within {timeout}s")


@contextlib.contextmanager
def process(args: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@contextlib.contextmanager
def fresh_database() -> Iterator[str]:
    """A migrated database of its own at 127.0.0.1:5432 (its URL), dropped afterwards."""
    database = f"basra_bench_{secrets.token_hex(4)}"
    psql(f'CREATE DATABASE "{database}"')
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{database}"
    try:
        env = {**os.environ, "DATABASE_URL": url}
        subprocess.run([BIN / "basra", "migrate"], env=env, check=True, capture_output=True)
        yield url
    finally:
        psql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


@contextlib.contextmanager
def instances(
    count: int, workers: int, database_url: str, masters: list[int] | None = None
) -> Iterator[list[int]]:
    """``count`` gunicorns on free ports (their masters' pids appended to ``masters``)."""
    ports = [free_port() for _ in range(count)]
    with contextlib.ExitStack() as stack:
        for port in ports:
            env = {**os.environ, "DATABASE_URL": database_url, "PORT": str(port),
                   "RATE_LIMIT": "off", "WEB_CONCURRENCY": str(workers)}  # fmt: skip
            env.pop("PROMETHEUS_MULTIPROC_DIR", None)
            started = stack.enter_context(
                process([str(BIN / "gunicorn"), "-c", "gunicorn.conf.py", "app.wsgi:app"], env)
            )
            if masters is not None:
                masters.append(started.pid)
        for port in ports:
            wait_until_up(port)
        yield ports


@contextlib.contextmanager
def balancer(upstreams: list[int]) -> Iterator[int]:
    port = free_port()
    second = upstreams[1] if len(upstreams) > 1 else free_port()  # nothing there: DOWN
    env = {
        **os.environ,
        "LB_BIND": f"127.0.0.1:{port}",
        "LB_STATS_BIND": f"127.0.0.1:{free_port()}",
        "API_1": f"127.0.0.1:{upstreams[0]}",
        "API_2": f"127.0.0.1:{second}",
    }
    with process(["/usr/sbin/haproxy", "-db", "-f", str(ROOT / "deploy" / "haproxy.cfg")], env):
        wait_until_up(port)
        time.sleep(2.5)  # both health checks pass (rise 2, inter 1 s)
        yield port


def load(port: int, clients: int, seconds: float, think: float = 0.0) -> list[float]:
    """Move latencies of ``clients`` threads playing greedy bots for ``seconds``, each move
    after ``think`` seconds of a player's thinking (0: as fast as the server answers)."""
    times: list[float] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def player() -> None:
        connection, mine = http.client.HTTPConnection("127.0.0.1", port, timeout=30), []
        while time.perf_counter() < deadline:
            status, game = call(connection, "POST", "/games", {
                "players": [{"name": "bench"}, {"bot": "greedy"}], "rules": {"target_score": 101}
            })  # fmt: skip
            assert status == 201, game
            token, view = game["seats"][0]["token"], game["state"]
            while view["status"] == "active" and time.perf_counter() < deadline:
                start = time.perf_counter()
                status, body = call(connection, "POST", f"/games/{game['id']}/moves",
                                    {"card": view["hand"][0]}, token)  # fmt: skip
                assert status == 201, body
                mine.append(time.perf_counter() - start)
                view = body["state"]
                if think:
                    time.sleep(think)
        with lock:
            times.extend(mine)

    threads = [threading.Thread(target=player) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    return times


def report(name: str, times: list[float], seconds: float) -> None:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    print(f"{name:38} {len(times) / seconds:9.0f} {statistics.median(times) * 1000:9.1f}"
          f" {p99 * 1000:9.1f}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per instance")
    args = parser.parse_args()
    if not Path("/usr/sbin/haproxy").exists():
        print("bench/scaling.py skipped: no /usr/sbin/haproxy (scripts/ensure-haproxy installs it)")
        return 0
    load_average = os.getloadavg()[0]
    print(f"{args.clients} clients, {args.seconds:.0f} s each, {args.workers} workers an instance,"
          f" {os.cpu_count()} cores, load average {load_average:.1f} at the start")  # fmt: skip
    print(f"{'set-up':38} {'moves/s':>9} {'p50 ms':>9} {'p99 ms':>9}")
    setups = [("one instance, direct", 1, False), ("one instance behind HAProxy", 1, True),
              ("two instances behind HAProxy", 2, True)]  # fmt: skip
    for name, count, balanced in setups:
        with (
            fresh_database() as url,
            instances(count, args.workers, url) as ports,
            contextlib.ExitStack() as stack,
        ):
            port = stack.enter_context(balancer(ports)) if balanced else ports[0]
            load(port, args.clients, 2)  # warm every worker up
            report(name, load(port, args.clients, args.seconds), args.seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
