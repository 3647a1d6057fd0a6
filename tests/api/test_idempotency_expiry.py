"""A move's stored answer serves retries of its Idempotency-Key for a day (IDEMPOTENCY_SECONDS),
then the sweep forgets it, a batch at a time, and the key's request is answered as a new one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.services.retention import expire_idempotency

from .helpers import bearer, human_vs_bot
from .support import assert_problem

pytestmark = pytest.mark.both_databases


def test_a_retry_within_the_day_gets_the_first_answer_and_after_it_is_a_new_request(app, client):
    body, token = human_vs_bot(client)
    game_id = body["id"]
    card = client.get(f"/games/{game_id}", headers=bearer(token)).get_json()["hand"][0]
    headers = {**bearer(token), "Idempotency-Key": "expiring-key"}
    first = client.post(f"/games/{game_id}/moves", json={"card": card}, headers=headers)
    assert first.status_code == 201
    new_uow = app.extensions["basra_uow"]
    now = datetime.now(UTC)

    expire_idempotency(new_uow(), now, keep_seconds=86_400)  # kept: younger than a day
    again = client.post(f"/games/{game_id}/moves", json={"card": card}, headers=headers)
    assert again.status_code == 201 and again.get_json() == first.get_json()

    assert expire_idempotency(new_uow(), now + timedelta(days=1, seconds=1)) >= 1
    late = client.post(f"/games/{game_id}/moves", json={"card": card}, headers=headers)
    # Decided afresh: the card is no longer in the hand (or it is not that seat's turn).
    assert late.status_code in (409, 422) and late.get_json()["code"] in (
        "not_your_turn", "card_not_in_hand"
    )  # fmt: skip


def test_expired_answers_go_a_batch_at_a_time(app, client, monkeypatch):
    from app.services import retention

    new_uow = app.extensions["basra_uow"]
    # None left before, whatever the tests that ran before on this database kept.
    expire_idempotency(new_uow(), datetime.now(UTC) + timedelta(days=2))
    monkeypatch.setattr(retention, "EXPIRY_BATCH", 2)
    monkeypatch.setattr(retention, "EXPIRY_BATCHES", 2)
    for n in range(5):
        body, token = human_vs_bot(client)
        card = client.get(f"/games/{body['id']}", headers=bearer(token)).get_json()["hand"][0]
        headers = {**bearer(token), "Idempotency-Key": f"batch-{n}"}
        assert client.post(f"/games/{body['id']}/moves", json={"card": card},
                           headers=headers).status_code == 201  # fmt: skip
    later = datetime.now(UTC) + timedelta(days=2)
    assert expire_idempotency(new_uow(), later) == 4  # two batches of two: a pass is bounded
    assert expire_idempotency(new_uow(), later) == 1  # the next sweep goes on


def test_a_refused_late_retry_changes_nothing(app, client):
    body, token = human_vs_bot(client)
    game_id = body["id"]
    card = client.get(f"/games/{game_id}", headers=bearer(token)).get_json()["hand"][0]
    headers = {**bearer(token), "Idempotency-Key": "late-key"}
    client.post(f"/games/{game_id}/moves", json={"card": card}, headers=headers)
    version = client.get(f"/games/{game_id}").get_json()["version"]
    expire_idempotency(app.extensions["basra_uow"](), datetime.now(UTC) + timedelta(days=2))
    late = client.post(f"/games/{game_id}/moves", json={"card": card}, headers=headers)
    assert late.status_code >= 400
    assert_problem(late, late.status_code, late.get_json()["code"])
    assert client.get(f"/games/{game_id}").get_json()["version"] == version
