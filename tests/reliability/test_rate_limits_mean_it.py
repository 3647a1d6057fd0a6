"""Rate limits that mean what they say: tighter limits on creating and joining games, bots'
moves counted by what they cost, IPv6 clients counted by their /64, and counts in Redis shared by
every worker of an instance: checked in process and under gunicorn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from app import create_app
from app.persistence.schema import migrate_database

from .servers import Gunicorn, fresh_sqlite
from .support import assert_problem, bearer, fresh_redis

HUMAN_VS_BOT = {"players": [{"name": "A"}, {"bot": "random"}]}
WAITING = {"players": [{"name": "A"}, {"open": True}], "public": True}  # joined without invite


@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return fresh_sqlite(tmp_path_factory, "limits-mean-it")[1]


@pytest.fixture
def make_app(sqlite_url: str) -> Iterator[Any]:
    apps: list[Any] = []
    store = fresh_redis()

    def make(**limits: str) -> Any:
        config = {"DATABASE_URL": sqlite_url, "RATE_LIMIT": "1000 per minute",
                  "REDIS_URL": store, **limits}  # fmt: skip
        app = create_app(config)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["basra_db"].dispose()


def _post(app: Any, path: str, body: dict[str, Any], address: str, token: str | None = None):
    headers = bearer(token) if token else {}
    return app.test_client().post(path, json=body, headers=headers,
                                  environ_base={"REMOTE_ADDR": address})  # fmt: skip


def _limited(response: Any) -> None:
    assert_problem(response, 429, "rate_limited")
    assert int(response.headers["Retry-After"]) >= 1


def test_creating_games_has_its_own_tighter_limit_per_address(make_app):
    app = make_app(CREATE_RATE_LIMIT="3 per minute")
    for _ in range(3):
        assert _post(app, "/games", HUMAN_VS_BOT, "10.1.0.1").status_code == 201
    _limited(_post(app, "/games", HUMAN_VS_BOT, "10.1.0.1"))
    reads = app.test_client().get("/games", environ_base={"REMOTE_ADDR": "10.1.0.1"})
    assert reads.status_code == 200  # reading is not creating
    assert _post(app, "/games", HUMAN_VS_BOT, "10.1.0.2").status_code == 201


def test_a_game_of_bots_alone_counts_as_five_creations(make_app):
    app = make_app(CREATE_RATE_LIMIT="6 per minute")
    bots = {"players": [{"bot": "random"}, {"bot": "random"}]}
    assert _post(app, "/games", bots, "10.1.1.1").status_code == 201
    assert _post(app, "/games", HUMAN_VS_BOT, "10.1.1.1").status_code == 201
    _limited(_post(app, "/games", HUMAN_VS_BOT, "10.1.1.1"))


def test_joining_games_has_its_own_limit_per_address(make_app):
    app = make_app(JOIN_RATE_LIMIT="2 per minute")
    games = [_post(app, "/games", WAITING, "10.1.2.1").get_json()["id"] for _ in range(3)]
    for game_id in games[:2]:
        assert _post(app, f"/games/{game_id}/join", {"name": "B"}, "10.1.2.9").status_code == 201
    _limited(_post(app, f"/games/{games[2]}/join", {"name": "B"}, "10.1.2.9"))
    assert _post(app, f"/games/{games[2]}/join", {"name": "B"}, "10.1.2.8").status_code == 201


def test_ipv6_clients_are_counted_by_their_64_network(make_app):
    app = make_app(CREATE_RATE_LIMIT="2 per minute")
    for host in ("2001:db8:1:2::1", "2001:db8:1:2:ffff::7"):
        assert _post(app, "/games", HUMAN_VS_BOT, host).status_code == 201
    _limited(_post(app, "/games", HUMAN_VS_BOT, "2001:db8:1:2:abcd::3"))  # same /64
    assert _post(app, "/games", HUMAN_VS_BOT, "2001:db8:1:3::1").status_code == 201  # next /64
    assert _post(app, "/games", HUMAN_VS_BOT, "::ffff:10.1.3.1").status_code == 201  # IPv4


def test_an_ipv6_site_rotating_through_its_48_meets_the_network_limit(make_app):
    app = make_app(NETWORK_RATE_LIMIT="4 per minute")
    answers = [
        app.test_client().get("/rules", environ_base={"REMOTE_ADDR": f"2001:db8:7:{n:x}::1"})
        for n in range(5)
    ]  # five /64s of one /48
    assert [a.status_code for a in answers[:4]] == [200] * 4
    _limited(answers[4])
    other = app.test_client().get("/rules", environ_base={"REMOTE_ADDR": "2001:db8:8::1"})
    assert other.status_code == 200  # the next /48
    ipv4 = app.test_client().get("/rules", environ_base={"REMOTE_ADDR": "10.1.9.1"})
    assert ipv4.status_code == 200
    probe = app.test_client().get("/healthz", environ_base={"REMOTE_ADDR": "2001:db8:7:99::1"})
    assert probe.status_code == 200  # never limited


def test_a_move_answered_by_expert_bots_counts_what_the_bots_cost(make_app):
    app = make_app(BOT_WORK_LIMIT="25 per minute")
    body = {"players": [{"name": "A"}, {"bot": "expert"}, {"bot": "expert"}, {"bot": "expert"}]}
    game = _post(app, "/games", body, "10.1.4.1").get_json()
    token, game_id = game["seats"][0]["token"], game["id"]
    hand = app.test_client().get(f"/games/{game_id}", headers=bearer(token)).get_json()["hand"]
    first = _post(app, f"/games/{game_id}/moves", {"card": hand[0]}, "10.1.4.1", token)
    assert first.status_code == 201 and len(first.get_json()["moves"]) == 4  # 3 expert replies
    _limited(_post(app, f"/games/{game_id}/moves", {"card": hand[1]}, "10.1.4.1", token))


def test_moves_against_a_cheap_bot_are_not_held_back(make_app):
    app = make_app(BOT_WORK_LIMIT="25 per minute")
    game = _post(app, "/games", HUMAN_VS_BOT, "10.1.5.1").get_json()
    token, game_id = game["seats"][0]["token"], game["id"]
    for _ in range(12):  # one random bot's reply costs 1
        view = app.test_client().get(f"/games/{game_id}", headers=bearer(token)).get_json()
        if view["status"] != "active":
            break
        move = _post(app, f"/games/{game_id}/moves", {"card": view["hand"][0]}, "10.1.5.1", token)
        assert move.status_code == 201, move.get_json()


@pytest.mark.slow
def test_gunicorn_workers_share_one_count_in_redis(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'basra.sqlite3'}"
    migrate_database(url)
    server = Gunicorn(url, tmp_path, workers=4)
    server.env.update(RATE_LIMIT="12 per minute", REDIS_URL=fresh_redis())
    try:
        server.start()
        assert len(server.workers()) == 4
        # /healthz is exempt (the start-up probes did not count); a new connection for each
        # request spreads them over the workers, which would allow 4 x 12 if each counted alone.
        statuses = [
            requests.get(f"{server.url}/games?limit=1", timeout=10).status_code for _ in range(20)
        ]
        assert statuses.count(200) == 12 and statuses.count(429) == 8, statuses
    finally:
        server.stop()
