"""Deadlines under the real server (``gunicorn app.wsgi:app``, as ``make run`` starts it, on
the embedded SQLite default): a turn clock runs out while nobody sends a request and the
server plays the turn by itself; a restart of every process loses no deadline.

Nothing asks about the clocked game while its clock runs: the log is read straight from the
database file, so the move can only have come from the sweeper.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from sqlalchemy import create_engine, text

from .servers import Gunicorn, migrate
from .support import write_report

pytestmark = [pytest.mark.slow]

TURN_SECONDS = 5  # the shortest clock the API allows


def timeouts_in_the_file(url: str, game_id: str) -> list[dict[str, Any]]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text(
                    "SELECT data FROM events WHERE game_id = :id AND type = 'TurnTimedOut' "
                    "ORDER BY seq"
                ),
                {"id": game_id},
            )
            return [json.loads(row[0]) if isinstance(row[0], str) else row[0] for row in rows]
    finally:
        engine.dispose()


def clocked_game(server: Gunicorn) -> str:
    response = requests.post(
        f"{server.url}/games",
        json={
            "players": [{"name": "Amira"}, {"name": "Badr"}],
            "rules": {"turn_seconds": TURN_SECONDS},
        },
        timeout=10,
    )
    assert response.status_code == 201, response.text
    assert response.json()["state"]["deadline"]
    game_id: str = response.json()["id"]
    return game_id


def wait_for_timeout(url: str, game_id: str, within: float) -> list[dict[str, Any]]:
    end = time.monotonic() + within
    while time.monotonic() < end:
        found = timeouts_in_the_file(url, game_id)
        if found:
            return found
        time.sleep(0.25)
    return []


def test_a_clock_runs_out_with_no_request_and_survives_a_restart(tmp_path):
    url = f"sqlite:///{tmp_path / 'basra.sqlite3'}"
    migrate(url)
    server = Gunicorn(url, tmp_path, workers=2)
    server.env["SWEEP_INTERVAL_SECONDS"] = "0.5"
    server.env.pop("SWEEPER", None)  # the served default: on
    try:
        server.start()
        left_behind = clocked_game(server)
        server.stop()  # every process gone before the deadline
        time.sleep(TURN_SECONDS + 1)
        assert timeouts_in_the_file(url, left_behind) == []  # nothing ran it meanwhile
        server.start()
        found = wait_for_timeout(url, left_behind, within=10)
        assert found and found[0]["seat"] == 0, server.log()[-2000:]

        started = time.monotonic()
        game_id = clocked_game(server)  # then not a single request about it
        found = wait_for_timeout(url, game_id, within=TURN_SECONDS + 10)
        waited = time.monotonic() - started
        assert found and found[0]["seat"] == 0 and found[0]["in_a_row"] == 1
        assert waited >= TURN_SECONDS - 0.5, waited
        verify = requests.get(f"{server.url}/games/{game_id}/verify", timeout=10).json()
        assert verify["ok"], verify
    finally:
        server.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    """One worker on SQLite, sweeping every 0.5 s."""
    folder = tmp_path_factory.mktemp("deadlines")
    url = f"sqlite:///{folder / 'basra.sqlite3'}"
    migrate(url)
    server = Gunicorn(url, folder, workers=1)
    server.env["SWEEP_INTERVAL_SECONDS"] = "0.5"
    server.env.pop("SWEEPER", None)
    try:
        server.start()
        yield server
    finally:
        server.stop()


def _poll_until_over(server: Gunicorn, game_id: str, within: float) -> tuple[dict[str, Any], float]:
    """A spectator's view every 0.2 s until the game is no longer active; (it, the slowest)."""
    slowest, state = 0.0, {"status": "active"}
    end = time.monotonic() + within
    while state["status"] == "active" and time.monotonic() < end:
        started = time.monotonic()
        state = requests.get(f"{server.url}/games/{game_id}", timeout=30).json()
        slowest = max(slowest, time.monotonic() - started)
        time.sleep(0.2)
    return state, slowest


def test_a_human_who_walks_away_from_experts_costs_the_server_one_turn(served: Gunicorn) -> None:
    """One human and three expert bots, to 10,000 points, a 5 s clock and one timeout allowed:
    the sweeper times the human out, the bot takes the seat and the match ends there, so a
    spectator's GET meanwhile stays fast (before: the sweeper played up to 100 rounds in one
    transaction, and a GET that came first did it itself, in 50 s)."""
    players = [{"name": "A"}, {"bot": "expert"}, {"bot": "expert"}, {"bot": "expert"}]
    rules = {"turn_seconds": TURN_SECONDS, "max_timeouts": 1, "target_score": 10000}
    created = requests.post(
        f"{served.url}/games", json={"players": players, "rules": rules}, timeout=10
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    state, slowest = _poll_until_over(served, game_id, TURN_SECONDS + 10)
    write_report("walked_away_from_experts", {"slowest_spectator_get_s": slowest})
    assert state["status"] == "finished" and state["resigned"] == 0, state
    assert slowest < 2, f"a spectator's GET took {slowest:.2f} s"
    assert requests.get(f"{served.url}/healthz", timeout=5).status_code == 200
    verify = requests.get(f"{served.url}/games/{game_id}/verify", timeout=10).json()
    assert verify["ok"], verify


def test_a_game_without_a_clock_ends_when_its_player_walks_away(served: Gunicorn) -> None:
    """No turn clock and nobody plays: the idle limit (5 s here, a day by default) passes, the
    sweeper makes the idle side forfeit, and the game is over with no request about it."""
    players = [{"name": "Amira"}, {"name": "Badr"}]
    created = requests.post(
        f"{served.url}/games", json={"players": players, "rules": {"idle_seconds": 5}}, timeout=10
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    time.sleep(5)
    state, _ = _poll_until_over(served, game_id, 10)
    assert state["status"] == "finished" and state["resigned"] == 0 and state["winner"] == 1
    logged = requests.get(f"{served.url}/games/{game_id}/events", timeout=10).json()["events"]
    assert logged[-3]["type"] == "Forfeited" and logged[-3]["data"]["reason"] == "idle"
    verify = requests.get(f"{served.url}/games/{game_id}/verify", timeout=10).json()
    assert verify["ok"], verify
