"""Clients that never close: does the server keep answering the others? (docs/reliability.md)

gunicorn as `make run` starts it (4 workers, SQLite in a temporary folder). One keep-alive
client calls GET /healthz in a loop for --seconds, first alone, then while another thread opens
--rate connections a second, each sending an HTTP/1.0 request (so the server closes it after
the answer), reading the answer and keeping its socket open until the phase ends. Prints the
/healthz rate, p50, p99 and max of each phase, and how many of its requests failed.

Usage: .venv/bin/python bench/lazy_clients.py [--rate 5] [--seconds 4]
Only ever talks to 127.0.0.1; every loop stops by its deadline.
"""

from __future__ import annotations

import argparse
import http.client
import socket
import threading
import time

from api import database, server  # bench/api.py: a fresh database, gunicorn on a free port


def healthz_phase(port: int, seconds: float) -> str:
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times, errors = [], 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        try:
            client.request("GET", "/healthz")
            client.getresponse().read()
        except OSError:  # the server dropped the connection: count it, open another
            errors += 1
            client.close()
            client = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        times.append(time.perf_counter() - started)
    client.close()
    times.sort()
    ms = [1000 * times[int(q * (len(times) - 1))] for q in (0.5, 0.99, 1.0)]
    return (f"{len(times) / seconds:7.0f} req/s  p50 {ms[0]:7.1f} ms  p99 {ms[1]:7.1f} ms  "
            f"max {ms[2]:7.1f} ms  {errors} failed")  # fmt: skip


def lazy_clients(port: int, rate: float, seconds: float, kept: list[socket.socket]) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
        kept.append(sock)  # read by nobody, closed only when the phase is over
        time.sleep(1 / rate)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=5, help="lazy connections a second")
    parser.add_argument("--seconds", type=float, default=4)
    args = parser.parse_args()
    with database("sqlite") as url, server(url, 4) as port:
        print(f"alone                       {healthz_phase(port, args.seconds)}")
        kept: list[socket.socket] = []
        lazy = threading.Thread(target=lazy_clients, args=(port, args.rate, args.seconds, kept))
        lazy.start()
        figures = healthz_phase(port, args.seconds)
        lazy.join()
        for sock in kept:
            sock.close()
        print(f"{args.rate:g} lazy connections/s     {figures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
