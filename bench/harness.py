"""What the benchmarks that start servers share: where the project's commands are, the
PostgreSQL they make their databases on, free ports on 127.0.0.1, and readings of the machine's
CPU from /proc (a benchmark reports CPU spent, which a shared machine's noise blurs less than a
latency does)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ADMIN_URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def psql(statement: str) -> None:
    subprocess.run(["psql", ADMIN_URL, "-qc", statement], check=True, capture_output=True)


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of them lie (nan when there are none)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def workers_of(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(child) for child in children]


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes so far, plus that of their children which ended
    (PostgreSQL's postmaster reaps its backends: a closed connection's CPU is counted there)."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def postgres_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().startswith("postgres"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def idle_and_total() -> tuple[int, int]:
    """The machine's idle (and I/O wait) ticks and all its ticks so far, from /proc/stat: a
    run that leaves cores idle is bound by waiting, not by what a request costs."""
    with open("/proc/stat") as stat:
        ticks = [int(n) for n in stat.readline().split()[1:9]]
    return ticks[3] + ticks[4], sum(ticks)
