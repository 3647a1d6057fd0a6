"""What an operator sees of a real gunicorn: one /metrics scrape that adds up every worker (under
the sync and gthread workers, and gevent where it is installed), and logs that are JSON lines from
the first to the last, one per request, naming every request id and never a secret: a whole
game of two humans against two bots is played, and its log is scanned for both tokens, the
server seed (known only once the match is over) and every card code."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from .load import assert_no_secret_in
from .servers import Gunicorn, migrate
from .support import bearer

pytestmark = [pytest.mark.slow]

WORKER_CLASSES = {
    "sync": ("--worker-class", "sync"),
    "gthread": ("--worker-class", "gthread", "--threads", "4"),
    "gevent": ("--worker-class", "gevent", "--worker-connections", "100"),
}


@contextlib.contextmanager
def serving(tmp_path: Path, workers: int, args: tuple[str, ...] = ()) -> Iterator[Gunicorn]:
    url = f"sqlite:///{tmp_path / 'basra.sqlite3'}"
    migrate(url)
    server = Gunicorn(url, tmp_path, workers, args)
    try:
        server.start()
        yield server
    finally:
        server.stop()


def scrape(server: Gunicorn) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = requests.get(f"{server.url}/metrics", timeout=10)
    assert response.status_code == 200, response.text[:300]
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def rules_count(server: Gunicorn) -> float:
    """GET /rules answered so far: a route no start-up check of servers.py sends (a health check
    it gave up on after 2 s is still answered, and counted, once a slow worker has booted)."""
    return value(scrape(server), "http_requests_total", method="GET", route="/rules",
                 status="200")  # fmt: skip


def wait_for_workers(server: Gunicorn, count: int, gone: int | None = None) -> None:
    """Until ``count`` workers (none of them ``gone``) run and count themselves (60 s at most)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        alive = [pid for pid in server.workers() if pid != gone]
        if len(alive) == count and value(scrape(server), "basra_worker_processes") == count:
            return
        time.sleep(0.2)
    raise AssertionError(f"{count} workers did not all start within 60 s")


@pytest.mark.parametrize("worker_class", list(WORKER_CLASSES))
def test_one_scrape_adds_up_every_worker(tmp_path: Path, worker_class: str) -> None:
    if worker_class == "gevent" and importlib.util.find_spec("gevent") is None:
        pytest.skip("gevent is not installed in this virtualenv")
    with serving(tmp_path, workers=3, args=WORKER_CLASSES[worker_class]) as server:
        wait_for_workers(server, 3)  # each counts itself once its app is built
        assert rules_count(server) == 0
        for _ in range(60):  # new connections, so the kernel spreads them over the workers
            response = requests.get(f"{server.url}/rules", timeout=10)
            assert response.status_code == 200
        samples = scrape(server)
        pids = {dict(k[1])["pid"] for k in samples if k[0] == "basra_process_start_time_seconds"}
        assert value(samples, "basra_worker_processes") == 3
        assert len(pids) == 3, "every worker has its own series"
        assert rules_count(server) == 60, "a scrape counts the requests of every worker"

        # A killed worker's counts stay (counters never go back), its live gauges leave.
        victim = server.workers()[0]
        os.kill(victim, signal.SIGKILL)
        wait_for_workers(server, 3, gone=victim)
        samples = scrape(server)
        assert value(samples, "basra_worker_processes") == 3
        assert rules_count(server) == 60
        assert str(victim) not in {
            dict(key[1])["pid"] for key in samples if key[0] == "basra_process_start_time_seconds"
        }


def play_whole_game(server: Gunicorn) -> dict[str, Any]:
    """Two humans (side 0) against two bots; returns the tokens, ids sent and the seed."""
    sent: list[str] = []
    session = requests.Session()

    def call(method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        rid = f"t-{len(sent)}"
        sent.append(rid)
        headers = {"X-Request-ID": rid, **(bearer(token) if token else {})}
        response = session.request(method, server.url + path, headers=headers, timeout=30,
                                   **kwargs)  # fmt: skip
        assert response.headers["X-Request-ID"] == rid
        return response

    players = [{"name": "Amira"}, {"bot": "random"}, {"name": "Badr"}, {"bot": "greedy"}]
    created = call("post", "/games", json={"players": players, "rules": {"target_score": 1}})
    assert created.status_code == 201, created.text
    game = created.json()
    tokens = {seat["seat"]: seat["token"] for seat in game["seats"] if "token" in seat}
    game_id, state = game["id"], game["state"]
    for _ in range(500):
        if state["status"] == "finished":
            break
        seat = state["turn"]
        view = call("get", f"/games/{game_id}", tokens[seat]).json()
        call("get", f"/games/{game_id}/events", tokens[seat])  # redacted: the rest's cards
        moved = call("post", f"/games/{game_id}/moves", tokens[seat],
                     json={"card": view["hand"][0]})  # fmt: skip
        assert moved.status_code == 201, moved.text
        state = moved.json()["state"]
        if len(sent) % 7 == 0:  # a refusal now and then: problems are logged too
            assert call("post", f"/games/{game_id}/moves", "not-a-token",
                        json={"card": "7D"}).status_code == 401  # fmt: skip
    assert state["status"] == "finished"
    fairness = call("get", f"/games/{game_id}/fairness").json()
    assert call("get", f"/games/{game_id}/verify").json()["ok"]
    return {"tokens": list(tokens.values()), "sent": sent, "seed": fairness["server_seed"]}


def test_a_whole_game_logs_json_lines_and_no_secret(tmp_path: Path) -> None:
    with serving(tmp_path, workers=2) as server:
        played = play_whole_game(server)
        time.sleep(0.5)  # the last lines' writes
        log = server.log()
    lines = [line for line in log.splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line, gunicorn's own too
    assert any(r.get("logger") == "gunicorn.error" for r in records)
    requests_logged = [r for r in records if r.get("event") == "request"]
    by_id = {r["request_id"]: r for r in requests_logged}
    assert set(played["sent"]) <= set(by_id), "one line per request"
    for rid in played["sent"]:
        record = by_id[rid]
        assert {"method", "route", "status", "duration_ms", "game_id", "ts", "pid"} <= set(record)
        assert record["route"].startswith("/games")
    assert_no_secret_in(log, played["tokens"])  # no token, and no card code at all
    assert played["seed"] not in log
    assert "Bearer" not in log and "Authorization" not in log


def test_open_streams_are_counted_across_workers(tmp_path: Path) -> None:
    with serving(tmp_path, workers=2) as server:
        players = [{"name": "Amira"}, {"open": True}]
        created = requests.post(f"{server.url}/games", json={"players": players}, timeout=10)
        game_id = created.json()["id"]
        assert value(scrape(server), "basra_stream_clients") == 0
        with contextlib.ExitStack() as stack:
            readers = []  # a reader let go closes its connection: the stream would end
            for _ in range(3):
                stream = stack.enter_context(
                    requests.get(f"{server.url}/games/{game_id}/stream", stream=True, timeout=10)
                )
                assert stream.status_code == 200
                readers.append(stream.iter_lines())
                next(readers[-1])  # the stream is open once its first line arrives
            # Several scrapes, on new connections: whichever worker answers sees all three.
            assert {value(scrape(server), "basra_stream_clients") for _ in range(6)} == {3}


@pytest.mark.parametrize("asked", [False, True])
def test_gunicorns_access_log_is_written_only_when_asked_for(tmp_path: Path, asked: bool) -> None:
    """Off by default (the app logs each request itself; gunicorn.conf.py's logger class keeps
    gunicorn from even building the fields); ACCESS_LOG=1 brings it back, as JSON."""
    url = f"sqlite:///{tmp_path / 'basra.sqlite3'}"
    migrate(url)
    server = Gunicorn(url, tmp_path, workers=1, env={"ACCESS_LOG": "1"} if asked else {})
    try:
        server.start()
        for _ in range(3):
            assert requests.get(f"{server.url}/healthz", timeout=10).status_code == 200
        time.sleep(0.5)  # the last lines' writes
        log = server.log()
    finally:
        server.stop()
    records = [json.loads(line) for line in log.splitlines() if line.strip()]
    access = [r for r in records if r.get("logger") == "gunicorn.access"]
    app_lines = [r for r in records if r.get("event") == "request"]
    assert len(app_lines) >= 3
    if asked:
        assert len(access) >= 3, log[-2000:]
        assert any("GET /healthz" in json.dumps(r) for r in access)
    else:
        assert access == [], access[:3]
