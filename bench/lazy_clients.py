"""Clients that never close, or never finish a request: does the server keep answering the
others? (docs/reliability.md, "Closes that never wait" and "Slow request heads")

gunicorn as `make run` starts it (--workers 4, SQLite in a temporary folder). One keep-alive
client calls GET /healthz in a loop for --seconds, first alone, then:
  - while another thread opens --rate connections a second, each sending an HTTP/1.0 request
    (so the server closes it after the answer) and keeping its socket, unread, until the
    phase ends;
  - with --half-requests N: after N connections have each sent half a request head and stopped
    (they are kept open until the phase ends).
Prints the /healthz rate, p50, p99 and max of each phase, and how many of its requests failed.

Usage: .venv/bin/python bench/lazy_clients.py [--rate 5] [--seconds 4]
       .venv/bin/python bench/lazy_clients.py --half-requests 600 --workers 1
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


def half_requests(port: int, count: int) -> list[socket.socket]:
    kept = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n")  # no blank line: not done
        kept.append(sock)
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=5, help="lazy connections a second")
    parser.add_argument("--half-requests", type=int, default=0, help="connections, instead")
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    with database("sqlite") as url, server(url, args.workers) as port:
        print(f"alone                       {healthz_phase(port, args.seconds)}")
        kept: list[socket.socket] = []
        if args.half_requests:
            kept += half_requests(port, args.half_requests)
            label = f"{args.half_requests} half requests open"
            figures = healthz_phase(port, args.seconds)
        else:
            lazy = threading.Thread(target=lazy_clients, args=(port, args.rate, args.seconds, kept))
            lazy.start()
            label = f"{args.rate:g} lazy connections/s"
            figures = healthz_phase(port, args.seconds)
            lazy.join()
        for sock in kept:
            sock.close()
        print(f"{label:28}{figures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
