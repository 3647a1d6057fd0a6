"""Bounded work: a game of bots alone answers 201 at once and is played by a background runner
(app.background.bot_runner), which hands unfinished games over across processes and restarts; in
process, on SQLite and PostgreSQL. The gunicorn runs are in test_bounded_work_under_gunicorn.py."""

from __future__ import annotations

import itertools
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import update

from app import create_app
from app.background.bot_runner import BotRunner
from app.persistence import GameRow
from app.services import bots, games
from app.services.creation import Player

EXPERTS = [{"bot": "expert"}, {"bot": "expert"}, {"bot": "expert"}, {"bot": "expert"}]


# ---------------------------------------------------------------- the runner alone
def _wait(condition: Any, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_the_runner_plays_every_game_in_turn_until_each_ends():
    left = {"a": 3, "b": 1, "c": 2}
    order: list[str] = []
    all_woken = threading.Event()  # the runner starts on the first wake: hold it till the last

    def play(game_id: str, seconds: float) -> bool:
        all_woken.wait(5)
        order.append(game_id)
        left[game_id] -= 1
        return left[game_id] > 0

    runner = BotRunner(play, list, duty=1.0, idle_seconds=0.2)
    for game_id in left:
        runner.wake(game_id)
    all_woken.set()
    _wait(lambda: not runner.running)
    assert order == ["a", "b", "c", "a", "c", "a"]  # round robin, slice by slice


def test_a_failing_game_does_not_stop_the_runner(caplog):
    played: list[str] = []

    def play(game_id: str, seconds: float) -> bool:
        if game_id == "bad":
            raise RuntimeError("boom")
        played.append(game_id)
        return False

    runner = BotRunner(play, list, duty=1.0, idle_seconds=0.2)
    runner.wake("bad")
    runner.wake("good")
    _wait(lambda: played == ["good"])
    runner.stop()
    assert "bot runner: bad failed" in caplog.text


def test_a_kept_runner_sweeps_for_stale_games_and_stops_when_asked():
    claims = iter([["old"], [], [], []])
    played: list[str] = []
    runner = BotRunner(lambda g, s: played.append(g) or False, lambda: next(claims, []),
                       duty=1.0, sweep_seconds=0.05)  # fmt: skip
    runner.start()
    _wait(lambda: played == ["old"])
    runner.stop(timeout=5)
    assert not runner.running


def test_the_runner_rests_as_long_as_it_worked_at_half_duty():
    stamps: list[float] = []

    def play(game_id: str, seconds: float) -> bool:
        stamps.append(time.monotonic())
        time.sleep(0.1)
        return len(stamps) < 3

    runner = BotRunner(play, list, duty=0.5, idle_seconds=0.2)
    runner.wake("g")
    _wait(lambda: not runner.running)
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert all(gap >= 0.19 for gap in gaps), gaps  # 0.1 s of work, then 0.1 s of rest


def test_runners_of_two_processes_sharing_a_machine_play_half_the_time_between_them(tmp_path):
    # Two runners on one lock file stand for two worker processes of one machine (flock locks
    # each open file apart, within one process too). Each plays 0.1 s slices of its own game.
    busy: list[tuple[float, float]] = []
    lock = threading.Lock()

    def play(game_id: str, seconds: float) -> bool:
        started = time.monotonic()
        time.sleep(0.1)
        with lock:
            busy.append((started, time.monotonic()))
        return True

    lock_path = str(tmp_path / "bot-runner.lock")
    runners = [BotRunner(play, list, duty=0.5, lock_path=lock_path) for _ in range(2)]
    began = time.monotonic()
    for n, runner in enumerate(runners):
        runner.wake(f"g{n}")
    time.sleep(2)
    for runner in runners:
        runner.stop()
    elapsed = time.monotonic() - began
    played = sum(end - start for start, end in busy)
    # At most half the time between them (resting outside the lock, each rested while the
    # other played: the machine played all the time).
    assert played / elapsed < 0.65, (played, elapsed)
    assert {start for start, _ in busy}, "both played"


# ---------------------------------------------------------------- through the API
@pytest.fixture
def own_client(database_url: str) -> Any:
    """A client of an app of its own, whose runner (and so its long matches) stops after."""
    application = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "off"})
    yield application.test_client()
    application.extensions["basra_bot_runner"].stop()
    application.extensions["basra_db"].dispose()


def test_a_game_of_bots_alone_answers_201_at_once_whatever_its_target(own_client):
    client = own_client
    started = time.monotonic()
    response = client.post("/games", json={"players": EXPERTS, "rules": {"target_score": 10000}})
    elapsed = time.monotonic() - started
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["status"] == "active" and body["moves"] == [] and body["state"]["round"] == 1
    assert elapsed < 2, f"creating took {elapsed:.2f}s"


def test_the_background_runner_plays_the_match_to_a_verified_end(client):
    body = client.post(
        "/games", json={"players": [{"bot": "random"}, {"bot": "greedy"}]}
    ).get_json()
    deadline = time.monotonic() + 120
    while (view := client.get(f"/games/{body['id']}").get_json())["status"] != "finished":
        assert time.monotonic() < deadline, view["round"]
        time.sleep(0.05)
    assert max(side["score"] for side in view["sides"]) >= 101
    assert client.get(f"/games/{body['id']}/verify").get_json()["ok"] is True


# ---------------------------------------------------------------- claims across processes
def _unplayed_bots_game(app: Any, seconds_ago: float) -> str:
    """A game of bots alone that no runner was told about, last changed ``seconds_ago``."""
    database = app.extensions["basra_db"]
    uow = app.extensions["basra_uow"]
    created = games.create_game(uow(), [Player(bot="random"), Player(bot="random")])
    assert created.bots_only
    with database.session() as session:
        session.execute(
            update(GameRow)
            .where(GameRow.id == created.game_id)
            .values(updated_at=datetime.now(UTC) - timedelta(seconds=seconds_ago))
        )
        session.commit()
    return created.game_id


def test_a_fresh_game_is_nobodys_to_claim(app):
    game_id = _unplayed_bots_game(app, seconds_ago=0)
    assert game_id not in bots.claim_stale_bot_games(app.extensions["basra_uow"](), 10)


def test_a_stale_game_is_claimed_by_exactly_one_of_many_claimants(app):
    uow = app.extensions["basra_uow"]
    game_id = _unplayed_bots_game(app, seconds_ago=60)
    results: list[list[str]] = []
    barrier = threading.Barrier(4)

    def claim() -> None:
        barrier.wait()
        results.append(bots.claim_stale_bot_games(uow(), 10))

    threads = [threading.Thread(target=claim) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sum(game_id in claimed for claimed in results) == 1, results
    assert game_id not in bots.claim_stale_bot_games(uow(), 10)  # it is fresh again


def test_a_claimed_game_is_played_slice_by_slice_to_its_end(app, client):
    uow = app.extensions["basra_uow"]
    game_id = _unplayed_bots_game(app, seconds_ago=60)
    versions = []
    for _ in range(10_000):
        more = bots.play_bots(uow(), game_id, 0.001)
        versions.append(client.get(f"/games/{game_id}").get_json()["version"])
        if not more:
            break
    assert not more and len(versions) >= 2, "one slice must not play a whole match"
    assert versions == sorted(versions)
    assert client.get(f"/games/{game_id}").get_json()["status"] == "finished"
    assert client.get(f"/games/{game_id}/verify").get_json()["ok"] is True
    assert bots.play_bots(uow(), game_id, 1.0) is False  # nothing left to play


def test_a_game_with_a_human_is_never_played_by_the_runner(app, client):
    body = client.post("/games", json={"players": [{"name": "Amira"}, {"bot": "random"}]})
    game_id = body.get_json()["id"]
    before = client.get(f"/games/{game_id}").get_json()["version"]
    assert bots.play_bots(app.extensions["basra_uow"](), game_id, 1.0) is False
    assert client.get(f"/games/{game_id}").get_json()["version"] == before


@pytest.mark.parametrize("target", [1, 10000])
def test_the_score_cap_for_bots_alone_is_gone(own_client, target):
    response = own_client.post(
        "/games", json={"players": EXPERTS[:2], "rules": {"target_score": target}}
    )
    assert response.status_code == 201
