"""Rated games (API.md items 19 and 20): who may sit at one, what its end does to the
ratings, exactly once (racing requests, on both databases), and the players' histories and
the leaderboard (read by SQL, on both databases)."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import bearer, stacked_deck
from .players_support import new_player, play_first_hands, play_out, players_game, race


def rated_vs_bot(client: Any, player: dict[str, Any]) -> str:
    body = {"players": [{"player": "me"}, {"bot": "random"}], "rated": True}
    created = client.post("/games", json=body, headers=bearer(player["token"]))
    assert created.status_code == 201, created.get_json()
    game_id: str = created.get_json()["id"]
    return game_id


def resign(client: Any, game_id: str, player: dict[str, Any]) -> dict[str, Any]:
    response = client.post(f"/games/{game_id}/resign", headers=bearer(player["token"]))
    assert response.status_code == 201, response.get_json()
    state: dict[str, Any] = response.get_json()["state"]
    return state


def rating(client: Any, player: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = client.get(f"/players/{player['id']}").get_json()
    return found


def test_a_rated_game_needs_players_at_its_human_seats_and_no_deck(client: Any):
    amira = new_player(client, "Amira")
    named = client.post("/games", json={"players": [{"name": "Amira"}, {"bot": "random"}],
                                        "rated": True})  # fmt: skip
    assert named.status_code == 422 and "players" in named.get_json()["errors"]
    bots = client.post("/games", json={"players": [{"bot": "greedy"}, {"bot": "random"}],
                                       "rated": True})  # fmt: skip
    assert bots.status_code == 422 and "players" in bots.get_json()["errors"]
    deck = stacked_deck([["5D", "9S", "KD", "4C"], ["4S", "QH", "JC", "10C"]], ["5C", "2H"])
    decked = client.post("/games", json={"players": [{"player": "me"}, {"bot": "random"}],
                                         "rated": True, "deck": deck},
                         headers=bearer(amira["token"]))  # fmt: skip
    assert decked.status_code == 422 and "deck" in decked.get_json()["errors"]


def test_a_seat_of_a_rated_game_is_refused_to_a_join_without_a_players_bearer(client: Any):
    amira = new_player(client, "Amira")
    body = {"players": [{"player": "me"}, {"open": True}], "rated": True}
    created = client.post("/games", json=body, headers=bearer(amira["token"]))
    game = created.get_json()
    joined = client.post(f"/games/{game['id']}/join", json={"name": "Badr",
                                                             "invite": game["invite"]})  # fmt: skip
    assert joined.status_code == 403 and joined.get_json()["code"] == "player_required"
    assert client.get(f"/games/{game['id']}").get_json()["seats"][1]["open"] is True


def test_a_rated_match_moves_the_winners_rating_up_and_the_losers_down_once(client: Any):
    amira, badr = new_player(client, "Amira"), new_player(client, "Badr")
    game = players_game(client, amira, badr, rated=True, rules={"target_score": 1})
    final = play_out(client, game["id"], [amira["token"], badr["token"]])
    after = [rating(client, p) for p in (amira, badr)]
    assert [p["stats"]["played"] for p in after] == [1, 1]
    changes = {change["seat"]: change for change in final["ratings"]}
    assert set(changes) == {0, 1}
    for seat, player in enumerate(after):
        assert changes[seat]["after"]["value"] == player["rating"]["value"]
        assert changes[seat]["before"]["value"] == 25.0
    if final["winner"] is not None:
        won, lost = after[final["winner"]], after[1 - final["winner"]]
        assert won["rating"]["value"] > 25.0 > lost["rating"]["value"]
    again = client.get(f"/games/{game['id']}", headers=bearer(amira["token"])).get_json()
    assert again["ratings"] == final["ratings"]  # read back: changed once, at the end
    history = client.get(f"/players/{badr['id']}/games").get_json()["games"][0]
    assert history["rated"] and history["rating_after"] == after[1]["rating"]["value"]


def played_vs_bot(client: Any, player: dict[str, Any]) -> str:
    """A rated game against a bot whose first hands are played: its end is rated."""
    game_id = rated_vs_bot(client, player)
    play_first_hands(client, game_id, [player["token"], None])
    return game_id


def test_a_resigned_rated_game_rates_its_player_never_its_bot_and_unrated_ones_nobody(
    client: Any,
):
    amira = new_player(client, "Amira")
    bot_before = client.get("/players/bot-random").get_json()
    state = resign(client, played_vs_bot(client, amira), amira)
    bot_after = client.get("/players/bot-random").get_json()
    assert rating(client, amira)["rating"]["value"] < 25.0
    assert bot_after["rating"] == bot_before["rating"]  # fixed: no game moves it
    rules = client.get("/rules").get_json()["bots"]
    assert bot_after["rating"]["value"] == next(
        b["rating"] for b in rules if b["level"] == "random"
    )
    assert [c["before"] == c["after"] for c in state["ratings"] if c["seat"] == 1] == [True]
    assert bot_after["stats"]["won"] == bot_before["stats"]["won"] + 1
    unrated = client.post("/games", json={"players": [{"player": "me"}, {"bot": "random"}]},
                          headers=bearer(amira["token"])).get_json()  # fmt: skip
    before = rating(client, amira)
    state = resign(client, unrated["id"], amira)
    assert state["ratings"] is None and state["rated"] is False
    assert rating(client, amira)["rating"] == before["rating"]
    assert rating(client, amira)["stats"]["lost"] == 2


@pytest.mark.both_databases
def test_racing_resignations_on_two_instances_change_the_ratings_once(
    client: Any, second_instance: Any
):
    amira, badr = new_player(client, "Amira"), new_player(client, "Badr")
    game = players_game(client, amira, badr, rated=True)
    play_first_hands(client, game["id"], [amira["token"], badr["token"]])
    url = f"/games/{game['id']}/resign"
    answers = race(lambda: client.post(url, headers=bearer(amira["token"])),
                   lambda: second_instance.post(url, headers=bearer(badr["token"])))  # fmt: skip
    assert sorted(answer.status_code for answer in answers) == [201, 409]
    players = [rating(client, p) for p in (amira, badr)]
    assert [p["stats"]["played"] for p in players] == [1, 1]
    assert sorted(p["rating"]["value"] for p in players) != [25.0, 25.0]
    final = client.get(f"/games/{game['id']}").get_json()
    assert {c["player"]: c["after"]["value"] for c in final["ratings"]} == {
        p["id"]: p["rating"]["value"] for p in players
    }


@pytest.mark.both_databases
def test_racing_final_cards_on_two_instances_change_the_ratings_once(
    client: Any, second_instance: Any
):
    amira, badr = new_player(client, "Amira"), new_player(client, "Badr")
    tokens = [amira["token"], badr["token"]]
    game = players_game(client, amira, badr, rated=True, rules={"target_score": 1})
    url = f"/games/{game['id']}"
    for _ in range(10):  # a round's last card; a round that leaves the sides level deals again
        for _ in range(200):
            view = client.get(url, headers=bearer(tokens[0])).get_json()
            mover = tokens[view["turn"]]
            hand = client.get(url, headers=bearer(mover)).get_json()["hand"]
            if view["stock"] == 0 and sum(s["hand_size"] for s in view["seats"]) == 1:
                break
            assert client.post(f"{url}/moves", json={"card": hand[0]},
                               headers=bearer(mover)).status_code == 201  # fmt: skip
        move, headers = {"card": hand[0]}, bearer(mover)
        answers = race(
            lambda m=move, h=headers: client.post(f"{url}/moves", json=m, headers=h),
            lambda m=move, h=headers: second_instance.post(f"{url}/moves", json=m, headers=h),
        )
        codes = sorted(answer.status_code for answer in answers)
        if client.get(url).get_json()["status"] == "finished":
            break
        assert codes in ([201, 409], [201, 422])  # the card went, into a new deal
    assert codes == [201, 409]
    final = client.get(url).get_json()
    assert final["status"] == "finished"
    players = [rating(client, p) for p in (amira, badr)]
    assert [p["stats"]["played"] for p in players] == [1, 1]
    assert [c["after"]["value"] for c in final["ratings"]] == [
        p["rating"]["value"] for p in players
    ]


@pytest.mark.both_databases
def test_a_players_games_are_paged_newest_first(client: Any):
    amira = new_player(client, "Amira")
    made = [played_vs_bot(client, amira)] + [rated_vs_bot(client, amira) for _ in range(2)]
    resign(client, made[0], amira)
    first = client.get(f"/players/{amira['id']}/games?limit=2").get_json()
    assert [g["id"] for g in first["games"]] == made[:0:-1]
    rest = client.get(f"/players/{amira['id']}/games?limit=2&cursor={first['next_cursor']}")
    assert [g["id"] for g in rest.get_json()["games"]] == [made[0]]
    assert rest.get_json()["next_cursor"] is None
    finished = client.get(f"/players/{amira['id']}/games?status=finished").get_json()["games"]
    assert [(g["id"], g["result"], g["side"]) for g in finished] == [(made[0], "lost", 0)]
    assert finished[0]["rating_before"] == 25.0 > finished[0]["rating_after"]
    active = first["games"][0]
    assert active["result"] is None and active["rating_before"] is None and active["rated"]
    assert client.get("/players/nobody/games").get_json()["code"] == "not_found"
    for game_id in made[1:]:  # their turn clocks stopped: no other test's sweep finds them due
        resign(client, game_id, amira)


@pytest.mark.both_databases
def test_the_leaderboard_leaves_provisional_players_out(client: Any):
    steady, newcomer = new_player(client, "Steady"), new_player(client, "Newcomer")
    for _ in range(5):
        resign(client, played_vs_bot(client, steady), steady)
    resign(client, played_vs_bot(client, newcomer), newcomer)
    board = client.get("/leaderboard?limit=100").get_json()["players"]
    ids = [entry["id"] for entry in board]
    assert steady["id"] in ids and newcomer["id"] not in ids
    assert all(not entry["rating"]["provisional"] for entry in board)
    values = [entry["rating"]["value"] for entry in board]
    assert values == sorted(values, reverse=True)
    assert not any(entry["bot"] for entry in board)
    assert [entry["rank"] for entry in board] == list(range(1, len(board) + 1))
