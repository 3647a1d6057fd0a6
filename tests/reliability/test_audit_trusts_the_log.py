"""The audit trusts the log, not the row: /verify and /fairness rebuild the client seed from
the logged seats' seeds, take the commitment from GameCreated and the server seed from
SeedRevealed, and accept an unshuffled deal only as round 1 of a game created with `deck`.
Each fact is changed straight in the database and /verify must name the check that fails.
(Round 1 of a game made with `deck` passes as fixed: tests/api/test_replay_verify_fairness.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select, update

from app.engine.cards import FULL_DECK, codes
from app.persistence import EventRow, GameRow
from app.services.log import event_hash

from .support import bearer

EVENTS = EventRow.__table__
GAMES = GameRow.__table__


def _play_to_end(client: Any, game_id: str, token: str) -> None:
    for _ in range(2000):
        view = client.get(f"/games/{game_id}", headers=bearer(token)).get_json()
        if view["status"] == "finished":
            return
        answer = client.post(f"/games/{game_id}/moves", json={"card": view["hand"][0]},
                             headers=bearer(token))  # fmt: skip
        assert answer.status_code == 201, answer.get_json()
    raise AssertionError("the game did not finish")


def _finished(client: Any, **extra: Any) -> str:
    body = {"players": [{"name": "Hana", "seed": "alpha"}, {"bot": "greedy"}],
            "rules": {"target_score": 60}, **extra}  # fmt: skip
    created = client.post("/games", json=body).get_json()
    _play_to_end(client, created["id"], created["seats"][0]["token"])
    verdict = client.get(f"/games/{created['id']}/verify").get_json()
    assert verdict["ok"] is True, verdict
    return str(created["id"])


def _set_game(app: Any, game_id: str, **values: Any) -> None:
    with app.extensions["basra_db"].engine.begin() as connection:
        connection.execute(update(GAMES).where(GAMES.c.id == game_id).values(**values))


def _rewrite_deal(app: Any, game_id: str, round_number: int, rechain: bool, **changes: Any) -> None:
    """Change a RoundDealt's data; with ``rechain``, recompute every hash after it and the
    game's last hash, as an attacker who knows the hash function would."""
    with app.extensions["basra_db"].engine.begin() as connection:
        rows = connection.execute(
            select(EVENTS).where(EVENTS.c.game_id == game_id).order_by(EVENTS.c.seq)
        ).all()
        target = next(r for r in rows if r.type == "RoundDealt" and r.data["round"] == round_number)
        data = {**target.data, **changes}
        connection.execute(
            update(EVENTS)
            .where(EVENTS.c.game_id == game_id, EVENTS.c.seq == target.seq)
            .values(data=data)
        )
        if not rechain:
            return
        previous = rows[target.seq - 2].hash if target.seq > 1 else "0" * 64
        for row in rows[target.seq - 1 :]:
            row_data = data if row.seq == target.seq else row.data
            digest = event_hash(game_id, row.seq, row.type, row_data, row.at, previous)
            connection.execute(
                update(EVENTS)
                .where(EVENTS.c.game_id == game_id, EVENTS.c.seq == row.seq)
                .values(hash=digest)
            )
            previous = digest
        connection.execute(update(GAMES).where(GAMES.c.id == game_id).values(last_hash=previous))


def _verify(client: Any, game_id: str) -> dict[str, Any]:
    verdict: dict[str, Any] = client.get(f"/games/{game_id}/verify").get_json()
    assert verdict["ok"] is False, verdict
    return verdict["checks"]


def test_a_changed_client_seed_in_the_row_fails_the_client_seed_check(app, client):
    game_id = _finished(client)
    _set_game(app, game_id, client_seed="forged|")
    checks = _verify(client, game_id)
    assert checks["client_seed"]["ok"] is False and checks["client_seed"]["client_seed"] == "alpha|"
    assert checks["hash_chain"]["ok"] is True and checks["decks"]["ok"] is True
    assert client.get(f"/games/{game_id}/fairness").get_json()["client_seed"] == "alpha|"


def test_a_changed_commitment_in_the_row_fails_the_commitment_check(app, client):
    game_id = _finished(client)
    logged = client.get(f"/games/{game_id}/fairness").get_json()["commitment"]
    _set_game(app, game_id, commitment="f" * 64)
    checks = _verify(client, game_id)
    assert checks["commitment"]["ok"] is False and "GameCreated" in checks["commitment"]["detail"]
    assert client.get(f"/games/{game_id}/fairness").get_json()["commitment"] == logged


def test_a_changed_server_seed_in_the_row_fails_the_commitment_check(app, client):
    game_id = _finished(client)
    _set_game(app, game_id, server_seed="0" * 64)
    checks = _verify(client, game_id)
    assert checks["commitment"]["ok"] is False and "SeedRevealed" in checks["commitment"]["detail"]


@pytest.mark.parametrize("rechain", [False, True], ids=["naive", "rechained"])
def test_a_later_round_marked_fixed_fails_the_decks_check(app, client, rechain):
    # 60 points can fall in one round; no round has ever brought 201.
    game_id = _finished(client, rules={"target_score": 201})
    rounds = client.get(f"/games/{game_id}").get_json()["rounds"]
    assert len(rounds) >= 2, "the game must have a second round"
    _rewrite_deal(app, game_id, 2, rechain, fixed=True)
    checks = _verify(client, game_id)
    (second,) = [r for r in checks["decks"]["rounds"] if r["round"] == 2]
    assert second["ok"] is False and second["fixed"] is True
    assert checks["hash_chain"]["ok"] is rechain  # a naive edit breaks the chain too


def test_round_one_marked_fixed_without_a_deck_fails_the_decks_check(app, client):
    game_id = _finished(client)
    _rewrite_deal(app, game_id, 1, True, fixed=True)
    checks = _verify(client, game_id)
    assert checks["decks"]["rounds"][0] == {
        "round": 1, "fixed": True, "ok": False,
        "detail": "only round 1 of a game created with a deck may be fixed",
    }  # fmt: skip
    assert checks["hash_chain"]["ok"] is True


def test_a_shuffled_deck_changed_in_the_log_fails_the_decks_check_and_says_why(app, client):
    game_id = _finished(client)
    checks = client.get(f"/games/{game_id}/verify").get_json()["checks"]
    assert checks["decks"]["rounds"][0] == {"round": 1, "fixed": False, "ok": True, "detail": None}
    _rewrite_deal(app, game_id, 1, True, deck=codes(FULL_DECK))  # the deck in canonical order
    checks = _verify(client, game_id)
    assert checks["decks"]["rounds"][0] == {
        "round": 1, "fixed": False, "ok": False,
        "detail": "the deck logged is not the one the seeds give",
    }  # fmt: skip
    assert checks["hash_chain"]["ok"] is True  # rechained: only the deck check sees it
