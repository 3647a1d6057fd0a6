"""The edges of a request: deep nesting, bodies that do not say they are JSON, names that hide
characters or pose as bots, fixed decks, security headers and caching (docs/reliability.md)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from app.engine.cards import FULL_DECK

from .support import assert_problem, bearer

HUMAN_VS_BOT = {"players": [{"name": "Amira"}, {"bot": "greedy"}]}
DECK = [str(card) for card in FULL_DECK]


def _create(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/games", json=body)
    assert response.status_code == 201, response.get_json()
    result: dict[str, Any] = response.get_json()
    return result


def _three_bodies(client: Any) -> list[tuple[str, dict[str, str]]]:
    """(url, headers) of each endpoint with a body, aimed at a real game with a real token."""
    playing = _create(client, HUMAN_VS_BOT)
    waiting = _create(client, {"players": [{"name": "Amira"}, {"open": True}]})
    return [
        ("/games", {}),
        (f"/games/{waiting['id']}/join", {}),
        (f"/games/{playing['id']}/moves", bearer(playing["seats"][0]["token"])),
    ]


# ---------------------------------------------------------------- nesting and media types
@pytest.mark.parametrize("opener", ["[", '{"a":'], ids=["arrays", "objects"])
def test_a_body_nested_ten_thousand_deep_is_a_400_bad_request(client, opener):
    for url, headers in _three_bodies(client):
        response = client.post(url, data=opener * 10_000, content_type="application/json",
                               headers=headers)  # fmt: skip
        assert_problem(response, 400, "bad_request")


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
     "multipart/form-data; boundary=x", "application/xml", None],
)  # fmt: skip
def test_a_json_body_not_labelled_as_json_is_a_415_and_changes_nothing(client, content_type):
    for url, headers in _three_bodies(client):
        body = {"players": [{"name": "Eve"}, {"bot": "random"}], "name": "Eve", "card": "7D"}
        data = json.dumps(body).encode()
        if content_type is None:  # what a Blob body sends: no Content-Type at all
            response = client.post(url, data=data, headers=headers)
            assert "Content-Type" not in response.request.headers
        else:
            response = client.post(url, data=data, content_type=content_type, headers=headers)
        assert_problem(response, 415, "unsupported_media_type")
    listed = client.get("/games?limit=100").get_json()["games"]
    assert not any(seat["name"] == "Eve" for game in listed for seat in game["seats"])


@pytest.mark.parametrize(
    "content_type",
    ["application/json; charset=utf-8", "application/problem+json", "APPLICATION/JSON"],
)
def test_json_and_any_plus_json_type_are_accepted(client, content_type):
    response = client.post("/games", data=json.dumps(HUMAN_VS_BOT), content_type=content_type)
    assert response.status_code == 201, response.get_json()


# ---------------------------------------------------------------- names
@pytest.mark.parametrize(
    "name",
    ["Amira\u202e", "Am\u200bira", "\u2066Amira", "Ami\u00adra", "Amira\x07", "Amira\u0085",
     "\ufeffAmira", "A\U000e0041"],
    ids=["rlo", "zero-width-space", "lri", "soft-hyphen", "bell", "nel", "bom", "tag"],
)  # fmt: skip
def test_a_name_with_a_control_or_format_character_is_refused(client, name):
    response = client.post("/games", json={"players": [{"name": name}, {"bot": "greedy"}]})
    problem = assert_problem(response, 422, "invalid_request")
    assert "name" in json.dumps(problem["errors"])
    waiting = _create(client, {"players": [{"name": "Amira"}, {"open": True}]})
    response = client.post(f"/games/{waiting['id']}/join", json={"name": name})
    assert assert_problem(response, 422, "invalid_request")["errors"].keys() == {"name"}
    response = client.post("/games", json={"players": [{"bot": "random", "name": name},
                                                       {"bot": "greedy"}]})  # fmt: skip
    assert_problem(response, 422, "invalid_request")


def test_names_are_stored_in_nfc_so_one_name_has_one_spelling(client):
    decomposed = "Jose\u0301"  # e + combining acute
    game = _create(client, {"players": [{"name": decomposed}, {"open": True}], "public": True})
    assert game["seats"][0]["name"] == "Jos\u00e9"
    joined = client.post(f"/games/{game['id']}/join", json={"name": "Zoe\u0308"}).get_json()
    names = [seat["name"] for seat in joined["state"]["seats"]]
    assert names == ["Jos\u00e9", "Zo\u00eb"]


@pytest.mark.parametrize("name", ["Random bot", "greedy BOT", "EXPERT bot"])
def test_the_bots_names_are_kept_for_bots(client, name):
    response = client.post("/games", json={"players": [{"name": name}, {"bot": "greedy"}]})
    assert_problem(response, 422, "invalid_request")
    waiting = _create(client, {"players": [{"name": "Amira"}, {"open": True}]})
    response = client.post(f"/games/{waiting['id']}/join", json={"name": name})
    assert_problem(response, 422, "invalid_request")
    game = _create(client, {"players": [{"name": "Amira"}, {"bot": "expert"}]})
    assert game["seats"][1]["name"] == "Expert bot"


# ---------------------------------------------------------------- rules and decks
def test_rules_under_which_nobody_can_score_are_a_422_naming_the_fields(client):
    rules = {"target_score": 1, "majority_points": 0, "basra_points": 0, "jack_basra_points": 0}
    response = client.post("/games", json={"players": [{"bot": "random"}, {"bot": "random"}],
                                           "rules": rules})  # fmt: skip
    problem = assert_problem(response, 422, "invalid_request")
    assert set(problem["errors"]["rules"]) == {"majority_points", "basra_points",
                                               "jack_basra_points"}  # fmt: skip


def test_a_fixed_deck_with_an_open_seat_is_refused(client):
    body = {"players": [{"name": "Amira"}, {"open": True}], "deck": DECK}
    problem = assert_problem(client.post("/games", json=body), 422, "invalid_request")
    assert set(problem["errors"]) == {"deck"}


def test_a_fixed_deck_shows_as_custom_deck_in_views_fairness_and_listings(client):
    fixed = _create(client, {"players": [{"name": "Amira"}, {"name": "Badr"}], "deck": DECK})
    fair = _create(client, HUMAN_VS_BOT)
    for game, expected in ((fixed, True), (fair, False)):
        game_id = game["id"]
        assert game["state"]["custom_deck"] is expected
        assert game["fairness"]["custom_deck"] is expected
        token = game["seats"][0]["token"]
        for headers in ({}, bearer(token)):
            assert (
                client.get(f"/games/{game_id}", headers=headers).get_json()["custom_deck"]
                is expected
            )
        assert client.get(f"/games/{game_id}/fairness").get_json()["custom_deck"] is expected
        listed = {g["id"]: g for g in client.get("/games?limit=100").get_json()["games"]}
        assert listed[game_id]["custom_deck"] is expected


# ---------------------------------------------------------------- headers
PAGES = ["/", "/play/abc", "/replay/abc", "/docs"]


@pytest.mark.parametrize("path", PAGES)
def test_every_html_page_carries_the_security_headers(client, path):
    response = client.get(path)
    assert response.status_code == 200 and response.mimetype == "text/html"
    headers = response.headers
    policy = dict(
        part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";")
    )
    assert policy["script-src"] == "'self'"  # no inline script, no eval
    assert policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    html = response.get_data(as_text=True)
    response.close()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "an inline script"
    assert not re.search(r"\son[a-z]+\s*=", html), "an inline event handler"
    assert "<style" not in html and " style=" not in html, "an inline style"


def test_every_script_and_stylesheet_a_page_names_is_served(client):
    for path in PAGES:
        page = client.get(path)
        html = page.get_data(as_text=True)
        page.close()
        for asset in re.findall(r'(?:src|href)="(/[^"]+)"', html):
            response = client.get(asset)
            assert response.status_code == 200, (path, asset)
            response.close()


def test_json_answers_are_never_sniffed(client):
    assert client.get("/healthz").headers["X-Content-Type-Options"] == "nosniff"
    response = client.get("/games/nope")
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize(
    "filename", ["index.html", "oauth2-redirect.html", "swagger-initializer.js",
                 "swagger-ui.js.map", "../__init__.py"],
)  # fmt: skip
def test_the_docs_serve_only_the_files_the_page_needs(client, filename):
    assert client.get(f"/docs/assets/{filename}").status_code == 404


def test_every_answer_with_a_token_or_a_hand_says_no_store(client):
    created = client.post("/games", json={"players": [{"name": "Amira"}, {"bot": "greedy"}]})
    assert created.headers["Cache-Control"] == "no-store"
    game = created.get_json()
    game_id, token = game["id"], game["seats"][0]["token"]
    own = client.get(f"/games/{game_id}", headers=bearer(token))
    assert own.headers["Cache-Control"] == "no-store"
    etag = own.headers["ETag"]
    again = client.get(f"/games/{game_id}", headers={**bearer(token), "If-None-Match": etag})
    assert again.status_code == 304 and again.headers["Cache-Control"] == "no-store"
    move = client.post(f"/games/{game_id}/moves", json={"card": own.get_json()["hand"][0]},
                       headers=bearer(token))  # fmt: skip
    assert move.status_code == 201 and move.headers["Cache-Control"] == "no-store"
    waiting = _create(client, {"players": [{"name": "Amira"}, {"open": True}]})
    joined = client.post(
        f"/games/{waiting['id']}/join", json={"name": "Badr", "invite": waiting["invite"]}
    )
    assert joined.status_code == 201 and joined.headers["Cache-Control"] == "no-store"
    spectator = client.get(f"/games/{game_id}")
    assert spectator.headers["Cache-Control"] == "no-cache"  # public: may be kept, revalidated


def test_the_documented_name_pattern_is_exactly_the_refused_unicode_categories():
    from app.api.schema_fields import NAME_PATTERN, hidden_characters_pattern

    assert hidden_characters_pattern() == NAME_PATTERN, "Python's Unicode changed: update it"
