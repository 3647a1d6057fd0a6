"""Two instances, one database, a real balancer: two gunicorns on one fresh PostgreSQL (a cluster
of this test's own), behind Debian's HAProxy running the project's deploy/haproxy.cfg, all on
loopback and free ports. Several clients play games through the balancer while one instance,
master and workers, is frozen until HAProxy has handed it a request and then killed with SIGKILL.

A request cut by the kill comes back from HAProxy as a 502 (or the connection drops): the client
does not know whether its move was applied, so it sends the very same request with the same
Idempotency-Key until it gets an answer, which the other instance gives. Afterwards every move a
client saw acknowledged is in its game's log exactly once, no client move is missing or extra,
and every game in the database passes /verify.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from .balancer import HAProxy, haproxy, require_haproxy
from .load import (
    LOST,
    TIMEOUT,
    Http,
    PlayedGame,
    SoloPlayer,
    Stats,
    assert_no_secret_in,
    audit_games,
    check_solo_players,
)
from .servers import Gunicorn, PostgresCluster, migrate, postgres_cluster
from .support import problem_errors, write_report
from .test_observability import scrape, value

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

WORKERS = 2  # per instance: two instances share this machine's two cores with the database


class BalancedHttp(Http):
    """Http through HAProxy: a 502/503/504 that HAProxy wrote itself (not a problem document)
    means the replica died under the request, so the answer is lost, as a dropped connection's."""

    balancer_answers: Counter[int]

    def send(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", {}))
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            response = self.session.request(
                method, self.base + path, headers=headers, timeout=TIMEOUT, **kwargs
            )
        except LOST:
            self.stats.count(None)
            self.session.close()
            self.session = requests.Session()
            return None
        content_type = response.headers.get("Content-Type", "")
        if response.status_code in (502, 503, 504) and "problem+json" not in content_type:
            self.stats.count(None)
            with self.stats.lock:
                self.stats.outage_answers[f"haproxy {response.status_code}"] += 1
            return None
        self.stats.count(response.status_code)
        wrong = problem_errors(response.status_code, content_type, response.content)
        if wrong:
            self.stats.error(f"{method} {path}: {'; '.join(wrong)}")
        return response


class RecordingPlayer(SoloPlayer):
    """A SoloPlayer that keeps every acknowledged move: key -> (game, n, card)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.acknowledged: dict[str, tuple[str, int, str]] = {}

    def until_answered(self, game: PlayedGame, body: dict[str, Any], key: str) -> Any:
        answer = super().until_answered(game, body, key)
        if answer is not None:
            mine = answer["moves"][0]  # the caller's move comes first, then the bot's replies
            assert mine["seat"] == 0 and mine["card"] == body["card"].upper(), answer["moves"]
            recorded = (game.game_id, mine["n"], mine["card"])
            if self.acknowledged.setdefault(key, recorded) != recorded:
                self.http.stats.error(f"key {key} answered {recorded}, earlier otherwise")
        return answer


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresCluster]:
    require_haproxy()
    try:
        with postgres_cluster() as running:
            yield running
    except FileNotFoundError as error:
        pytest.skip(f"cannot start a PostgreSQL cluster of our own: {error}")


@contextlib.contextmanager
def two_instances(
    cluster: PostgresCluster, name: str, tmp_path: Path
) -> Iterator[tuple[list[Gunicorn], HAProxy]]:
    url = cluster.create_database(name)
    migrate(url)
    instances = [Gunicorn(url, tmp_path, WORKERS) for _ in range(2)]
    try:
        for instance in instances:
            instance.start()
        with haproxy([f"127.0.0.1:{i.port}" for i in instances], tmp_path) as balancer:
            balancer.wait_for({"api-1": "UP", "api-2": "UP"})
            yield instances, balancer
    finally:
        for instance in instances:
            instance.stop()


def served(instance: Gunicorn) -> int:
    """Game requests in the instance's JSON log (HAProxy's /readyz checks left out)."""
    return instance.log().count('"route": "/games')


def wait_for_a_request_at(balancer: HAProxy, label: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while balancer.in_flight(label) == 0:
        assert time.monotonic() < deadline, f"no request reached the frozen {label}"
        time.sleep(0.05)


def check_acknowledged(base: str, players: list[RecordingPlayer]) -> int:
    """Each acknowledged move is in its game's log once, as the seat's card with that number."""
    games = {game_id for p in players for game_id, _, _ in p.acknowledged.values()}
    logs = audit_games(base, sorted(games))
    checked = 0
    for player in players:
        for key, (game_id, n, card) in player.acknowledged.items():
            played = [
                e["data"]
                for e in logs[game_id]["events"]
                if e["type"] == "CardPlayed" and e["data"]["n"] == n
            ]
            assert len(played) == 1, f"{game_id} move {n} (key {key}) is logged {len(played)} times"
            assert (played[0]["seat"], played[0]["card"]) == (0, card), (game_id, n, played[0])
            checked += 1
    return checked


def kill_one_of_two(
    cluster: PostgresCluster, tmp_path: Path, clients: int, seconds: float, kills: int, name: str
) -> None:
    """``kills`` rounds of: load on both, SIGKILL one instance whole, load on the other, restart."""
    stats = Stats()
    rng = random.Random(13)
    with two_instances(cluster, name, tmp_path) as (instances, balancer):
        # No X-Request-ID sent: HAProxy makes one, the app keeps it, and both logs show it.
        rid = requests.get(f"{balancer.url}/games", timeout=10).headers["X-Request-ID"]
        deadline = time.monotonic() + seconds
        players = [
            RecordingPlayer(
                BalancedHttp(balancer.url, stats), random.Random(n), deadline, ("random", "greedy")
            )
            for n in range(clients)
        ]
        threads = [threading.Thread(target=p.run, daemon=True) for p in players]
        for thread in threads:
            thread.start()
        killed: list[dict[str, Any]] = []
        try:
            for round_ in range(kills):
                victim = instances[round_ % 2]
                label = f"api-{round_ % 2 + 1}"
                time.sleep(1.5 + rng.random())
                before = served(victim)
                assert before > 0, f"{label} served nothing before its kill: no balancing"
                lost_before = stats.lost
                # Freeze it first, so the kill is sure to cut a request in flight: killed at a
                # random instant, it was sometimes between requests and the test proved nothing.
                victim.freeze()
                wait_for_a_request_at(balancer, label)
                victim.kill()  # master and workers at once
                balancer.wait_for({label: "DOWN"})
                time.sleep(1.0)  # the survivor carries the load alone
                killed.append({"instance": label, "requests_it_served": before})
                if round_ + 1 < kills:
                    victim.start()
                    balancer.wait_for({label: "UP"})
                killed[-1]["answers_lost_at_kill"] = stats.lost - lost_before
        finally:
            for player in players:
                player.deadline = min(player.deadline, time.monotonic() + 1)
            for thread in threads:
                thread.join(timeout=120)
                assert not thread.is_alive(), "a load client did not stop"
        survivor = instances[1 - (kills - 1) % 2]
        assert stats.errors == [], stats.errors[:5]
        assert stats.lost > 0, "no request was cut by the kill: the test proved nothing"
        acknowledged = check_acknowledged(balancer.url, players)
        checked = check_solo_players(balancer.url, players)  # every game verifies
        assert acknowledged == checked["moves"] > 0
        assert f"id={rid}" in balancer.log()
        assert sum(f'"request_id": "{rid}"' in i.log() for i in instances) == 1
        tokens = [g.token for p in players for g in p.games]
        for log in (balancer.log(), *(i.log() for i in instances)):
            assert_no_secret_in(log, tokens)
        write_report(
            name,
            {
                "clients": clients,
                "instances": 2,
                "workers_per_instance": WORKERS,
                "kills": killed,
                "acknowledged_moves_checked": acknowledged,
                "requests_after_last_kill_by_survivor": served(survivor),
                "balancer_answers": dict(stats.outage_answers),
                **checked,
                **stats.summary(),
            },
        )


def test_a_killed_instance_loses_no_acknowledged_move(cluster: PostgresCluster, tmp_path: Path):
    kill_one_of_two(cluster, tmp_path, clients=8, seconds=60, kills=1, name="two_instances")


@pytest.mark.soak
def test_soak_instances_killed_in_turn(cluster: PostgresCluster, tmp_path: Path) -> None:
    kill_one_of_two(cluster, tmp_path, clients=24, seconds=600, kills=6, name="two_instances-soak")


def test_through_the_balancer_a_players_moves_start_from_images(
    cluster: PostgresCluster, tmp_path: Path
) -> None:
    """A player's keep-alive connection through deploy/haproxy.cfg: its moves against a bot
    reach the instance that kept the game's image, so few pay a refused save and a load
    (app/services/game_images.py). Two players at once, so that leastconn has a choice."""
    with two_instances(cluster, "images_behind_balancer", tmp_path) as (instances, balancer):
        sessions = [requests.Session() for _ in range(2)]
        games = [_game_against_greedy(session, balancer.url) for session in sessions]
        moves = 0
        for _ in range(30):
            for n, session in enumerate(sessions):
                game_id, token, state = games[n]
                if state["status"] != "active":
                    continue
                answer = _play_first_card(session, balancer.url, game_id, token, state)
                assert answer.status_code == 201, answer.text[:300]
                games[n] = (game_id, token, answer.json()["state"])
                moves += 1
        scrapes = [scrape(instance) for instance in instances]  # every worker's, added up
        used = sum(value(s, "basra_game_images_total", outcome="used") for s in scrapes)
        missed = sum(value(s, "basra_game_images_total", outcome="missed") for s in scrapes)
        assert used + missed <= moves
        assert all(served(instance) > 0 for instance in instances)  # both had players
        assert used >= 0.9 * moves, (used, missed, moves)  # seen: 60 of 60


def test_many_players_at_once_keep_their_moves_on_the_instance_that_kept_the_image(
    cluster: PostgresCluster, tmp_path: Path
) -> None:
    """Eight players at once through deploy/haproxy.cfg: each keeps its server connection
    (``http-reuse never``), so its moves reach the worker that kept its game's image. With
    the connections to a replica shared among clients, a move went over whichever was idle,
    to any worker: about one move in ten started from an image."""
    with two_instances(cluster, "images_many_players", tmp_path) as (instances, balancer):
        moves: list[int] = []
        failures: list[str] = []

        def play() -> None:
            session, played = requests.Session(), 0
            try:
                game_id, token, state = _game_against_greedy(session, balancer.url)
                for _ in range(20):
                    if state["status"] != "active":
                        break
                    answer = _play_first_card(session, balancer.url, game_id, token, state)
                    if answer.status_code != 201:
                        failures.append(answer.text[:300])
                        return
                    state, played = answer.json()["state"], played + 1
            finally:
                moves.append(played)

        threads = [threading.Thread(target=play) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not failures, failures
        scrapes = [scrape(instance) for instance in instances]
        used = sum(value(s, "basra_game_images_total", outcome="used") for s in scrapes)
        assert sum(moves) >= 8 * 15
        assert used >= 0.9 * sum(moves), (used, sum(moves))


def _game_against_greedy(session: requests.Session, url: str) -> tuple[str, str, dict[str, Any]]:
    """A new game against a greedy bot: its id, the human seat's token, its state."""
    created = session.post(f"{url}/games", timeout=10, json={
        "players": [{"name": "Amira"}, {"bot": "greedy"}]}).json()  # fmt: skip
    return created["id"], created["seats"][0]["token"], created["state"]


def _play_first_card(
    session: requests.Session, url: str, game_id: str, token: str, state: dict[str, Any]
) -> requests.Response:
    return session.post(f"{url}/games/{game_id}/moves", json={"card": state["hand"][0]},
                        headers={"Authorization": f"Bearer {token}"}, timeout=10)  # fmt: skip
