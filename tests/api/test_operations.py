"""Operating it (API.md): request ids, problem documents that name them, /metrics, /readyz and
the JSON request log, in one process (the multiprocess scrape is tested under gunicorn in
tests/reliability/test_observability.py)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from conftest import PostgresDatabase  # tests/conftest.py, on the path as the rootdir conftest
from prometheus_client.parser import text_string_to_metric_families

from app import create_app
from app.observability import logs
from app.persistence.schema import alembic_config, migrate_database, newest_revisions

from .helpers import bearer, human_vs_bot

HEX_ID = 32


def scrape(client: Any, **headers: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.data[:300]
    assert response.content_type.startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


# ---------------------------------------------------------------- request ids


def test_every_answer_carries_a_new_request_id_when_the_client_sent_none(client):
    ids = set()
    for path in ("/healthz", "/games", "/games/nope", "/no/such/route", "/openapi.yaml"):
        rid = client.get(path).headers["X-Request-ID"]
        assert len(rid) == HEX_ID and int(rid, 16) >= 0
        ids.add(rid)
    assert len(ids) == 5


@pytest.mark.parametrize("sane", ["abc", "A.b-c_9", "x" * 128, "req-2026-11-30.17"])
def test_a_sane_client_request_id_is_answered_back(client, sane):
    assert client.get("/healthz", headers={"X-Request-ID": sane}).headers["X-Request-ID"] == sane


@pytest.mark.parametrize("insane", ["", "x" * 129, "a b", "a\tb", "é", "<script>", "a/b", "7D;x"])
def test_an_insane_client_request_id_is_replaced(client, insane):
    rid = client.get("/healthz", headers={"X-Request-ID": insane}).headers["X-Request-ID"]
    assert rid != insane and len(rid) == HEX_ID


def test_problem_documents_repeat_the_request_id(client):
    body, token = human_vs_bot(client)
    refusals = [
        client.get("/games/nope", headers={"X-Request-ID": "r-404"}),
        client.post(f"/games/{body['id']}/moves", json={"card": "7D"},
                    headers={"X-Request-ID": "r-401"}),
        client.post(f"/games/{body['id']}/moves", data="{", content_type="application/json",
                    headers={**bearer(token), "X-Request-ID": "r-400"}),
        client.delete("/healthz", headers={"X-Request-ID": "r-405"}),
        client.get("/no/such/route", headers={"X-Request-ID": "r-404b"}),
    ]  # fmt: skip
    for response in refusals:
        assert response.content_type == "application/problem+json"
        problem = response.get_json()
        assert problem["request_id"] == response.headers["X-Request-ID"]
        assert problem["request_id"].startswith("r-")


def test_a_rate_limited_answer_has_its_request_id_too(tmp_path):
    url = f"sqlite:///{tmp_path / 'limited.sqlite3'}"
    migrate_database(url)
    app = create_app({"DATABASE_URL": url, "RATE_LIMIT": "2 per minute"})
    try:
        client = app.test_client()
        before = value(scrape(client), "basra_rate_limited_total")
        answers = [client.get("/games", headers={"X-Request-ID": f"n{n}"}) for n in range(3)]
        assert [a.status_code for a in answers] == [200, 200, 429]
        assert answers[2].get_json()["request_id"] == "n2" == answers[2].headers["X-Request-ID"]
        assert value(scrape(client), "basra_rate_limited_total") == before + 1
    finally:
        app.extensions["basra_db"].dispose()


# ---------------------------------------------------------------- /metrics


def test_metrics_count_requests_by_url_rule_never_by_raw_path(client):
    before = scrape(client)
    body, _ = human_vs_bot(client)
    for _ in range(3):
        client.get(f"/games/{body['id']}")
    client.get("/games/does-not-exist")
    client.get("/no/such/route/at/all")
    after = scrape(client)
    route = "/games/<game_id>"
    assert value(after, "http_requests_total", method="GET", route=route, status="200") == (
        value(before, "http_requests_total", method="GET", route=route, status="200") + 3
    )
    assert value(after, "http_requests_total", method="GET", route=route, status="404") == (
        value(before, "http_requests_total", method="GET", route=route, status="404") + 1
    )
    unmatched = {"method": "GET", "route": "unmatched", "status": "404"}
    assert value(after, "http_requests_total", **unmatched) == (
        value(before, "http_requests_total", **unmatched) + 1
    )
    count = "http_request_duration_seconds_count"
    assert value(after, count, route=route) == value(before, count, route=route) + 4
    labels = {dict(key[1]).get("route") for key in after if key[0] == "http_requests_total"}
    assert not any(body["id"] in str(route) or "does-not-exist" in str(route) for route in labels)


def test_an_unknown_method_is_counted_as_other(client):
    before = value(scrape(client), "http_requests_total", method="other", route="unmatched",
                   status="405")  # fmt: skip
    client.open("/healthz", method="BREW")
    after = value(scrape(client), "http_requests_total", method="other", route="unmatched",
                  status="405")  # fmt: skip
    assert after == before + 1


def test_metrics_count_games_moves_and_bot_decisions(client):
    before = scrape(client)
    body, token = human_vs_bot(client, bot="greedy")
    played = len(body["moves"])
    card = body["state"]["hand"][0]
    headers = {**bearer(token), "Idempotency-Key": "same-key"}
    answers = [
        client.post(f"/games/{body['id']}/moves", json={"card": card}, headers=headers)
        for _ in range(3)
    ]
    assert [a.status_code for a in answers] == [201, 201, 201]
    played += len(answers[0].get_json()["moves"])  # the two retries apply nothing
    after = scrape(client)
    assert (
        value(after, "basra_games_created_total") == value(before, "basra_games_created_total") + 1
    )
    assert value(after, "basra_moves_total") == value(before, "basra_moves_total") + played
    decisions = "basra_bot_decision_seconds_count"
    assert value(after, decisions, level="greedy") > value(before, decisions, level="greedy")


def test_metrics_name_every_family_of_api_md(client):
    client.get("/healthz")
    text = client.get("/metrics").get_data(as_text=True)
    for family in (
        "http_requests_total", "http_request_duration_seconds", "basra_moves_total",
        "basra_games_created_total", "basra_bot_decision_seconds", "basra_stream_clients",
        "basra_turn_timeouts_total", "basra_worker_processes", "basra_rate_limited_total",
    ):  # fmt: skip
        assert f"# TYPE {family} " in text, family


def test_stream_clients_and_turn_timeouts_are_counted_through_the_metrics_module(client):
    from app.observability import metrics

    before = scrape(client)
    with metrics.stream_client(), metrics.stream_client():
        during = scrape(client)
        metrics.turn_timed_out()
    after = scrape(client)
    assert value(during, "basra_stream_clients") == value(before, "basra_stream_clients") + 2
    assert value(after, "basra_stream_clients") == value(before, "basra_stream_clients")
    timeouts = "basra_turn_timeouts_total"
    assert value(after, timeouts) == value(before, timeouts) + 1


@pytest.fixture
def guarded(database_url: str) -> Iterator[Any]:
    app = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "off",
                      "METRICS_TOKEN": "s3cret-scrape"})  # fmt: skip
    yield app.test_client()
    app.extensions["basra_db"].dispose()


def test_metrics_token_guards_the_scrape(guarded):
    for headers in ({}, bearer("wrong"), {"Authorization": "Basic czNjcmV0LXNjcmFwZQ=="}):
        response = guarded.get("/metrics", headers=headers)
        assert response.status_code == 401
        assert response.content_type == "application/problem+json"
        assert response.get_json()["code"] == "unauthorized"
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert guarded.get("/metrics", headers=bearer("s3cret-scrape")).status_code == 200


# ---------------------------------------------------------------- /readyz


@pytest.fixture(params=["sqlite", "postgresql"])
def own_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of this test's own (its schema is changed under the app)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'readyz.sqlite3'}"
        return
    if not request.getfixturevalue("postgres_server"):
        pytest.skip("PostgreSQL is not running")
    database = PostgresDatabase()
    database.create()
    try:
        yield database.url
    finally:
        database.drop()


def test_readyz_follows_the_schema_revision(own_database):
    app = create_app({"DATABASE_URL": own_database, "RATE_LIMIT": "off"})
    client = app.test_client()
    try:
        never_migrated = client.get("/readyz")
        assert never_migrated.status_code == 503
        assert never_migrated.get_json()["code"] == "unavailable"
        assert "no migration" in never_migrated.get_json()["detail"]

        migrate_database(own_database)
        ready = client.get("/readyz")
        assert ready.status_code == 200, ready.get_json()
        expected = {"status": "ready", "schema": sorted(newest_revisions()), "rate_limits": "off"}
        assert ready.get_json() == expected

        # One migration behind: the code's newest is not applied yet (a deploy ran no migrate).
        config = alembic_config(own_database)
        command.stamp(config, _one_before_head(config), purge=True)
        behind = client.get("/readyz")
        assert behind.status_code == 503
        assert behind.content_type == "application/problem+json"
        assert "basra migrate" in behind.get_json()["detail"]
        assert client.get("/healthz").status_code == 200  # alive all along, just not ready

        command.stamp(config, "head", purge=True)
        assert client.get("/readyz").status_code == 200
    finally:
        app.extensions["basra_db"].dispose()


def _one_before_head(config: Any) -> str:
    """The revision just before the newest (alembic's stamp takes no "head-1")."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(config)
    head = script.get_revision(script.get_current_head())
    previous = head.down_revision if head is not None else None
    return previous if isinstance(previous, str) else "base"


def test_readyz_is_a_503_when_the_database_does_not_answer(tmp_path):
    app = create_app({"DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none",
                      "RATE_LIMIT": "off"})  # fmt: skip
    client = app.test_client()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.get_json()["code"] == "unavailable"
    app.extensions["basra_db"].dispose()


def test_requests_the_database_could_not_answer_are_counted():
    app = create_app({"DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none",
                      "RATE_LIMIT": "off"})  # fmt: skip
    client = app.test_client()

    def errors() -> float:
        samples = scrape(client)
        return sum(v for (name, _), v in samples.items() if name == "basra_db_errors_total")

    before = errors()
    for path in ("/games", "/games/0123456789abcdef"):
        assert client.get(path).status_code == 503
    assert errors() == before + 2
    app.extensions["basra_db"].dispose()


# ---------------------------------------------------------------- the request log


def request_lines(captured: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in captured.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("logger") == logs.REQUEST_LOGGER]


def test_one_json_log_line_per_request_with_the_operator_fields(client, capsys):
    capsys.readouterr()
    body, token = human_vs_bot(client)
    card = body["state"]["hand"][0]
    client.post(f"/games/{body['id']}/moves", json={"card": card},
                headers={**bearer(token), "X-Request-ID": "move-1"})  # fmt: skip
    client.get("/games", headers={"X-Request-ID": "list-1"})
    out = capsys.readouterr().out
    records = request_lines(out)
    assert len(records) == 3
    created, moved, listed = records
    assert created["route"] == "/games" and created["game_id"] == body["id"]
    assert created["status"] == 201 and created["method"] == "POST"
    assert moved == {**moved, "request_id": "move-1", "route": "/games/<game_id>/moves",
                     "game_id": body["id"], "status": 201, "method": "POST"}  # fmt: skip
    assert listed["game_id"] is None and listed["request_id"] == "list-1"
    for record in records:
        assert isinstance(record["duration_ms"], float) and record["level"] == "info"
        assert {"ts", "pid", "event"} <= set(record) and record["event"] == "request"
    assert token not in out and card not in out.replace(body["id"], "")


def test_other_records_are_json_lines_too():
    record = logging.LogRecord(
        "gunicorn.error", logging.INFO, __file__, 1, "Booting %s", (7,), None
    )
    parsed = json.loads(logs.json_formatter().format(record))
    assert parsed == {**parsed, "event": "Booting 7", "level": "info", "logger": "gunicorn.error"}
    assert {"ts", "pid"} <= set(parsed)
