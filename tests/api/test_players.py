"""Players (API.md items 17 and 18): a player's own bearer, its profile, and the seats it
holds, through HTTP (what the database keeps of them on both databases)."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import bearer, create
from .players_support import new_player, play_out, players_game
from .sse import records


def test_a_new_player_is_shown_its_token_once_and_starts_at_the_default_rating(client: Any):
    created = new_player(client, "Amira")
    assert set(created) == {"id", "name", "token", "rating"}
    assert created["rating"] == {"value": 25.0, "deviation": 8.333, "provisional": True}
    me = client.get("/players/me", headers=bearer(created["token"])).get_json()
    assert me == {"id": created["id"], "name": "Amira", "bot": None, "rating": created["rating"],
                  "stats": {"played": 0, "won": 0, "lost": 0, "drawn": 0}}  # fmt: skip
    public = client.get(f"/players/{created['id']}").get_json()
    assert public == me and "token" not in public


def test_players_me_needs_a_players_bearer(client: Any):
    assert client.get("/players/me").get_json()["code"] == "unauthorized"
    seat_token = create(client, [{"name": "Amira"}, {"bot": "greedy"}])["seats"][0]["token"]
    refused = client.get("/players/me", headers=bearer(seat_token))
    assert refused.status_code == 401 and refused.get_json()["code"] == "unauthorized"


def test_an_unknown_player_is_not_found_and_every_bot_level_is_a_player(client: Any):
    assert client.get("/players/nobody").get_json()["code"] == "not_found"
    for bot in client.get("/rules").get_json()["bots"]:
        assert bot["player"] == f"bot-{bot['level']}"
        player = client.get(f"/players/{bot['player']}").get_json()
        assert player["bot"] == bot["level"] and player["id"] == bot["player"]


def test_two_players_play_a_whole_game_with_their_own_bearers(client: Any):
    amira, badr = new_player(client, "Amira"), new_player(client, "Badr")
    game = players_game(client, amira, badr, rules={"target_score": 1})
    assert game["seats"][0]["player"] == amira["id"] and game["seats"][0]["name"] == "Amira"
    view = client.get(f"/games/{game['id']}", headers=bearer(badr["token"])).get_json()
    assert view["you"] == 1 and [s["player"] for s in view["seats"]] == [amira["id"], badr["id"]]
    etag = client.get(f"/games/{game['id']}", headers=bearer(amira["token"])).headers["ETag"]
    cached = client.get(f"/games/{game['id']}",
                        headers={**bearer(amira["token"]), "If-None-Match": etag})  # fmt: skip
    assert cached.status_code == 304
    final = play_out(client, game["id"], [amira["token"], badr["token"]])
    assert final["status"] == "finished"
    listed = client.get("/games?status=finished&limit=100").get_json()["games"]
    entry = next(g for g in listed if g["id"] == game["id"])
    assert [s["player"] for s in entry["seats"]] == [amira["id"], badr["id"]]
    assert client.get(f"/games/{game['id']}/verify").get_json()["ok"]
    stream = client.get(f"/games/{game['id']}/stream").get_data(as_text=True)
    joined = [r.data for r in records(stream) if r.event == "joined"]
    assert joined == [{"seat": 1, "name": "Badr", "player": badr["id"]}]
    stats = [client.get(f"/players/{p['id']}").get_json()["stats"] for p in (amira, badr)]
    assert all(s["played"] == 1 for s in stats)
    assert sorted(s["won"] for s in stats) == [0, 1] or all(s["drawn"] == 1 for s in stats)


def test_a_player_resigns_with_its_bearer_and_seat_tokens_keep_working(client: Any):
    amira, badr = new_player(client, "Amira"), new_player(client, "Badr")
    created = client.post("/games", json={"players": [{"player": "me"}, {"bot": "greedy"}]},
                          headers=bearer(amira["token"])).get_json()  # fmt: skip
    seat_token = created["seats"][0]["token"]
    assert created["seats"][1]["player"] == "bot-greedy"
    seen = client.get(f"/games/{created['id']}", headers=bearer(seat_token)).get_json()
    assert seen["you"] == 0
    other = client.post(f"/games/{created['id']}/resign", headers=bearer(badr["token"]))
    assert other.status_code == 403 and other.get_json()["code"] == "forbidden"
    resigned = client.post(f"/games/{created['id']}/resign", headers=bearer(amira["token"]))
    assert resigned.status_code == 201 and resigned.get_json()["state"]["resigned"] == 0


def test_a_token_of_another_player_is_forbidden(client: Any):
    amira, badr, chadi = (new_player(client, name) for name in ("Amira", "Badr", "Chadi"))
    game = players_game(client, amira, badr)
    refused = client.get(f"/games/{game['id']}", headers=bearer(chadi["token"]))
    assert refused.status_code == 403 and refused.get_json()["code"] == "forbidden"
    move = client.post(f"/games/{game['id']}/moves", json={"card": "AS"},
                       headers=bearer(chadi["token"]))  # fmt: skip
    assert move.status_code == 403


def test_a_player_holds_at_most_one_seat_of_a_game(client: Any):
    amira = new_player(client, "Amira")
    twice = client.post("/games", json={"players": [{"player": "me"}, {"player": "me"}]},
                        headers=bearer(amira["token"]))  # fmt: skip
    assert twice.status_code == 409 and twice.get_json()["code"] == "already_seated"
    created = client.post("/games", json={"players": [{"player": "me"}, {"open": True}]},
                          headers=bearer(amira["token"])).get_json()  # fmt: skip
    again = client.post(f"/games/{created['id']}/join", json={"invite": created["invite"]},
                        headers=bearer(amira["token"]))  # fmt: skip
    assert again.status_code == 409 and again.get_json()["code"] == "already_seated"
    assert client.get(f"/games/{created['id']}").get_json()["seats"][1]["open"] is True


def test_me_needs_a_players_bearer_and_a_join_without_one_needs_a_name(client: Any):
    refused = client.post("/games", json={"players": [{"player": "me"}, {"bot": "random"}]})
    assert refused.status_code == 401 and refused.get_json()["code"] == "unauthorized"
    created = create(client, [{"name": "Amira"}, {"open": True}])
    nameless = client.post(f"/games/{created['id']}/join", json={"invite": created["invite"]})
    assert nameless.status_code == 422 and "name" in nameless.get_json()["errors"]


@pytest.mark.both_databases
def test_a_seats_player_changed_in_the_database_fails_the_audit(app: Any, client: Any):
    from sqlalchemy import text

    amira, badr = new_player(client, "Amira"), new_player(client, "Badr")
    game = players_game(client, amira, badr)
    with app.extensions["basra_db"].engine.begin() as connection:
        swap = text("UPDATE seats SET player_id = :other WHERE game_id = :game AND seat = 1")
        connection.execute(swap, {"other": amira["id"], "game": game["id"]})
    checks = client.get(f"/games/{game['id']}/verify").get_json()["checks"]
    assert not checks["players"]["ok"] and checks["hash_chain"]["ok"]


@pytest.mark.both_databases
def test_guests_that_never_played_are_forgotten_after_thirty_days_and_the_others_kept(
    app: Any, client: Any
):
    from app.services.retention import forget_guests

    from .clock_support import later

    def sweep_at(seconds: float) -> None:  # the sweeper's own call, alone
        forget_guests(app.extensions["basra_uow"](), later(seconds), app.config["GUEST_SECONDS"])

    idle, seated, seeking = (new_player(client, name) for name in ("Idle", "Seated", "Seeking"))
    client.post("/games", json={"players": [{"player": "me"}, {"bot": "random"}]},
                headers=bearer(seated["token"]))  # fmt: skip
    client.post("/seeks", json={"players": 2, "rules": {"target_score": 299}},
                headers=bearer(seeking["token"]))  # fmt: skip
    sweep_at(29 * 86_400)
    assert client.get(f"/players/{idle['id']}").status_code == 200
    sweep_at(31 * 86_400)
    assert client.get(f"/players/{idle['id']}").status_code == 404
    assert client.get("/players/me", headers=bearer(idle["token"])).status_code == 401
    for kept in (seated, seeking):
        assert client.get(f"/players/{kept['id']}").status_code == 200
    assert client.get("/players/bot-random").status_code == 200
