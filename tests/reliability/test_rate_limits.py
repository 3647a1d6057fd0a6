"""Rate limits: per address and per seat token, each answered 429 problem+json with a truthful
Retry-After; /healthz is never limited. In memory (per process), in the SQLite file that is the
default without Redis, and in Redis (shared by every process: two apps stand in for two gunicorn
workers), at 127.0.0.1:6379, database 15."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from app import create_app
from app.cli import migrate_database

from .support import assert_problem, bearer

REDIS_URL = "redis://127.0.0.1:6379/15"
LIMITS = {"RATE_LIMIT": "5 per minute", "TOKEN_RATE_LIMIT": "3 per minute"}


def _redis() -> Any:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.exceptions.ConnectionError:
        pytest.skip(f"Redis does not answer at {REDIS_URL}")
    return client


@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('limits') / 'basra.sqlite3'}"
    migrate_database(url)
    return url


@pytest.fixture(params=["memory", "sqlite-file", "redis"])
def storage(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[dict[str, str]]:
    if request.param == "memory":
        yield {"RATE_LIMIT_STORAGE": "memory://"}
        return
    if request.param == "sqlite-file":  # the default without Redis, a fresh file per test
        yield {"RATE_LIMIT_STORAGE": f"basra-sqlite://{tmp_path / 'ratelimits.sqlite3'}"}
        return
    redis = _redis()
    redis.flushdb()
    try:
        yield {"REDIS_URL": REDIS_URL}
    finally:
        redis.flushdb()
        redis.close()


@pytest.fixture
def make_app(sqlite_url: str, storage: dict[str, str]) -> Iterator[Any]:
    apps: list[Any] = []

    def make(**limits: str) -> Any:
        app = create_app({"DATABASE_URL": sqlite_url, **storage, **(limits or LIMITS)})
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["basra_db"].dispose()


def _get(app: Any, path: str, address: str, token: str | None = None) -> Any:
    headers = bearer(token) if token else {}
    return app.test_client().get(path, headers=headers, environ_base={"REMOTE_ADDR": address})


def _assert_limited(response: Any, window: int = 60) -> int:
    body = assert_problem(response, 429, "rate_limited")
    assert body["detail"]
    retry_after = int(response.headers["Retry-After"])
    assert 1 <= retry_after <= window
    return retry_after


def test_the_address_limit_answers_429_with_retry_after(make_app: Any) -> None:
    app = make_app()
    for _ in range(5):
        assert _get(app, "/games", "10.0.0.1").status_code == 200
    _assert_limited(_get(app, "/games", "10.0.0.1"))
    _assert_limited(_get(app, "/games/unknown", "10.0.0.1"))  # every route counts
    assert _get(app, "/games", "10.0.0.2").status_code == 200  # another address is not limited


def test_the_token_limit_follows_the_token_across_addresses(make_app: Any) -> None:
    app = make_app()
    created = app.test_client().post(
        "/games",
        json={"players": [{"name": "A"}, {"bot": "random"}]},
        environ_base={"REMOTE_ADDR": "10.0.1.0"},
    )
    game_id, token = created.get_json()["id"], created.get_json()["seats"][0]["token"]
    path = f"/games/{game_id}"
    for n in range(3):
        assert _get(app, path, f"10.0.1.{n + 1}", token).status_code == 200
    _assert_limited(_get(app, path, "10.0.1.9", token))  # a fresh address, the same token
    assert _get(app, path, "10.0.1.9").status_code == 200  # that address is fine without it
    other = (
        app.test_client()
        .post(
            "/games",
            json={"players": [{"name": "B"}, {"bot": "random"}]},
            environ_base={"REMOTE_ADDR": "10.0.2.0"},
        )
        .get_json()
    )
    other_token = other["seats"][0]["token"]
    assert _get(app, f"/games/{other['id']}", "10.0.1.9", other_token).status_code == 200


def test_healthz_is_never_limited(make_app: Any) -> None:
    app = make_app()
    for _ in range(20):
        assert _get(app, "/healthz", "10.0.3.1").status_code == 200


def test_retry_after_is_truthful(make_app: Any) -> None:
    app = make_app(RATE_LIMIT="2 per 2 seconds", TOKEN_RATE_LIMIT="100 per minute")
    for _ in range(20):  # on a busy machine the window may pass before the third request
        response = _get(app, "/games?limit=1", "10.0.4.1")
        if response.status_code == 429:
            break
        assert response.status_code == 200
    retry_after = _assert_limited(response, window=2)
    time.sleep(retry_after + 0.2)
    again = _get(app, "/games?limit=1", "10.0.4.1")
    if again.status_code == 429:  # seen once under heavy load on the shared SQLite-file store
        time.sleep(1.0)  # (see the 2.0.0 closing note): at most one second late, never more
        again = _get(app, "/games?limit=1", "10.0.4.1")
    assert again.status_code == 200


def test_limits_off_means_off(sqlite_url: str) -> None:
    app = create_app({"DATABASE_URL": sqlite_url, "RATE_LIMIT": "off",
                      "CREATE_RATE_LIMIT": "1 per minute"})  # fmt: skip
    assert all(_get(app, "/games", "10.0.5.1").status_code == 200 for _ in range(30))
    client = app.test_client()
    body = {"players": [{"name": "A"}, {"bot": "random"}]}
    assert all(client.post("/games", json=body).status_code == 201 for _ in range(3))
    app.extensions["basra_db"].dispose()


def test_redis_counts_are_shared_by_every_worker(sqlite_url: str) -> None:
    redis = _redis()
    redis.flushdb()
    apps = [
        create_app({"DATABASE_URL": sqlite_url, "REDIS_URL": REDIS_URL, **LIMITS}) for _ in range(2)
    ]
    try:
        statuses = [_get(apps[n % 2], "/games", "10.0.6.1").status_code for n in range(6)]
        assert statuses == [200] * 5 + [429]
        assert redis.keys("*"), "the counts should live in Redis"
    finally:
        redis.flushdb()
        redis.close()
        for app in apps:
            app.extensions["basra_db"].dispose()


def test_the_token_limit_counts_every_route_together(make_app: Any) -> None:
    app = make_app()
    created = (
        app.test_client()
        .post(
            "/games",
            json={"players": [{"name": "C"}, {"bot": "random"}]},
            environ_base={"REMOTE_ADDR": "10.0.7.0"},
        )
        .get_json()
    )
    token, path = created["seats"][0]["token"], f"/games/{created['id']}"
    for n, route in enumerate(["", "/events", "/moves"]):
        assert _get(app, path + route, f"10.0.7.{n + 1}", token).status_code == 200
    _assert_limited(_get(app, path + "/verify", "10.0.7.9", token))
