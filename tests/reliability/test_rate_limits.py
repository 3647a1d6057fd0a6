"""Rate limits: per address and per seat token, each answered 429 problem+json with a truthful
Retry-After; /healthz is never limited. In memory (per process: the default without Redis), and
in Redis (shared by every process: two apps stand in for two gunicorn workers), at
127.0.0.1:6379, database 15."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

import pytest

from app import create_app

from .servers import fresh_sqlite
from .support import REDIS_URL, assert_problem, bearer, fresh_redis

LIMITS = {"RATE_LIMIT": "5 per minute", "TOKEN_RATE_LIMIT": "3 per minute"}


def _redis() -> Any:
    import redis

    return redis.Redis.from_url(fresh_redis(), socket_connect_timeout=2)


@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return fresh_sqlite(tmp_path_factory, "limits")[1]


@pytest.fixture(params=["memory", "redis"])
def storage(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    if request.param == "memory":
        yield {}  # the default without REDIS_URL
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


WINDOW = 2  # seconds: "2 per 2 seconds", the limit each case below fills
TRUTHFUL = {  # which limit refuses: flask-limiter's per address and per token, our create budget
    "address": {"RATE_LIMIT": "2 per 2 seconds", "TOKEN_RATE_LIMIT": "100 per minute"},
    "token": {"RATE_LIMIT": "100 per minute", "TOKEN_RATE_LIMIT": "2 per 2 seconds"},
    "create": {"RATE_LIMIT": "100 per minute", "CREATE_RATE_LIMIT": "2 per 2 seconds"},
}


@pytest.mark.parametrize("refuser", sorted(TRUTHFUL))
def test_retry_after_is_truthful(make_app: Any, refuser: str) -> None:
    """Retry-After is the time until the moving window frees a slot, rounded up: waiting that
    long is enough, and it is no longer than that (nor than the window)."""
    app = make_app(**TRUTHFUL[refuser])
    client = app.test_client()
    address = f"10.0.4.{len(refuser)}"
    token = None
    if refuser == "token":
        created = client.post("/games", json={"players": [{"name": "A"}, {"bot": "random"}]},
                              environ_base={"REMOTE_ADDR": "10.0.4.99"}).get_json()  # fmt: skip
        token = created["seats"][0]["token"]

    def send() -> Any:
        if refuser == "create":
            return client.post("/games", json={"players": [{"name": "A"}, {"bot": "random"}]},
                               environ_base={"REMOTE_ADDR": address})  # fmt: skip
        return _get(app, "/games?limit=1", address, token)

    hits: list[tuple[float, float]] = []  # (sent, answered) of each request the window counted
    for _ in range(20):  # on a busy machine the window may pass before the third request
        sent = time.time()
        response = send()
        answered = time.time()
        if response.status_code == 429:
            break
        assert response.status_code in (200, 201)
        hits.append((sent, answered))
    retry_after = _assert_limited(response, window=WINDOW)
    # The window holds the last two hits; it frees a slot when the older one is WINDOW old.
    oldest_sent, oldest_answered = hits[-2]
    shortest, longest = oldest_sent + WINDOW - answered, oldest_answered + WINDOW - sent
    assert max(1, math.ceil(shortest)) <= retry_after <= max(1, math.ceil(longest))
    time.sleep(retry_after)  # right after waiting that long, the request goes through
    assert send().status_code in (200, 201)


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


def test_with_redis_down_the_limits_hold_in_each_process_and_readyz_says_so(
    sqlite_url: str,
) -> None:
    # Nothing listens on port 1: every call to "Redis" fails at once.
    app = create_app({"DATABASE_URL": sqlite_url, "REDIS_URL": "redis://127.0.0.1:1/0", **LIMITS})
    try:
        statuses = [_get(app, "/games", "10.0.7.1").status_code for _ in range(6)]
        assert statuses == [200] * 5 + [429]  # not 500: counted in this process meanwhile
        created = app.test_client().post(
            "/games", json={"players": [{"name": "A"}, {"bot": "random"}]},
            environ_base={"REMOTE_ADDR": "10.0.7.2"},
        )  # fmt: skip
        assert created.status_code == 201  # the creation budget too
        ready = app.test_client().get("/readyz")
        assert ready.status_code == 200 and ready.get_json()["rate_limits"] == "fallback"
    finally:
        app.extensions["basra_db"].dispose()


def test_readyz_names_the_storage_while_it_answers(make_app: Any) -> None:
    assert make_app().test_client().get("/readyz").get_json()["rate_limits"] == "storage"


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


def test_flask_limiter_leaves_the_apps_own_retry_after_alone(make_app: Any) -> None:
    """flask-limiter rewrites every answer's Retry-After from its own count: a 503's "retry in
    a second" became the address window's time left (up to a minute)."""
    from app.api.errors import problem

    app = make_app(RATE_LIMIT="5 per minute", TOKEN_RATE_LIMIT="100 per minute")
    app.add_url_rule("/down", "down", lambda: problem("unavailable", "down", {"Retry-After": "1"}))
    assert _get(app, "/games?limit=1", "10.0.8.1").status_code == 200
    response = _get(app, "/down", "10.0.8.1")
    assert response.status_code == 503 and response.headers["Retry-After"] == "1"


def test_retry_after_comes_only_with_a_429_or_a_503(make_app: Any) -> None:
    app = make_app(RATE_LIMIT="5 per minute", TOKEN_RATE_LIMIT="100 per minute")
    answers = [_get(app, path, "10.0.9.1") for path in ("/games?limit=1", "/games/nope", "/rules")]
    assert [a.status_code for a in answers] == [200, 404, 200]
    assert all("Retry-After" not in answer.headers for answer in answers)
    assert "X-RateLimit-Remaining" in answers[0].headers  # the limit's own headers stay
    for _ in range(3):
        _get(app, "/games?limit=1", "10.0.9.1")
    _assert_limited(_get(app, "/games?limit=1", "10.0.9.1"))


def test_without_redis_each_process_counts_in_its_own_memory(sqlite_url: str) -> None:
    from app.api.limits import storage_uri

    assert storage_uri({"DATABASE_URL": sqlite_url}) == "memory://"
    apps = [create_app({"DATABASE_URL": sqlite_url, **LIMITS}) for _ in range(2)]
    try:
        for app in apps:  # each allows the address its five: they do not share
            statuses = [_get(app, "/games", "10.0.8.9").status_code for _ in range(6)]
            assert statuses == [200] * 5 + [429]
        assert apps[0].test_client().get("/readyz").get_json()["rate_limits"] == "storage"
    finally:
        for app in apps:
            app.extensions["basra_db"].dispose()
