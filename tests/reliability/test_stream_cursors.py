"""A stream's cursor comes from the database, never from the client.

A `Last-Event-ID` (or `?after=`) past the game's version is read as the game's version: the
stream waits for the next record, sending its keep-alives, and the game's other streams are
not led to read the log again and again for records that are not there (before, one such
stream made every later stream of the game spin a core, even after their clients left).
Through real gunicorn, one worker, on both databases.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from .servers import Gunicorn, fresh_sqlite, gunicorn, migrated_postgres
from .support import bearer, write_report
from .test_streams import Follower

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (/proc/<pid>/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def one_worker(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Gunicorn]:
    """One gthread worker; keep-alives every 0.5 s, so a stream whose client left ends soon."""
    env = {"STREAM_KEEPALIVE_SECONDS": "0.5"}
    if request.param == "sqlite":
        folder, url = fresh_sqlite(tmp_path_factory, "stream-cursors")
        with gunicorn(url, folder, workers=1, env=env) as server:
            yield server
        return
    if not request.getfixturevalue("postgres_server"):
        pytest.skip("PostgreSQL is not running")
    folder = tmp_path_factory.mktemp("stream-cursors-pg")
    with migrated_postgres() as url, gunicorn(url, folder, workers=1, env=env) as server:
        yield server


def _game(server: Gunicorn) -> tuple[str, str, dict[str, Any]]:
    created = requests.post(
        f"{server.url}/games",
        json={"players": [{"name": "Amira"}, {"bot": "greedy"}]},
        timeout=30,
    )
    assert created.status_code == 201, created.text
    body = created.json()
    return body["id"], body["seats"][0]["token"], body["state"]


def _move(server: Gunicorn, game_id: str, token: str) -> list[dict[str, Any]]:
    hand = requests.get(f"{server.url}/games/{game_id}", headers=bearer(token), timeout=30)
    answer = requests.post(
        f"{server.url}/games/{game_id}/moves",
        json={"card": hand.json()["hand"][0]},
        headers=bearer(token),
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    moves: list[dict[str, Any]] = answer.json()["moves"]
    return moves


def test_a_cursor_from_the_future_leaves_the_worker_idle_and_the_streams_live(
    one_worker: Gunicorn,
) -> None:
    server = one_worker
    (worker,) = server.workers()
    game_id, token, state = _game(server)
    url = f"{server.url}/games/{game_id}/stream"
    future = Follower(url, headers={"Last-Event-ID": "999999"})
    query = Follower(f"{url}?after=999999")
    normal = Follower(url)
    try:
        assert normal.take(1, timeout=5)[0][0].id == state["version"]  # the first deal
        moves = _move(server, game_id, token)
        for follower in (future, query, normal):  # each stream is at the game's version
            got = follower.take(len(moves), timeout=5)
            assert [record.data["n"] for record, _ in got] == [move["n"] for move in moves]
    finally:
        for follower in (future, query, normal):
            follower.close()
    time.sleep(1.5)  # each stream notices its client left at its next keep-alive
    started, spent = time.monotonic(), cpu_seconds(worker)
    time.sleep(3)
    used = (cpu_seconds(worker) - spent) / (time.monotonic() - started)
    write_report(f"stream_cursors-{server.env['DATABASE_URL'].split(':')[0]}", {"cpu_per_s": used})
    assert used < 0.2, f"the worker used {used:.2f} CPU-s a second with no client"
    # And a stream opened after all that still gets the game's new records.
    later = Follower(url, headers={"Last-Event-ID": "999999"})
    try:
        moves = _move(server, game_id, token)
        got = later.take(len(moves), timeout=5)
        assert [record.data["n"] for record, _ in got] == [move["n"] for move in moves]
    finally:
        later.close()
