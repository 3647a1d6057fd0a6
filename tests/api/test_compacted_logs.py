"""The log of a game that is over is compacted into one value by the sweep: every endpoint that
reads it answers exactly as before, and /verify still finds a change to the compacted value."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, update

from app.persistence.compacted_logs import compacted, expanded
from app.persistence.models import COMPACTED_LOGS, EVENTS, GAMES
from app.services import audit_cache
from app.services.retention import compact_logs

from .helpers import bearer, human_vs_bot, play_to_end
from .sse import records

pytestmark = pytest.mark.both_databases

SWEEPS = 500  # batches at most: the test run's database holds every other test's games too


def finished_match(client: Any) -> tuple[str, str]:
    game, token = human_vs_bot(client, rules={"target_score": 31})
    play_to_end(client, game["id"], token)
    return game["id"], token


def stored_forms(app: Any, game_id: str) -> tuple[int, int]:
    """How many rows of events, and of compacted_logs, the game has."""
    with app.extensions["basra_db"].engine.connect() as connection:
        rows = connection.scalar(select(func.count()).where(EVENTS.c.game_id == game_id))
        values = connection.scalar(select(func.count()).where(COMPACTED_LOGS.c.game_id == game_id))
    return rows, values


def swept(app: Any, game_id: str) -> bool:
    with app.extensions["basra_db"].engine.connect() as connection:
        return bool(connection.scalar(select(GAMES.c.log_swept).where(GAMES.c.id == game_id)))


def sweep_until_done(app: Any, game_id: str) -> None:
    """Run the sweep's compaction (an hour on, as if the games had been over that long) until
    it has dealt with ``game_id``."""
    later = datetime.now(UTC) + timedelta(hours=2)
    for _ in range(SWEEPS):
        if swept(app, game_id):
            return
        compact_logs(app.extensions["basra_uow"](), later)
    raise AssertionError(f"the sweep did not get to game {game_id}")


def compact(app: Any, game_id: str) -> None:
    sweep_until_done(app, game_id)
    assert stored_forms(app, game_id) == (0, 1)


def everything_a_client_reads(client: Any, game_id: str, token: str) -> dict[str, Any]:
    base = f"/games/{game_id}"
    answers: dict[str, Any] = {
        "view": client.get(base, headers=bearer(token)).get_json(),
        "spectator": client.get(base).get_json(),
        "moves": client.get(f"{base}/moves").get_json(),
        "fairness": client.get(f"{base}/fairness").get_json(),
        "verify": client.get(f"{base}/verify").get_json(),
    }
    pages, after = [], 0
    while after is not None:
        page = client.get(f"{base}/events", query_string={"after": after, "limit": 13}).get_json()
        pages.append(page)
        after = page["next_after"]
    answers["events"] = pages
    total = client.get(f"{base}/replay?step=0").get_json()["moves"]
    steps = sorted({0, 1, total // 2, total})
    answers["replay"] = [client.get(f"{base}/replay?step={s}").get_json() for s in steps]
    whole = client.get(f"{base}/stream").get_data(as_text=True)
    answers["stream"] = whole
    cut = records(whole)[len(records(whole)) // 2].id
    answers["stream_after"] = client.get(f"{base}/stream?after={cut}").get_data(as_text=True)
    resumed = client.get(f"{base}/stream", headers={"Last-Event-ID": cut})
    answers["stream_resumed"] = resumed.get_data(as_text=True)
    return answers


def test_every_endpoint_answers_the_same_once_the_log_is_compacted(app, client):
    game_id, token = finished_match(client)
    before = everything_a_client_reads(client, game_id, token)
    assert before["verify"]["ok"] and len(before["events"]) > 2
    compact(app, game_id)
    assert everything_a_client_reads(client, game_id, token) == before
    audit_cache.forget()  # and without the checkpoints of the rows read before
    assert everything_a_client_reads(client, game_id, token) == before


def test_a_game_in_play_is_not_compacted(app, client):
    game, token = human_vs_bot(client)
    for _ in range(SWEEPS // 50):
        compact_logs(app.extensions["basra_uow"](), datetime.now(UTC) + timedelta(hours=2))
    rows, values = stored_forms(app, game["id"])
    assert rows > 0 and values == 0 and not swept(app, game["id"])
    play_to_end(client, game["id"], token)  # and it plays on to its end
    compact(app, game["id"])


def stored_value(app: Any, game_id: str) -> bytes:
    with app.extensions["basra_db"].engine.connect() as connection:
        value = connection.scalar(select(COMPACTED_LOGS.c.log).where(
            COMPACTED_LOGS.c.game_id == game_id))  # fmt: skip
    return bytes(value)


def store_value(app: Any, game_id: str, value: bytes) -> None:
    with app.extensions["basra_db"].engine.begin() as connection:
        connection.execute(
            update(COMPACTED_LOGS).where(COMPACTED_LOGS.c.game_id == game_id).values(log=value)
        )
    audit_cache.forget(game_id)


@pytest.mark.parametrize("where", [0, 0.5, -1])
def test_verify_finds_one_changed_byte_of_a_compacted_log(app, client, where):
    game_id, _ = finished_match(client)
    compact(app, game_id)
    assert client.get(f"/games/{game_id}/verify").get_json()["ok"]
    value = bytearray(stored_value(app, game_id))
    value[int(where * (len(value) - 1))] ^= 0x01
    store_value(app, game_id, bytes(value))
    checked = client.get(f"/games/{game_id}/verify").get_json()
    assert not checked["ok"]
    assert not checked["checks"]["hash_chain"]["ok"]


def test_verify_finds_a_move_changed_in_a_compacted_log_written_again(app, client):
    """A value decoded, one card changed and encoded again, the way this code writes it: the
    hashes computed from the changed move on no longer reach the next stored one."""
    game_id, _ = finished_match(client)
    compact(app, game_id)
    rows = expanded(game_id, stored_value(app, game_id))
    changed = next(r for r in rows if r.type == "CardPlayed" and '"captured":[]' in r.data)
    deals = [r.seq for r in rows if r.seq > changed.seq and r.type == "RoundDealt"]
    anchor = deals[0] if deals else rows[-1].seq  # the next deal's hash is stored, or the last
    rows[changed.seq - 1] = type(changed)(
        changed.seq, changed.type, changed.data.replace('"captured":[]', '"captured":["AS"]'),
        changed.at, changed.hash,
    )  # fmt: skip
    store_value(app, game_id, compacted(rows))
    chain = client.get(f"/games/{game_id}/verify").get_json()["checks"]["hash_chain"]
    assert not chain["ok"] and chain["broken_seq"] == anchor


def test_a_log_changed_in_its_rows_is_left_in_rows_where_verify_names_the_entry(app, client):
    game_id, _ = finished_match(client)
    with app.extensions["basra_db"].engine.begin() as connection:
        connection.execute(
            update(EVENTS).where(EVENTS.c.game_id == game_id, EVENTS.c.seq == 5)
            .values(at="2000-01-01T00:00:00.000000Z")
        )  # fmt: skip
    audit_cache.forget(game_id)
    sweep_until_done(app, game_id)
    rows, values = stored_forms(app, game_id)
    assert rows > 0 and values == 0
    chain = client.get(f"/games/{game_id}/verify").get_json()["checks"]["hash_chain"]
    assert not chain["ok"] and chain["broken_seq"] == 5


def test_a_rematch_of_a_game_whose_log_is_compacted_is_logged_and_verifies(app, client):
    game_id, token = finished_match(client)
    compact(app, game_id)
    made = client.post(f"/games/{game_id}/rematch", headers=bearer(token))
    assert made.status_code == 201, made.get_json()
    assert stored_forms(app, game_id) == (1, 1)  # the new entry in a row, after the value
    log = client.get(f"/games/{game_id}/events").get_json()["events"]
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    assert (
        log[-1]["type"] == "RematchOffered" and log[-1]["data"]["game_id"] == made.get_json()["id"]
    )
    assert client.get(f"/games/{game_id}/verify").get_json()["ok"]
    stream = client.get(f"/games/{game_id}/stream").get_data(as_text=True)
    assert records(stream)[-1].data == {"game_id": made.get_json()["id"]}
