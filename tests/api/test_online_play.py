"""Online play (API.md item 23) through HTTP: the rematch (asked at once on two instances, on
both databases), its refusals, and what a player's list of games says of each."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from .helpers import bearer
from .players_support import new_player, players_game, race
from .sse import records
from .support import assert_problem


def resigned_game(client: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A rated game of Amira (seat 0) and Badr (seat 1), resigned by Badr."""
    amira, badr = new_player(client, "Amira"), new_player(client, "Badr")
    game = players_game(client, amira, badr, rated=True)
    resigned = client.post(f"/games/{game['id']}/resign", headers=bearer(badr["token"]))
    assert resigned.status_code == 201, resigned.get_json()
    return game, amira, badr


def stop_clock(client: Any, game_id: str, player: dict[str, Any]) -> None:
    """Resign a clocked game a test leaves in play, so that other tests' sweeps never find its
    turn due."""
    resigned = client.post(f"/games/{game_id}/resign", headers=bearer(player["token"]))
    assert resigned.status_code == 201, resigned.get_json()


def test_each_seat_asks_for_the_rematch_and_both_get_the_same_new_game(client):
    game, amira, badr = resigned_game(client)
    url = f"/games/{game['id']}/rematch"
    first = client.post(url, headers=bearer(badr["token"]))
    assert first.status_code == 201, first.get_json()
    made = first.get_json()
    assert first.headers["Location"] == f"/games/{made['id']}"
    assert first.headers["ETag"] == f'"{made["state"]["version"]}"'
    assert set(made) == {"id", "status", "seats", "rules", "fairness", "moves", "state"}
    assert made["status"] == "waiting" and made["rules"] == game["rules"]
    assert made["rules"]["turn_seconds"] == 30 and made["rules"]["max_timeouts"] == 2
    held, mine = made["seats"]
    assert mine["player"] == badr["id"] and mine["token"] and made["state"]["you"] == 1
    assert held == {"seat": 0, "name": "Amira", "bot": None, "open": True, "player": amira["id"]}
    second = client.post(url, headers=bearer(game["seats"][0]["token"]))  # the seat's own token
    assert second.status_code == 201, second.get_json()
    taken = second.get_json()
    assert taken["id"] == made["id"] and taken["status"] == "active"
    assert "token" in taken["seats"][0] and taken["state"]["you"] == 0
    view = client.get(f"/games/{made['id']}", headers=bearer(amira["token"])).get_json()
    assert view["you"] == 0 and view["status"] == "active"
    stream = client.get(f"/games/{game['id']}/stream").get_data(as_text=True)
    assert [(r.event, r.data) for r in records(stream)][-2:] == [
        ("over", {"winner": 0, "scores": [0, 0]}),
        ("rematch", {"game_id": made["id"]}),
    ]
    for game_id in (game["id"], made["id"]):
        assert client.get(f"/games/{game_id}/verify").get_json()["ok"]
    stop_clock(client, made["id"], amira)


@pytest.mark.both_databases
def test_seats_asking_on_two_instances_at_once_get_one_rematch(client, second_instance):
    for _ in range(3):
        game, amira, badr = resigned_game(client)
        url = f"/games/{game['id']}/rematch"
        first = partial(client.post, url, headers=bearer(amira["token"]))
        answers = race(first, partial(second_instance.post, url, headers=bearer(badr["token"])))
        assert [a.status_code for a in answers] == [201, 201], [a.get_json() for a in answers]
        made = [a.get_json() for a in answers]
        assert made[0]["id"] == made[1]["id"]
        assert client.get(f"/games/{made[0]['id']}").get_json()["status"] == "active"
        assert [made[seat]["state"]["you"] for seat in (0, 1)] == [0, 1]
        log = client.get(f"/games/{game['id']}/events").get_json()["events"]
        assert [e["type"] for e in log].count("RematchOffered") == 1
        stop_clock(client, made[0]["id"], amira)


def test_a_rematch_is_refused_before_the_end_and_to_whoever_holds_no_seat(client):
    amira, badr, chadi = (new_player(client, name) for name in ("Amira", "Badr", "Chadi"))
    game = players_game(client, amira, badr)
    url = f"/games/{game['id']}/rematch"
    assert_problem(client.post(url, headers=bearer(amira["token"])), 409, "game_not_finished")
    client.post(f"/games/{game['id']}/resign", headers=bearer(amira["token"]))
    version = client.get(f"/games/{game['id']}").get_json()["version"]
    assert_problem(client.post(url), 401, "unauthorized")
    assert_problem(client.post(url, headers=bearer(chadi["token"])), 403, "forbidden")
    assert_problem(client.post("/games/0123456789abcdef/rematch", headers=bearer(amira["token"])),
                   404, "not_found")  # fmt: skip
    assert client.get(f"/games/{game['id']}").get_json()["version"] == version


def test_a_rated_game_has_the_default_clock_and_a_seek_shows_it(client):
    amira = new_player(client, "Amira")
    body = {"players": [{"player": "me"}, {"bot": "greedy"}], "rated": True}
    created = client.post("/games", json=body, headers=bearer(amira["token"])).get_json()
    assert (created["rules"]["turn_seconds"], created["rules"]["max_timeouts"]) == (30, 2)
    assert created["state"]["deadline"] is not None
    unclocked = {**body, "rules": {"turn_seconds": None}}
    client.post(f"/games/{created['id']}/resign", headers=bearer(amira["token"]))
    created = client.post("/games", json=unclocked, headers=bearer(amira["token"])).get_json()
    assert created["rules"]["turn_seconds"] is None  # its deadline: the idle forfeit, a day on
    client.post(f"/games/{created['id']}/resign", headers=bearer(amira["token"]))
    seek = client.post("/seeks", json={"players": 2}, headers=bearer(amira["token"]))
    assert seek.status_code == 201, seek.get_json()
    seen = client.get(f"/seeks/{seek.get_json()['id']}", headers=bearer(amira["token"]))
    rules = seen.get_json()["rules"]
    assert (rules["turn_seconds"], rules["max_timeouts"]) == (30, 2)
    client.delete(f"/seeks/{seek.get_json()['id']}", headers=bearer(amira["token"]))


def test_a_players_games_name_the_seats_the_scores_and_whose_turn_it_is(client):
    amira, badr = new_player(client, "Amira"), new_player(client, "Badr")
    game = players_game(client, amira, badr)
    turn = client.get(f"/games/{game['id']}").get_json()["turn"]
    entries = [
        client.get(f"/players/{p['id']}/games").get_json()["games"][0] for p in (amira, badr)
    ]
    assert [entry["your_turn"] for entry in entries] == [turn == 0, turn == 1]
    entry = entries[0]
    assert entry["players"] == [
        {"seat": 0, "name": "Amira", "player": amira["id"], "bot": None},
        {"seat": 1, "name": "Badr", "player": badr["id"], "bot": None},
    ]
    assert entry["scores"] == [0, 0] and entry["updated_at"].endswith("+00:00")
    client.post(f"/games/{game['id']}/resign", headers=bearer(amira["token"]))
    over = client.get(f"/players/{amira['id']}/games?status=finished").get_json()["games"][0]
    assert over["id"] == game["id"] and over["your_turn"] is False
    assert over["updated_at"] >= entry["updated_at"]
