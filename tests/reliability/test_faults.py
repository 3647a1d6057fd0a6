"""Faults, on a PostgreSQL cluster of this test's own (initdb into a temporary directory, on a
free port of 127.0.0.1; the machine's shared server is never touched) under gunicorn:

- PostgreSQL stopped and started again in the middle of a load run, cleanly (``-m fast``) and as
  a crash (``-m immediate``): requests during the outage fail cleanly (503 problem+json), the
  service recovers by itself, and no game is left half-written;
- gunicorn workers killed (SIGKILL) in the middle of requests: no partial move.

Clients retry a lost or refused move with the same Idempotency-Key, so they know exactly which
moves were applied; every game must then hold exactly those, and /verify every game.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from .load import Http, SoloPlayer, Stats, assert_no_secret_in, check_solo_players
from .servers import Gunicorn, PostgresCluster, gunicorn, migrate, postgres_cluster
from .support import assert_problem, write_report

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresCluster]:
    try:
        with postgres_cluster() as running:
            yield running
    except FileNotFoundError as error:
        pytest.skip(f"cannot start a PostgreSQL cluster of our own: {error}")


@contextlib.contextmanager
def serving(cluster: PostgresCluster, name: str, tmp_path: Any) -> Iterator[Gunicorn]:
    url = cluster.create_database(name)
    migrate(url)
    with gunicorn(url, tmp_path, workers=4) as server:
        yield server


def start_players(
    server: Gunicorn, stats: Stats, clients: int, seconds: float, bots: tuple[str, ...]
) -> tuple[list[SoloPlayer], list[threading.Thread]]:
    deadline = time.monotonic() + seconds
    players = [
        SoloPlayer(Http(server.url, stats), random.Random(n), deadline, bots)
        for n in range(clients)
    ]
    threads = [threading.Thread(target=player.run, daemon=True) for player in players]
    for thread in threads:
        thread.start()
    return players, threads


def join(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join(timeout=300)
        assert not thread.is_alive(), "a load client did not stop"


def _outage_is_clean(server: Gunicorn, game_id: str, token: str) -> int:
    """While the database is down every kind of request is a 503 problem (none a 500)."""
    checked = 0
    for method, path, kwargs in [
        ("get", "/healthz", {}),
        ("get", "/games", {}),
        ("get", f"/games/{game_id}", {}),
        ("get", f"/games/{game_id}/events", {}),
        ("get", f"/games/{game_id}/verify", {}),
        ("post", "/games", {"json": {"players": [{"name": "x"}, {"bot": "random"}]}}),
        (
            "post",
            f"/games/{game_id}/moves",
            {"json": {"card": "7D"}, "headers": {"Authorization": f"Bearer {token}"}},
        ),
    ]:
        response = requests.request(method, server.url + path, timeout=30, **kwargs)
        assert_problem(response, 503, "unavailable")
        checked += 1
    return checked


def _recovery_seconds(server: Gunicorn, game_id: str, since: float, limit: float = 60) -> float:
    """How long after the database came back the service answers again, by itself."""
    while time.monotonic() - since < limit:
        with contextlib.suppress(requests.RequestException):
            if requests.get(f"{server.url}/games/{game_id}", timeout=5).status_code == 200:
                return time.monotonic() - since
        time.sleep(0.05)
    raise AssertionError(f"the service did not recover within {limit}s of the database")


def restart_mid_load(
    cluster: PostgresCluster, tmp_path: Any, clients: int, restarts: int, down_for: float, name: str
) -> None:
    stats = Stats()
    with serving(cluster, f"basra_restart_{restarts}", tmp_path) as server:
        seconds = 3 + restarts * (down_for + 4)
        players, threads = start_players(server, stats, clients, seconds, ("random", "greedy"))
        outages: list[dict[str, Any]] = []
        try:
            time.sleep(2)
            for n in range(restarts):
                game = next(p.games[0] for p in players if p.games)
                mode = "immediate" if n % 2 else "fast"
                cluster.stop(mode)
                stopped = time.monotonic()
                probes = _outage_is_clean(server, game.game_id, game.token)
                time.sleep(max(0.0, down_for - (time.monotonic() - stopped)))
                cluster.start()
                back = time.monotonic()
                outages.append(
                    {
                        "mode": mode,
                        "down_seconds": round(back - stopped, 2),
                        "probes_503": probes,
                        "recovered_after": round(_recovery_seconds(server, game.game_id, back), 2),
                    }
                )
                time.sleep(2)
        finally:
            if not cluster.running():
                cluster.start()
            join(threads)
        assert stats.errors == [], stats.errors[:5]
        assert stats.lost == 0, "a database outage must not cost a connection to the app"
        assert stats.outage_answers["unavailable"] > 0, "no request met the outage"
        checked = check_solo_players(server.url, players)
        assert_no_secret_in(server.log(), [g.token for p in players for g in p.games])
        write_report(
            name,
            {
                "clients": clients,
                "restarts": outages,
                **checked,
                "answered_503_during_outages": stats.outage_answers["unavailable"],
                **stats.summary(),
            },
        )


def kill_workers_mid_load(
    cluster: PostgresCluster, tmp_path: Any, clients: int, kills: int, name: str
) -> None:
    stats = Stats()
    rng = random.Random(5)
    with serving(cluster, f"basra_kill_{kills}", tmp_path) as server:
        players, threads = start_players(server, stats, clients, 600, ("greedy", "expert"))
        killed = 0
        try:
            time.sleep(1.5)
            # At least `kills`, and more (up to 3x) until one of them has cut a request.
            for _ in range(3 * kills):
                if killed >= kills and stats.lost > 0:
                    break
                workers = server.workers()
                if workers:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(rng.choice(workers), signal.SIGKILL)  # a worker of our gunicorn
                        killed += 1
                time.sleep(0.3 + rng.random() * 0.4)
            time.sleep(1)  # a little play after the last kill
        finally:
            for player in players:
                player.deadline = time.monotonic()
            join(threads)
        server.wait_healthy(60)
        assert stats.errors == [], stats.errors[:5]
        assert killed >= kills
        assert stats.lost > 0, "no request was cut by a killed worker: the test proved nothing"
        checked = check_solo_players(server.url, players)
        assert_no_secret_in(server.log(), [g.token for p in players for g in p.games])
        write_report(
            name,
            {
                "clients": clients,
                "workers_killed": killed,
                "requests_cut_mid_way": stats.lost,
                **checked,
                **stats.summary(),
            },
        )


def test_postgres_restarted_mid_load(cluster: PostgresCluster, tmp_path: Any) -> None:
    restart_mid_load(cluster, tmp_path, clients=16, restarts=2, down_for=2, name="fault_restart")


def test_gunicorn_workers_killed_mid_request(cluster: PostgresCluster, tmp_path: Any) -> None:
    kill_workers_mid_load(cluster, tmp_path, clients=24, kills=12, name="fault_kill")


@pytest.mark.soak
def test_soak_postgres_restarted_mid_load(cluster: PostgresCluster, tmp_path: Any) -> None:
    restart_mid_load(
        cluster, tmp_path, clients=48, restarts=10, down_for=4, name="fault_restart-soak"
    )


@pytest.mark.soak
def test_soak_gunicorn_workers_killed_mid_request(cluster: PostgresCluster, tmp_path: Any) -> None:
    kill_workers_mid_load(cluster, tmp_path, clients=48, kills=150, name="fault_kill-soak")
