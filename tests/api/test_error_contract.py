"""Every refusal of API.md: application/problem+json with a stable code, in the documented
order of checks, and never a change to the game."""

from __future__ import annotations

import json

import pytest

from app import create_app

from .helpers import bearer, create, play_to_end, stacked_deck
from .support import (
    BOTS_ONLY,
    assert_problem,
    footprint,
    humans,
    not_in,
    play,
    play_ok,
    view,
)

TOO_BIG = 64 * 1024 + 1
HANDS = [["9S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]]
FLOOR = ["AH", "5S", "9D", "3C"]


def stacked_pair(client):
    """Two human seats; seat 0 holds 9S 2C 3D 4H and leads onto AH 5S 9D 3C."""
    return humans(client, deck=stacked_deck(HANDS, FLOOR))


def post_raw(client, url, data, token=None, **headers):
    if token is not None:
        headers.update(bearer(token))
    return client.post(url, data=data, content_type="application/json", headers=headers)


class Unchanged:
    """``with Unchanged(client, game_id):`` fails if the block changed the game."""

    def __init__(self, client, game_id):
        self.client, self.game_id = client, game_id

    def __enter__(self):
        self.before = footprint(self.client, self.game_id)
        return self

    def __exit__(self, kind, *_):
        if kind is None:
            assert footprint(self.client, self.game_id) == self.before, "a refusal changed the game"


# ---------------------------------------------------------------- 400 and 413
@pytest.mark.parametrize("data", [b"{", b"not json", b'{"card": "7D"', b"\xff\xfe{}"],
                         ids=["truncated", "text", "unclosed", "not-utf8"])  # fmt: skip
def test_malformed_json_is_a_400_bad_request_on_every_body(client, data):
    game, tokens = humans(client)
    open_game = create(client, [{"name": "Amira"}, {"open": True}])
    assert_problem(post_raw(client, "/games", data), 400, "bad_request")
    assert_problem(post_raw(client, f"/games/{open_game['id']}/join", data), 400, "bad_request")
    with Unchanged(client, game["id"]):
        response = post_raw(client, f"/games/{game['id']}/moves", data, tokens[0])
        assert_problem(response, 400, "bad_request")


def test_a_body_over_64_kib_is_a_413_on_every_body(client):
    game, tokens = humans(client)
    open_game = create(client, [{"name": "Amira"}, {"open": True}])
    huge = json.dumps({"card": "9S", "pad": "x" * TOO_BIG}).encode()
    assert_problem(post_raw(client, "/games", huge), 413, "payload_too_large")
    assert_problem(
        post_raw(client, f"/games/{open_game['id']}/join", huge), 413, "payload_too_large"
    )
    with Unchanged(client, game["id"]):
        response = post_raw(client, f"/games/{game['id']}/moves", huge, tokens[0])
        assert_problem(response, 413, "payload_too_large")


def test_a_body_just_under_64_kib_is_read(client):
    body = json.dumps({"players": BOTS_ONLY, "pad": "x" * (60 * 1024)}).encode()
    response = post_raw(client, "/games", body)
    problem = assert_problem(response, 422, "invalid_request")  # read, then refused for "pad"
    assert "pad" in json.dumps(problem.get("errors", {}))


# ---------------------------------------------------------------- 422 schema violations
@pytest.mark.parametrize(
    "body",
    [{"players": BOTS_ONLY, "colour": "red"},
     {"players": [{"bot": "random", "level": 3}, {"bot": "greedy"}]},
     {"players": [{"name": "Amira", "age": 30}, {"bot": "greedy"}]},
     {"players": [{"open": True, "when": "later"}, {"bot": "greedy"}]},
     {"players": BOTS_ONLY, "rules": {"target_score": 50, "jokers": True}}],
    ids=["top-level", "bot-entry", "human-entry", "open-entry", "rules"],
)  # fmt: skip
def test_unknown_keys_in_a_create_body_are_refused(client, body):
    problem = assert_problem(client.post("/games", json=body), 422, "invalid_request")
    assert problem.get("errors"), "the offending fields are named"


def test_unknown_keys_in_a_join_body_are_refused(client):
    game = create(client, [{"name": "Amira"}, {"open": True}])
    with Unchanged(client, game["id"]):
        response = client.post(f"/games/{game['id']}/join", json={"name": "Badr", "x": 1})
        assert_problem(response, 422, "invalid_request")


def test_unknown_keys_in_a_move_body_are_refused(client):
    game, tokens = stacked_pair(client)
    with Unchanged(client, game["id"]):
        response = client.post(f"/games/{game['id']}/moves", json={"card": "9S", "seat": 0},
                               headers=bearer(tokens[0]))  # fmt: skip
        problem = assert_problem(response, 422, "invalid_request")
        assert "seat" in json.dumps(problem["errors"])


@pytest.mark.parametrize("body", [[], "9S", None, 7], ids=["list", "string", "null", "number"])
def test_a_body_that_is_not_a_json_object_is_refused(client, body):
    game, tokens = stacked_pair(client)
    with Unchanged(client, game["id"]):
        response = post_raw(client, f"/games/{game['id']}/moves", json.dumps(body), tokens[0])
        assert_problem(response, 422, "invalid_request")
    assert_problem(post_raw(client, "/games", json.dumps(body)), 422, "invalid_request")


def test_a_move_needs_a_card(client):
    game, tokens = stacked_pair(client)
    with Unchanged(client, game["id"]):
        response = client.post(f"/games/{game['id']}/moves", json={}, headers=bearer(tokens[0]))
        assert_problem(response, 422, "invalid_request")


@pytest.mark.parametrize(
    "player",
    [{"name": "x" * 41}, {"bot": "random", "name": "x" * 41}, {"name": "A", "seed": "s" * 65}],
    ids=["human-name", "bot-name", "seed"],
)  # fmt: skip
def test_names_over_40_and_seeds_over_64_characters_are_refused(client, player):
    response = client.post("/games", json={"players": [player, {"bot": "greedy"}]})
    assert_problem(response, 422, "invalid_request")


def test_names_of_40_and_seeds_of_64_characters_are_accepted(client):
    body = create(
        client, [{"name": "x" * 40, "seed": "s" * 64}, {"bot": "random", "name": "y" * 40}]
    )
    assert [s["name"] for s in body["seats"]] == ["x" * 40, "y" * 40]


@pytest.mark.parametrize("target", [0, 10001, -5])
def test_a_target_score_outside_1_to_10000_is_refused(client, target):
    response = client.post("/games", json={"players": BOTS_ONLY, "rules": {"target_score": target}})
    assert_problem(response, 422, "invalid_request")


# ---------------------------------------------------------------- cards
@pytest.mark.parametrize("card", ["ZZ", "11H", "1S", "7X", "", "7 D", "JOKER"])
def test_a_bad_card_code_is_a_422_invalid_card(client, card):
    game, tokens = stacked_pair(client)
    with Unchanged(client, game["id"]):
        assert_problem(play(client, game["id"], tokens[0], card), 422, "invalid_card")


def test_a_card_that_is_not_a_string_is_a_schema_violation(client):
    game, tokens = stacked_pair(client)
    with Unchanged(client, game["id"]):
        assert_problem(play(client, game["id"], tokens[0], 7), 422, "invalid_request")


def test_a_card_not_in_the_callers_hand_is_refused(client):
    game, tokens = stacked_pair(client)
    with Unchanged(client, game["id"]):
        for card in ("KC", "AH", "10H"):  # the other hand, the floor, the stock
            assert_problem(play(client, game["id"], tokens[0], card), 422, "card_not_in_hand")


# ---------------------------------------------------------------- 401, 403, 404
@pytest.mark.parametrize(
    "authorization", [None, "Bearer nope", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Bearer", "nope"],
    ids=["none", "unknown", "basic", "empty-bearer", "no-scheme"],
)  # fmt: skip
def test_a_move_without_a_valid_token_is_a_401(client, authorization):
    game, _ = stacked_pair(client)
    headers = {"Authorization": authorization} if authorization else {}
    with Unchanged(client, game["id"]):
        response = client.post(f"/games/{game['id']}/moves", json={"card": "9S"}, headers=headers)
        assert_problem(response, 401, "unauthorized")


def test_a_token_of_another_game_is_a_403(client):
    game, _ = stacked_pair(client)
    _, other_tokens = humans(client)
    with Unchanged(client, game["id"]):
        assert_problem(play(client, game["id"], other_tokens[0], "9S"), 403, "forbidden")
    response = client.get(f"/games/{game['id']}", headers=bearer(other_tokens[0]))
    assert_problem(response, 403, "forbidden")


@pytest.mark.parametrize(
    "method, path",
    [("get", ""), ("post", "/join"), ("post", "/moves"), ("get", "/moves"), ("get", "/events"),
     ("get", "/replay"), ("get", "/verify"), ("get", "/fairness")],
)  # fmt: skip
def test_every_game_endpoint_answers_404_for_an_unknown_game(client, method, path):
    body = {"name": "Zaki"} if path == "/join" else {"card": "7D"}
    kwargs = {"json": body} if method == "post" else {}
    response = getattr(client, method)(f"/games/0123456789abcdef{path}", **kwargs)
    assert_problem(response, 404, "not_found")


# ---------------------------------------------------------------- 409 and 412
def test_a_move_out_of_turn_is_a_409_not_your_turn(client):
    game, tokens = stacked_pair(client)
    hand = view(client, game["id"], tokens[1])["hand"]
    with Unchanged(client, game["id"]):
        assert_problem(play(client, game["id"], tokens[1], hand[0]), 409, "not_your_turn")


def test_a_move_in_a_waiting_or_finished_game_is_a_409_game_not_active(client):
    waiting = create(client, [{"name": "Amira"}, {"open": True}])
    with Unchanged(client, waiting["id"]):
        response = play(client, waiting["id"], waiting["seats"][0]["token"], "7D")
        assert_problem(response, 409, "game_not_active")
    finished = create(client, [{"name": "Amira"}, {"bot": "random"}], rules={"target_score": 1})
    play_to_end(client, finished["id"], finished["seats"][0]["token"])
    with Unchanged(client, finished["id"]):
        response = play(client, finished["id"], finished["seats"][0]["token"], "7D")
        assert_problem(response, 409, "game_not_active")


def test_joining_a_full_game_is_a_409_game_full(client):
    game, _ = humans(client)
    with Unchanged(client, game["id"]):
        response = client.post(f"/games/{game['id']}/join", json={"name": "Zaki"})
        assert_problem(response, 409, "game_full")


def test_replaying_an_unfinished_game_is_a_409_game_not_finished(client):
    game, _ = humans(client)
    assert_problem(client.get(f"/games/{game['id']}/replay?step=0"), 409, "game_not_finished")


def test_a_stale_if_match_is_a_412_version_mismatch(client):
    game, tokens = stacked_pair(client)
    version = view(client, game["id"])["version"]
    with Unchanged(client, game["id"]):
        response = play(
            client, game["id"], tokens[0], "9S", headers={"If-Match": f'"{version - 1}"'}
        )
        assert_problem(response, 412, "version_mismatch")


def test_an_if_match_of_the_current_version_lets_the_move_through(client):
    game, tokens = stacked_pair(client)
    etag = client.get(f"/games/{game['id']}").headers["ETag"]
    body = play_ok(client, game["id"], tokens[0], "9S", headers={"If-Match": etag})
    assert body["moves"][0]["card"] == "9S"
    version = body["state"]["version"]
    body = play_ok(client, game["id"], tokens[1], "KC", headers={"If-Match": str(version)})
    assert body["moves"][0]["card"] == "KC"


# ---------------------------------------------------------------- Idempotency-Key
@pytest.mark.both_databases
def test_a_retry_with_the_same_key_returns_the_first_response_and_applies_nothing(client):
    game, tokens = stacked_pair(client)
    key = {"Idempotency-Key": "move-1"}
    first = play(client, game["id"], tokens[0], "9S", headers=key)
    assert first.status_code == 201
    with Unchanged(client, game["id"]):
        again = play(client, game["id"], tokens[0], "9S", headers=key)
    assert again.status_code == 201
    assert again.data == first.data  # byte for byte
    assert again.headers["ETag"] == first.headers["ETag"]


def test_the_same_key_with_another_body_is_a_422_idempotency_conflict(client):
    game, tokens = stacked_pair(client)
    key = {"Idempotency-Key": "move-1"}
    play_ok(client, game["id"], tokens[0], "9S", headers=key)
    with Unchanged(client, game["id"]):
        response = play(client, game["id"], tokens[0], "2C", headers=key)
        assert_problem(response, 422, "idempotency_conflict")


def test_a_key_belongs_to_the_seat_that_used_it(client):
    game, tokens = stacked_pair(client)
    key = {"Idempotency-Key": "same-key"}
    play_ok(client, game["id"], tokens[0], "9S", headers=key)
    body = play_ok(client, game["id"], tokens[1], "KC", headers=key)
    assert body["moves"][0]["seat"] == 1


def test_a_key_whose_request_was_refused_is_not_stored(client):
    game, tokens = stacked_pair(client)
    key = {"Idempotency-Key": "early"}
    assert_problem(play(client, game["id"], tokens[1], "KC", headers=key), 409, "not_your_turn")
    play_ok(client, game["id"], tokens[0], "9S")
    body = play_ok(client, game["id"], tokens[1], "KC", headers=key)
    assert body["moves"][0]["card"] == "KC"


# ---------------------------------------------------------------- the order of checks
def test_an_unknown_game_is_404_before_any_token_is_checked(client):
    _, tokens = humans(client)
    for headers in ({}, bearer("nope"), bearer(tokens[0])):
        response = client.post(
            "/games/0123456789abcdef/moves", json={"card": "7D"}, headers=headers
        )
        assert_problem(response, 404, "not_found")
        assert_problem(client.get("/games/0123456789abcdef", headers=headers), 404, "not_found")


def test_the_token_is_checked_before_the_body(client):
    game, _ = stacked_pair(client)
    _, other_tokens = humans(client)
    url = f"/games/{game['id']}/moves"
    huge = json.dumps({"card": "9S", "pad": "x" * TOO_BIG})
    with Unchanged(client, game["id"]):
        assert_problem(post_raw(client, url, b"{"), 401, "unauthorized")
        assert_problem(post_raw(client, url, huge, "nope"), 401, "unauthorized")
        assert_problem(post_raw(client, url, '{"card": "ZZ"}', "nope"), 401, "unauthorized")
        assert_problem(post_raw(client, url, b"{", other_tokens[0]), 403, "forbidden")
        assert_problem(post_raw(client, url, '{"x": 1}', other_tokens[0]), 403, "forbidden")


def test_the_body_is_checked_before_the_idempotency_key(client):
    game, tokens = stacked_pair(client)
    key = {"Idempotency-Key": "move-1"}
    play_ok(client, game["id"], tokens[0], "9S", headers=key)
    url = f"/games/{game['id']}/moves"
    with Unchanged(client, game["id"]):
        assert_problem(post_raw(client, url, b"{", tokens[0], **key), 400, "bad_request")
        response = post_raw(client, url, '{"card": "9S", "x": 1}', tokens[0], **key)
        assert_problem(response, 422, "invalid_request")
        assert_problem(
            post_raw(client, url, '{"card": "ZZ"}', tokens[0], **key), 422, "invalid_card"
        )


def test_a_stored_idempotency_key_answers_before_the_games_state_is_checked(client):
    game, tokens = stacked_pair(client)
    key = {"Idempotency-Key": "move-1"}
    first = play_ok(client, game["id"], tokens[0], "9S", headers=key)
    stale = {"If-Match": '"1"', **key}
    with Unchanged(client, game["id"]):
        # now it is seat 1's turn, 9S has left the hand, and version 1 is stale
        for headers in (key, stale):
            response = play(client, game["id"], tokens[0], "9S", headers=headers)
            assert response.status_code == 201
            assert response.get_json() == first
    without_key = play(client, game["id"], tokens[0], "9S")
    assert_problem(without_key, 409, "not_your_turn")


def test_a_stale_version_is_reported_before_a_card_not_in_hand(client):
    game, tokens = stacked_pair(client)
    with Unchanged(client, game["id"]):
        response = play(client, game["id"], tokens[0], "KC", headers={"If-Match": '"1"'})
        assert_problem(response, 412, "version_mismatch")


def test_join_checks_the_game_then_the_body_then_the_seats(client):
    assert_problem(post_raw(client, "/games/0123456789abcdef/join", b"{"), 404, "not_found")
    game, _ = humans(client)
    url = f"/games/{game['id']}/join"
    assert_problem(post_raw(client, url, b"{"), 400, "bad_request")
    assert_problem(post_raw(client, url, '{"name": "x", "y": 1}'), 422, "invalid_request")
    assert_problem(post_raw(client, url, '{"name": "Zaki"}'), 409, "game_full")


def test_a_malformed_if_match_is_a_400_but_only_after_the_game_and_the_token(client):
    game, tokens = stacked_pair(client)
    bad = {"If-Match": "version twelve"}
    with Unchanged(client, game["id"]):
        assert_problem(play(client, game["id"], tokens[0], "9S", headers=bad), 400, "bad_request")
        assert_problem(play(client, game["id"], None, "9S", headers=bad), 401, "unauthorized")
    response = play(client, "0123456789abcdef", tokens[0], "9S", headers=bad)
    assert_problem(response, 404, "not_found")


def test_an_idempotency_key_must_be_1_to_255_characters(client):
    game, tokens = stacked_pair(client)
    with Unchanged(client, game["id"]):
        for key in ("", "k" * 256):
            response = play(client, game["id"], tokens[0], "9S", headers={"Idempotency-Key": key})
            assert_problem(response, 422, "invalid_request")
    play_ok(client, game["id"], tokens[0], "9S", headers={"Idempotency-Key": "k" * 255})


def test_a_bad_query_is_refused_only_after_the_game_and_the_token(client):
    game, _ = stacked_pair(client)
    assert_problem(client.get("/games/0123456789abcdef/events?after=-1"), 404, "not_found")
    assert_problem(client.get("/games/0123456789abcdef/replay?step=x"), 404, "not_found")
    response = client.get(f"/games/{game['id']}/events?after=-1", headers=bearer("nope"))
    assert_problem(response, 401, "unauthorized")
    assert_problem(client.get(f"/games/{game['id']}/events?after=-1"), 422, "invalid_request")


# ---------------------------------------------------------------- every refusal, side effects
def test_no_refusal_in_a_sequence_of_bad_requests_changes_the_game(client):
    game, tokens = stacked_pair(client)
    stranger = not_in(HANDS[0], FLOOR)
    with Unchanged(client, game["id"]):
        for token, card, headers in [
            (tokens[1], "KC", {}), (tokens[0], stranger, {}), (None, "9S", {}),
            (tokens[0], "9S", {"If-Match": '"1"'}), ("nope", "9S", {}), (tokens[0], "ZZ", {}),
        ]:  # fmt: skip
            assert play(client, game["id"], token, card, headers=headers).status_code >= 400
    assert view(client, game["id"], tokens[0])["hand"] == HANDS[0]


def test_a_refused_creation_creates_no_game(client):
    create(client, BOTS_ONLY)
    # The newest game's id: its bots play on meanwhile, so its version and status move on.
    newest = client.get("/games?limit=1").get_json()["games"][0]["id"]
    for body in ({"players": BOTS_ONLY, "x": 1}, {"players": BOTS_ONLY[:1]}):
        assert client.post("/games", json=body).status_code == 422
    assert client.get("/games?limit=1").get_json()["games"][0]["id"] == newest


# ---------------------------------------------------------------- 5xx
def test_a_server_error_is_a_problem_document_too(tmp_path):
    broken = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'never-migrated.sqlite3'}",
                         "RATE_LIMIT": "off"})  # fmt: skip
    try:
        response = broken.test_client().get("/games/0123456789abcdef")
        assert response.status_code >= 500
        assert response.mimetype == "application/problem+json"
        body = response.get_json()
        assert body["status"] == response.status_code and body["code"] and body["title"]
        assert "SELECT" not in body["detail"]  # no SQL or internals in the answer
    finally:
        broken.extensions["basra_db"].dispose()


# ---------------------------------------------------------------- 429
def test_too_many_requests_is_a_429_with_retry_after(database_url):
    limited = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "3 per minute"})
    try:
        client = limited.test_client()
        answers = [client.get("/games?limit=1") for _ in range(4)]
        assert [a.status_code for a in answers[:3]] == [200, 200, 200]
        problem = assert_problem(answers[3], 429, "rate_limited")
        assert int(answers[3].headers["Retry-After"]) >= 1
        assert problem["detail"]
        assert client.get("/healthz").status_code == 200  # health checks are never limited
    finally:
        limited.extensions["basra_db"].dispose()


def test_a_seat_token_has_its_own_limit(database_url):
    limited = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "1000 per minute",
                          "TOKEN_RATE_LIMIT": "2 per minute"})  # fmt: skip
    try:
        client = limited.test_client()
        game, tokens = humans(client)
        url = f"/games/{game['id']}"
        answers = [client.get(url, headers=bearer(tokens[0])) for _ in range(3)]
        assert [a.status_code for a in answers[:2]] == [200, 200]
        assert_problem(answers[2], 429, "rate_limited")
        assert "Retry-After" in answers[2].headers
        assert client.get(url, headers=bearer(tokens[1])).status_code == 200
    finally:
        limited.extensions["basra_db"].dispose()
