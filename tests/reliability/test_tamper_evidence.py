"""Tamper evidence: change, delete or reorder any stored event (straight in the database, behind
the service's back) and /verify names exactly the first seq that no longer holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text

from .support import bearer

Tamper = Callable[[Any, str, int], int]  # (connection, game id, seq) -> the seq /verify must name


def _finished_game(client: Any) -> tuple[str, int]:
    created = client.post(
        "/games",
        json={"players": [{"name": "Hana"}, {"bot": "greedy"}], "rules": {"target_score": 1}},
    )
    assert created.status_code == 201
    game_id, token = created.get_json()["id"], created.get_json()["seats"][0]["token"]
    for _ in range(100):
        view = client.get(f"/games/{game_id}", headers=bearer(token)).get_json()
        if view["status"] == "finished":
            break
        card = view["hand"][0]
        assert (
            client.post(
                f"/games/{game_id}/moves", json={"card": card}, headers=bearer(token)
            ).status_code
            == 201
        )
    verdict = client.get(f"/games/{game_id}/verify").get_json()
    assert verdict["ok"], verdict
    return game_id, verdict["checks"]["hash_chain"]["events"]


def _data(connection: Any, game_id: str, seq: int) -> dict[str, Any]:
    from app.persistence import EventRow

    table = EventRow.__table__
    row = connection.execute(
        table.select().where(table.c.game_id == game_id, table.c.seq == seq)
    ).one()
    return dict(row.data)


def _set_data(connection: Any, game_id: str, seq: int, data: dict[str, Any]) -> None:
    from app.persistence import EventRow

    table = EventRow.__table__
    connection.execute(
        table.update().where(table.c.game_id == game_id, table.c.seq == seq).values(data=data)
    )


def change_data(connection: Any, game_id: str, seq: int) -> int:
    data = _data(connection, game_id, seq)
    data["tampered"] = True
    _set_data(connection, game_id, seq, data)
    return seq


def change_a_value(connection: Any, game_id: str, seq: int) -> int:
    """The subtle kind: one value changed, no key added (a card, a seat, a score)."""
    data = _data(connection, game_id, seq)
    key = next(k for k, v in data.items() if isinstance(v, int | str) and not isinstance(v, bool))
    data[key] = data[key] + 1 if isinstance(data[key], int) else data[key] + "x"
    _set_data(connection, game_id, seq, data)
    return seq


def change_the_time(connection: Any, game_id: str, seq: int) -> int:
    connection.execute(
        text(
            "UPDATE events SET at = '2001-01-01T00:00:00.000000Z' WHERE game_id = :g AND seq = :s"
        ),
        {"g": game_id, "s": seq},
    )
    return seq


def change_the_type(connection: Any, game_id: str, seq: int) -> int:
    kind = connection.execute(
        text("SELECT type FROM events WHERE game_id = :g AND seq = :s"), {"g": game_id, "s": seq}
    ).scalar_one()
    other = "CardPlayed" if kind == "HandsDealt" else "HandsDealt"
    connection.execute(
        text("UPDATE events SET type = :t WHERE game_id = :g AND seq = :s"),
        {"g": game_id, "s": seq, "t": other},
    )
    return seq


def replace_the_data_with_a_string(connection: Any, game_id: str, seq: int) -> int:
    """Not even an object any more: /verify must still answer, and name the seq."""
    _set_data(connection, game_id, seq, "nothing to see")  # type: ignore[arg-type]
    return seq


def rewrite_the_hash(connection: Any, game_id: str, seq: int) -> int:
    connection.execute(
        text("UPDATE events SET hash = :h WHERE game_id = :g AND seq = :s"),
        {"g": game_id, "s": seq, "h": "f" * 64},
    )
    return seq


def delete(connection: Any, game_id: str, seq: int) -> int:
    connection.execute(
        text("DELETE FROM events WHERE game_id = :g AND seq = :s"), {"g": game_id, "s": seq}
    )
    return seq


def swap_with_the_previous(connection: Any, game_id: str, seq: int) -> int:
    """Reorder: events seq-1 and seq trade places (their seq numbers swapped)."""
    for old, new in ((seq - 1, -1), (seq, seq - 1), (-1, seq)):
        connection.execute(
            text("UPDATE events SET seq = :new WHERE game_id = :g AND seq = :old"),
            {"g": game_id, "old": old, "new": new},
        )
    return seq - 1


def swap_contents_with_the_previous(connection: Any, game_id: str, seq: int) -> int:
    """Reorder, keeping the seqs: everything but the seq moves from one row to the other."""
    from app.persistence import EventRow

    table = EventRow.__table__
    rows = {
        s: connection.execute(
            table.select().where(table.c.game_id == game_id, table.c.seq == s)
        ).one()
        for s in (seq - 1, seq)
    }
    for target, source in ((seq - 1, seq), (seq, seq - 1)):
        row = rows[source]
        connection.execute(
            table.update()
            .where(table.c.game_id == game_id, table.c.seq == target)
            .values(type=row.type, data=row.data, at=row.at, hash=row.hash)
        )
    return seq - 1


def append_a_forged_event(connection: Any, game_id: str, seq: int) -> int:
    """A well-formed event after the last, with the real chain's hash: the game never had it."""
    from app.services.log import event_hash

    last = connection.execute(
        text("SELECT seq, hash FROM events WHERE game_id = :g ORDER BY seq DESC LIMIT 1"),
        {"g": game_id},
    ).one()
    at = "2030-01-01T00:00:00.000000Z"
    forged = event_hash(game_id, last.seq + 1, "HandsDealt", {"round": 9}, at, last.hash)
    from app.persistence import EventRow

    connection.execute(
        EventRow.__table__.insert().values(
            game_id=game_id,
            seq=last.seq + 1,
            type="HandsDealt",
            data={"round": 9},
            at=at,
            hash=forged,
        )
    )
    return last.seq + 1


TAMPERS: list[Tamper] = [
    change_data,
    change_a_value,
    change_the_time,
    change_the_type,
    replace_the_data_with_a_string,
    rewrite_the_hash,
    delete,
    swap_with_the_previous,
    swap_contents_with_the_previous,
]
WHERE = {"second": lambda n: 2, "middle": lambda n: n // 2, "last": lambda n: n}


@pytest.mark.parametrize("where", list(WHERE))
@pytest.mark.parametrize("tamper", TAMPERS, ids=lambda tamper: tamper.__name__)
def test_verify_names_the_seq_that_broke(app: Any, client: Any, tamper: Tamper, where: str) -> None:
    game_id, events = _finished_game(client)
    seq = WHERE[where](events)
    with app.extensions["basra_db"].engine.begin() as connection:
        broken = tamper(connection, game_id, seq)
    verdict = client.get(f"/games/{game_id}/verify").get_json()
    assert verdict["ok"] is False
    assert verdict["checks"]["hash_chain"]["ok"] is False
    assert verdict["checks"]["hash_chain"]["broken_seq"] == broken, verdict["checks"]["hash_chain"]


def test_the_first_event_is_covered_too(app: Any, client: Any) -> None:
    game_id, _ = _finished_game(client)
    with app.extensions["basra_db"].engine.begin() as connection:
        change_data(connection, game_id, 1)
    assert (
        client.get(f"/games/{game_id}/verify").get_json()["checks"]["hash_chain"]["broken_seq"] == 1
    )


def test_a_forged_event_after_the_last_is_named(app: Any, client: Any) -> None:
    game_id, events = _finished_game(client)
    with app.extensions["basra_db"].engine.begin() as connection:
        broken = append_a_forged_event(connection, game_id, events)
    chain = client.get(f"/games/{game_id}/verify").get_json()["checks"]["hash_chain"]
    assert (chain["ok"], chain["broken_seq"]) == (False, broken)


def test_a_game_still_being_played_is_checked_the_same_way(app: Any, client: Any) -> None:
    created = client.post("/games", json={"players": [{"name": "Hana"}, {"bot": "random"}]})
    game_id, token = created.get_json()["id"], created.get_json()["seats"][0]["token"]
    hand = created.get_json()["state"]["hand"]
    client.post(f"/games/{game_id}/moves", json={"card": hand[0]}, headers=bearer(token))
    events = client.get(f"/games/{game_id}/verify").get_json()["checks"]["hash_chain"]["events"]
    with app.extensions["basra_db"].engine.begin() as connection:
        change_a_value(connection, game_id, events - 1)
    chain = client.get(f"/games/{game_id}/verify").get_json()["checks"]["hash_chain"]
    assert (chain["ok"], chain["broken_seq"]) == (False, events - 1)
