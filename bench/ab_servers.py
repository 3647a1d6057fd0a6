"""A/B over HTTP: two servers of one database, up at once, that differ in their environment or
their number of workers; their health-check/moves pairs are taken in turn.

    .venv/bin/python bench/ab_servers.py --workers-b 2                  # SQLite, 4 workers vs 2
    .venv/bin/python bench/ab_servers.py --env-b GAME_IMAGES=0 --database postgresql

Each server is gunicorn as `make run` starts it (bench/api.py's ``server``), on a database of its
own. A pair is a health-check phase and a moves phase of 16 clients (bench/api.py's ``Subject``);
which server goes first alternates from pair to pair, so that a machine whose speed drifts slows
both alike. Printed: each server's medians (ratio, requests a second, the workers' CPU a request,
latency, idle CPU), then B ÷ A pair by pair for the ratio, the workers' CPU a move and the
requests a second, each with the interval of its median (bench/verdicts.py): "B higher" or "B
lower" only when the whole interval is on one side of 1, else "no difference shown" (one the
machine's noise hides is none this run can claim).
Not part of ``make bench`` (a tool for trying a change, docs/performance.md).
"""

from __future__ import annotations

import argparse
import statistics
from contextlib import ExitStack

from api import Subject, database, default_workers, percentile, play_load, run_clients, server
from verdicts import median_interval, summary


def settings(text: str) -> dict[str, str]:
    """``NAME=value,NAME=value`` as a mapping."""
    return dict(item.split("=", 1) for item in text.split(",") if item)


def describe(subject: Subject) -> str:
    moves_cpu = statistics.median(cpu[1] for cpu in subject.move_cpu)
    health_cpu = statistics.median(cpu[1] for cpu in subject.health_cpu)
    idle = statistics.median(cpu[3] for cpu in subject.move_cpu)
    ratio = statistics.median(subject.ratios)
    return (
        f"{subject.kind}: {subject.workers} workers, ratio {ratio:.3f}, "
        f"healthz/s {statistics.median(subject.health_rates):.0f}, "
        f"moves/s {statistics.median(subject.move_rates):.0f}, workers' CPU ms a healthz "
        f"{health_cpu:.3f}, a move {moves_cpu:.3f}; move p50 "
        f"{statistics.median(subject.moves) * 1000:.1f} ms, p99 "
        f"{percentile(subject.moves, 0.99) * 1000:.1f} ms; idle in moves phases {idle:.1f}%"
    )


def difference(values: list[float]) -> str:
    """What the interval of the median of B ÷ A says: higher, lower, or nothing shown."""
    low, high, _ = median_interval(values)
    return "B higher" if low > 1 else "B lower" if high < 1 else "no difference shown"


def compare(label: str, values: list[float]) -> str:
    each = ", ".join(f"{value:.2f}" for value in values)
    return f"B / A {label}: {each}\n  {summary(values, difference(values))}"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database", default="sqlite", choices=("sqlite", "postgresql"))
    parser.add_argument("--env-a", default="", help="NAME=value,... for server A")
    parser.add_argument("--env-b", default="", help="NAME=value,... for server B")
    parser.add_argument("--workers", type=int, default=0, help="A's workers (default: by database)")
    parser.add_argument("--workers-b", type=int, default=0, help="B's workers (default: A's)")
    parser.add_argument("--pairs", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()

    with ExitStack() as stack:
        subjects = []
        servers = (("A", args.env_a, args.workers),
                   ("B", args.env_b, args.workers_b or args.workers))  # fmt: skip
        for label, extra, workers in servers:
            url = stack.enter_context(database(args.database))
            workers = workers or default_workers(url)
            masters: list[int] = []
            port = stack.enter_context(server(url, workers, masters, settings(extra)))
            subjects.append(Subject(label, port, masters[0], workers))
        for subject in subjects:
            run_clients(args.clients, 2, play_load(subject.port))  # warm up every worker
        for number in range(args.pairs):
            for subject in subjects if number % 2 == 0 else subjects[::-1]:
                subject.pair(args)
    a, b = subjects
    for subject in subjects:
        print(describe(subject))
    print(compare("ratio", [y / x for x, y in zip(a.ratios, b.ratios, strict=True)]))
    move_cpu = [y[1] / x[1] for x, y in zip(a.move_cpu, b.move_cpu, strict=True)]
    print(compare("workers' CPU a move", move_cpu))
    health = [y / x for x, y in zip(a.health_rates, b.health_rates, strict=True)]
    print(compare("healthz/s", health))
    print(compare("moves/s", [y / x for x, y in zip(a.move_rates, b.move_rates, strict=True)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
