"""GET /games/{id}: what each caller sees, and the ETag / If-None-Match handshake."""

from __future__ import annotations

import hashlib

from .helpers import bearer, human_vs_bot, stacked_deck
from .support import (
    VIEW_FIELDS,
    assert_problem,
    card_strings,
    events,
    finished_bot_game,
    humans,
    play_ok,
    view,
)

SEAT_FIELDS = {"seat", "name", "bot", "side", "hand_size"}
SIDE_FIELDS = {"side", "seats", "captured", "basras", "jack_basras", "score"}
ROUND_FIELDS = {"round", "points", "cards", "majority"}


def test_a_spectator_sees_every_public_field_and_no_hand(client):
    game, _ = human_vs_bot(client)
    state = view(client, game["id"])
    assert set(state) >= VIEW_FIELDS
    assert not {"you", "hand", "legal_moves"} & set(state)
    assert (state["id"], state["status"], state["round"]) == (game["id"], "active", 1)
    assert isinstance(state["version"], int) and state["version"] >= 1
    assert (state["dealer"], state["turn"], state["target_score"]) == (1, 0, 101)
    assert len(state["floor"]) == 4 and state["stock"] == 40
    assert (state["last_move"], state["rounds"], state["winner"]) == (None, [], None)
    for seat in state["seats"]:
        assert set(seat) >= SEAT_FIELDS
    assert [s["hand_size"] for s in state["seats"]] == [4, 4]
    assert [s["bot"] for s in state["seats"]] == [None, "greedy"]
    for number, entry in enumerate(state["sides"]):
        assert set(entry) >= SIDE_FIELDS
        assert entry["side"] == number and entry["seats"] == [number]
        assert [entry[key] for key in ("captured", "basras", "jack_basras", "score")] == [0] * 4
    assert set(card_strings(state)) == set(state["floor"])  # no other card is shown


def test_a_seat_sees_its_own_hand_and_on_its_turn_what_each_card_would_do(client):
    game, token = human_vs_bot(client)
    state = view(client, game["id"], token)
    assert state["you"] == 0
    assert len(state["hand"]) == 4
    assert [entry["card"] for entry in state["legal_moves"]] == state["hand"]
    for entry in state["legal_moves"]:
        assert set(entry) == {"card", "captured", "basra"}
        assert set(entry["captured"]) <= set(state["floor"])
    assert set(card_strings(state)) <= set(state["floor"]) | set(state["hand"])


def test_the_rounds_and_the_winner_are_shown_once_a_round_is_scored(client):
    state = view(client, finished_bot_game(client)["id"])
    assert state["status"] == "finished" and state["winner"] in (0, 1) and state["turn"] is None
    for result in state["rounds"]:
        assert set(result) >= ROUND_FIELDS
        assert sum(result["cards"]) <= 52
        if result["majority"] is not None:
            assert result["cards"][result["majority"]] > result["cards"][1 - result["majority"]]


def test_an_unknown_game_is_not_found(client):
    assert_problem(client.get("/games/does-not-exist"), 404, "not_found")


def test_the_view_sends_an_etag_of_its_version(client):
    game, token = human_vs_bot(client)
    for headers in ({}, bearer(token)):
        response = client.get(f"/games/{game['id']}", headers=headers)
        assert response.headers["ETag"] == f'"{response.get_json()["version"]}"'


def test_if_none_match_with_the_current_etag_answers_304_without_a_body(client):
    game, token = human_vs_bot(client)
    etag = client.get(f"/games/{game['id']}").headers["ETag"]
    for headers in ({}, bearer(token)):
        response = client.get(f"/games/{game['id']}", headers={"If-None-Match": etag, **headers})
        assert response.status_code == 304
        assert response.data == b""
        assert response.headers["ETag"] == etag


def test_if_none_match_with_an_old_etag_answers_the_new_view(client):
    game, token = human_vs_bot(client)
    old = client.get(f"/games/{game['id']}").headers["ETag"]
    play_ok(client, game["id"], token, game["state"]["hand"][0])
    response = client.get(f"/games/{game['id']}", headers={"If-None-Match": old})
    assert response.status_code == 200
    assert response.headers["ETag"] != old
    assert response.get_json()["version"] > int(old.strip('"'))


def test_if_none_match_still_checks_the_token(client):
    game, _ = human_vs_bot(client)
    _, other_token = human_vs_bot(client)
    etag = client.get(f"/games/{game['id']}").headers["ETag"]
    headers = {"If-None-Match": etag}
    response = client.get(f"/games/{game['id']}", headers={**headers, **bearer(other_token)})
    assert_problem(response, 403, "forbidden")
    response = client.get(f"/games/{game['id']}", headers={**headers, **bearer("nope")})
    assert_problem(response, 401, "unauthorized")
    assert_problem(client.get("/games/nope", headers=headers), 404, "not_found")


def test_the_view_varies_with_the_authorization_header(client):
    game, _ = human_vs_bot(client)
    assert "Authorization" in client.get(f"/games/{game['id']}").headers.get("Vary", "")


def test_the_version_grows_with_every_applied_move(client):
    game, tokens = humans(client)
    versions = [view(client, game["id"])["version"]]
    for token in (tokens[0], tokens[1], tokens[0]):
        hand = view(client, game["id"], token)["hand"]
        response = client.post(f"/games/{game['id']}/moves", json={"card": hand[0]},
                               headers=bearer(token))  # fmt: skip
        assert response.headers["ETag"] == f'"{response.get_json()["state"]["version"]}"'
        versions.append(view(client, game["id"])["version"])
    assert versions == sorted(set(versions))
    assert versions[-1] - versions[0] >= 3


def test_the_creation_and_join_responses_send_the_etag_too(client):
    response = client.post("/games", json={"players": [{"name": "Amira"}, {"open": True}]})
    assert response.headers["ETag"] == f'"{response.get_json()["state"]["version"]}"'
    created = response.get_json()
    joined = client.post(
        f"/games/{created['id']}/join", json={"name": "Badr", "invite": created["invite"]}
    )
    assert joined.headers["ETag"] == f'"{joined.get_json()["state"]["version"]}"'
    assert joined.get_json()["state"]["version"] > response.get_json()["state"]["version"]


def test_a_moves_answer_carries_the_version_the_move_made(client):
    game, tokens = humans(client)
    hand = view(client, game["id"], tokens[0])["hand"]
    response = client.post(f"/games/{game['id']}/moves", json={"card": hand[0]},
                           headers=bearer(tokens[0]))  # fmt: skip
    stored = client.get(f"/games/{game['id']}")
    assert response.get_json()["state"]["version"] == stored.get_json()["version"]
    assert response.headers["ETag"] == stored.headers["ETag"]
    again = client.get(f"/games/{game['id']}", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304


def test_cards_buried_from_the_first_floor_are_never_shown(client):
    # RULES.md 1.5: JH and 7D dealt to the floor go to the bottom of the stock, unseen.
    hands = [["9S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]]
    game, tokens = humans(client, deck=stacked_deck(hands, ["JH", "5S", "7D", "3C"]))
    state = view(client, game["id"])
    assert state["floor"] == [
        "AS",
        "5S",
        "2S",
        "3C",
    ]  # the next cards of the stock took their places
    assert state["stock"] == 40
    answers = [state, view(client, game["id"], tokens[0]), events(client, game["id"]), game]
    assert not {"JH", "7D"} & set(card_strings(answers))


def test_a_seat_token_is_shown_once_and_never_again(client):
    game, tokens = humans(client, rules={"target_score": 1})
    digest = hashlib.sha256(tokens[0].encode()).hexdigest()
    answers = [
        client.get(f"/games/{game['id']}", headers=bearer(tokens[0])),
        client.get(f"/games/{game['id']}"),
        client.get(f"/games/{game['id']}/events", headers=bearer(tokens[0])),
        client.get(f"/games/{game['id']}/fairness"),
        client.get("/games?limit=100"),
        client.post(f"/games/{game['id']}/moves", json={"card": "ZZ"}, headers=bearer(tokens[0])),
    ]
    for answer in answers:
        text = answer.get_data(as_text=True)
        assert tokens[0] not in text and digest not in text
        assert '"token"' not in text


def test_each_round_entry_carries_the_basras_that_made_its_points(client):
    body = finished_bot_game(client)
    events = client.get(f"/games/{body['id']}/events?limit=1000").get_json()["events"]
    scored = {e["data"]["round"]: e["data"] for e in events if e["type"] == "RoundScored"}
    rounds = body["state"]["rounds"]
    assert rounds and len(rounds) == len(scored)
    for entry in rounds:
        assert entry["basras"] == scored[entry["round"]]["basras"]
        assert entry["jack_basras"] == scored[entry["round"]]["jack_basras"]
