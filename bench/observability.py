"""What the request id, the metrics and the JSON log line cost per request (app/api/telemetry.py).

In one process, on SQLite in a temporary directory, with prometheus_client in multiprocess mode
(memory-mapped files, as under gunicorn) and the JSON log written to /dev/null through the same
renderer as in production: GET /healthz and POST /games/{id}/moves through Flask's test client,
alternating batches with the telemetry hooks on and off, the median of the batches compared.

Usage: .venv/bin/python bench/observability.py [--requests 400] [--batches 7]
Talks to no server and no network; the machine may be shared, so small differences are noise.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TMP = Path(tempfile.mkdtemp(prefix="basra-bench-obs-"))
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(TMP / "metrics")  # before prometheus_client loads
(TMP / "metrics").mkdir()
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import create_app  # noqa: E402
from app.observability import logs  # noqa: E402
from app.persistence.schema import migrate_database  # noqa: E402

DEVNULL = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the run


def build() -> Any:
    url = f"sqlite:///{TMP / 'bench.sqlite3'}"
    migrate_database(url)
    root = logging.getLogger()
    root.handlers.clear()
    sink = logging.StreamHandler(DEVNULL)
    sink.setFormatter(logs.json_formatter())
    root.addHandler(sink)
    root.setLevel(logging.INFO)
    return create_app({"DATABASE_URL": url, "RATE_LIMIT": "off"})


def hooks(app: Any) -> tuple[list[Any], list[Any]]:
    return app.before_request_funcs.setdefault(None, []), app.after_request_funcs.setdefault(
        None, []
    )


SPENT = [0.0]  # seconds inside the telemetry hooks, added up


def clocked(hook: Any) -> Any:
    def run(*args: Any) -> Any:
        started = time.perf_counter()
        try:
            return hook(*args)
        finally:
            SPENT[0] += time.perf_counter() - started

    return run


def timed(app: Any, on: bool, saved: tuple[Any, Any], work: Any, count: int) -> float:
    before, after = hooks(app)
    telemetry_before, telemetry_after = saved
    if on and telemetry_before not in before:
        before.insert(0, telemetry_before)
        after.insert(0, telemetry_after)
    if not on and telemetry_before in before:
        before.remove(telemetry_before)
        after.remove(telemetry_after)
    client = app.test_client()
    real, sys.stdout = sys.stdout, DEVNULL  # the request log's lines go nowhere
    try:
        started = time.perf_counter()
        for _ in range(count):
            work(client)
        return (time.perf_counter() - started) / count
    finally:
        sys.stdout = real


def mover(app: Any) -> Any:
    client = app.test_client()
    state: dict[str, Any] = {}

    def new_game() -> None:
        players = [{"name": "B"}, {"bot": "random"}]
        rules = {"target_score": 10000}
        body = client.post("/games", json={"players": players, "rules": rules}).get_json()
        state.update(id=body["id"], token=body["seats"][0]["token"], view=body["state"])

    new_game()

    def move(c: Any) -> None:
        view = state["view"]
        response = c.post(f"/games/{state['id']}/moves", json={"card": view["hand"][0]},
                          headers={"Authorization": f"Bearer {state['token']}"})  # fmt: skip
        state["view"] = response.get_json()["state"]
        if state["view"]["status"] != "active" or state["view"]["version"] > 300:
            new_game()

    return move


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--batches", type=int, default=7)
    args = parser.parse_args()
    app = build()
    before, after = hooks(app)
    assert before[0].__name__ == "start" and after[0].__name__ == "finish"  # installed first
    before[0], after[0] = clocked(before[0]), clocked(after[0])
    saved = (before[0], after[0])
    workloads = {
        "GET /healthz": lambda c: c.get("/healthz"),
        "POST /games/{id}/moves": mover(app),
    }
    print(f"{args.batches} batches of {args.requests} requests each way, medians, in microseconds")
    print(f"{'request':26} {'hooks off':>10} {'hooks on':>10} {'difference':>10} {'in hooks':>10}")
    for name, work in workloads.items():
        timed(app, True, saved, work, args.requests // 4)  # warm up
        off, on, inside = [], [], []
        for _ in range(args.batches):
            off.append(timed(app, False, saved, work, args.requests))
            SPENT[0] = 0.0
            on.append(timed(app, True, saved, work, args.requests))
            inside.append(SPENT[0] / args.requests)
        off_us, on_us = statistics.median(off) * 1e6, statistics.median(on) * 1e6
        in_us = statistics.median(inside) * 1e6
        print(f"{name:26} {off_us:10.0f} {on_us:10.0f} {on_us - off_us:+10.0f} {in_us:10.0f}")
    timed(app, True, saved, workloads["GET /healthz"], 1)  # leave the app as it was built
    app.extensions["basra_db"].dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
