"""The stream listener's own CPU: one process's Listener and Hub, fed NOTIFY at a steady rate.

    .venv/bin/python bench/listener.py [--rate 700] [--seconds 6] [--games 16]

Sixteen watched games (no stream attached, so nothing is written: this is the cost of taking
the notices in), and a second connection that sends each game's move notices in turn, as a
move's commit does, at ``--rate`` a second. Prints the CPU the hub's thread used (from
/proc/self/task/<id>/schedstat), a second and a notice. A diagnosis, not part of `make bench`
(docs/performance.md, "Tenth session"). Needs PostgreSQL on 127.0.0.1:5432.
"""

from __future__ import annotations

import argparse
import os
import secrets
import time

import psycopg

from app.persistence.notifications import CHANNEL, Listener, notice_text
from app.services.hub import Channel, Hub
from app.services.records import Record

URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
MOVE = {"seat": 0, "card": "7H", "captured": ["7S"], "basra": False, "jack_basra": False}


def thread_cpu(native_id: int) -> float:
    with open(f"/proc/self/task/{native_id}/schedstat") as stat:
        return int(stat.read().split()[0]) / 1e9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=int, default=700, help="notices a second")
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--games", type=int, default=16)
    args = parser.parse_args()

    games = [secrets.token_hex(8) for _ in range(args.games)]
    hub = Hub(lambda: None, lambda sink, wake: Listener(URL, sink, wake), write_every=0.1)  # type: ignore[arg-type, return-value]
    for game_id in games:
        hub.channels[game_id] = Channel(game_id, through=0, known=0, ring_from=0, watchers=1)
    hub.poll = lambda: None  # type: ignore[method-assign]  # notices only, no database reads
    hub._start_watcher()
    assert hub.watcher is not None
    time.sleep(1)  # connected and listening
    native_id = hub.watcher.thread.native_id
    assert native_id is not None
    versions = dict.fromkeys(games, 0)
    with psycopg.connect(URL, autocommit=True) as sender:
        cpu_before, started, sent = thread_cpu(native_id), time.monotonic(), 0
        while time.monotonic() - started < args.seconds:
            game_id = games[sent % len(games)]
            after = versions[game_id]
            records = [
                Record(after + i, "move", dict(MOVE, n=after + i, seat=i % 2)) for i in (1, 2)
            ]
            text = notice_text(game_id, after + 2, after, False, records)
            sender.execute("SELECT pg_notify(%s, %s)", (CHANNEL, text))
            versions[game_id], sent = after + 2, sent + 1
            ahead = started + sent / args.rate - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)
        time.sleep(0.3)  # the last notices arrive
        cpu = thread_cpu(native_id) - cpu_before
    caught_up = all(hub.channels[g].through == versions[g] for g in games)
    hub.stop()
    per_second, per_notice = 1000 * cpu / args.seconds, 1e6 * cpu / sent
    print(f"{sent / args.seconds:.0f} notices/s: the hub's thread used {per_second:.1f} ms of CPU"
          f" a second, {per_notice:.1f} us a notice; all games caught up: {caught_up}")  # fmt: skip
    return 0 if caught_up else 1


if __name__ == "__main__":
    raise SystemExit(main())
