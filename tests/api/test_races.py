"""Requests that race for the same game never both apply, on SQLite as on PostgreSQL.

SQLite ignores SELECT ... FOR UPDATE, so there the guard is the version check in the
UPDATE and the (game_id, seq) primary key; each loser is answered with a clear refusal.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from .helpers import bearer, create
from .support import humans, moves, view

pytestmark = pytest.mark.both_databases

RACERS = 8


def race(app: Any, requests: list[tuple[str, dict[str, Any], dict[str, str]]]) -> list[Any]:
    """Send every request at once, each from its own thread and test client."""
    barrier = threading.Barrier(len(requests))
    answers: list[Any] = [None] * len(requests)

    def send(index: int, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        client = app.test_client()
        barrier.wait()
        answers[index] = client.post(path, json=body, headers=headers)

    threads = [
        threading.Thread(target=send, args=(i, *request)) for i, request in enumerate(requests)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def test_the_same_move_sent_many_times_at_once_applies_once(app, client):
    body, tokens = humans(client)
    game_id = body["id"]
    card = view(client, game_id, tokens[0])["hand"][0]
    path = f"/games/{game_id}/moves"
    answers = race(app, [(path, {"card": card}, bearer(tokens[0]))] * RACERS)

    statuses = sorted(answer.status_code for answer in answers)
    assert statuses.count(201) == 1, statuses
    losers = [a.get_json()["code"] for a in answers if a.status_code != 201]
    assert set(losers) <= {"not_your_turn", "conflict"}, losers
    assert [m["card"] for m in moves(client, game_id)] == [card]
    assert client.get(f"/games/{game_id}/verify").get_json()["ok"]


def test_both_seats_racing_leaves_a_contiguous_log(app, client):
    body, tokens = humans(client)
    game_id = body["id"]
    hands = [view(client, game_id, token)["hand"] for token in tokens]
    path = f"/games/{game_id}/moves"
    requests = [(path, {"card": hands[seat][i % 4]}, bearer(tokens[seat]))
                for i in range(RACERS) for seat in (0, 1)]  # fmt: skip
    answers = race(app, requests)

    applied = sum(1 for answer in answers if answer.status_code == 201)
    played = moves(client, game_id)
    assert len(played) == applied >= 1
    assert [m["n"] for m in played] == list(range(1, applied + 1))
    assert [m["seat"] for m in played] == [n % 2 for n in range(applied)]
    assert client.get(f"/games/{game_id}/verify").get_json()["ok"]


def test_the_same_keyed_move_sent_many_times_at_once_applies_once_and_answers_alike(app, client):
    """Every racer but one loses its unlocked attempt; its retry finds the winner's answer
    (stored by the winner's own write) and answers it again."""
    body, tokens = humans(client)
    game_id = body["id"]
    card = view(client, game_id, tokens[0])["hand"][0]
    headers = {**bearer(tokens[0]), "Idempotency-Key": "the-same-key"}
    answers = race(app, [(f"/games/{game_id}/moves", {"card": card}, headers)] * RACERS)

    assert [answer.status_code for answer in answers] == [201] * RACERS
    assert all(answer.get_json() == answers[0].get_json() for answer in answers)
    assert [m["card"] for m in moves(client, game_id)] == [card]


def test_players_joining_at_once_each_get_a_seat_of_their_own(app, client):
    """Two joins of one game at once: the second waits for the first's lock, and must then
    see the seat the first took (on PostgreSQL a locked load that waited once read the seats
    as they were before the wait, and both joiners were given the same seat)."""
    for _ in range(5):
        game = create(client, [{"name": "Amira"}, {"open": True}, {"open": True}, {"open": True}])
        path = f"/games/{game['id']}/join"
        bodies = [{"name": name, "invite": game["invite"]} for name in ("Badr", "Camelia")]
        answers = race(app, [(path, body, {}) for body in bodies])
        assert [answer.status_code for answer in answers] == [201, 201]
        joined = [answer.get_json() for answer in answers]
        assert sorted(body["seat"] for body in joined) == [1, 2], joined
        for body in joined:  # each token still opens its own seat
            seen = client.get(f"/games/{game['id']}", headers=bearer(body["token"]))
            assert seen.status_code == 200 and seen.get_json()["you"] == body["seat"]
        names = [seat["name"] for seat in view(client, game["id"])["seats"]]
        assert sorted(names[1:3]) == ["Badr", "Camelia"] and names[3] is None, names


def test_seats_asking_for_a_rematch_at_once_get_one_new_game(app, client):
    """One rematch per game whatever the race: on PostgreSQL the second call waits for the
    first's lock on the game over, on SQLite it loses the unique ``rematch_of`` and is tried
    again; either way it finds the game the first made and takes its own seat there."""
    for _ in range(3):
        body, tokens = humans(client)
        game_id = body["id"]
        client.post(f"/games/{game_id}/resign", headers=bearer(tokens[1]))
        path = f"/games/{game_id}/rematch"
        answers = race(app, [(path, {}, bearer(tokens[0])), (path, {}, bearer(tokens[1]))])
        assert [a.status_code for a in answers] == [201, 201], [a.get_json() for a in answers]
        made = [a.get_json() for a in answers]
        assert made[0]["id"] == made[1]["id"]
        assert [made[seat]["state"]["you"] for seat in (0, 1)] == [0, 1]
        assert all("token" in made[seat]["seats"][seat] for seat in (0, 1))
        log = client.get(f"/games/{game_id}/events").get_json()["events"]
        assert [e["data"]["game_id"] for e in log if e["type"] == "RematchOffered"] == [
            made[0]["id"]
        ]
        assert view(client, made[0]["id"])["status"] == "active"
