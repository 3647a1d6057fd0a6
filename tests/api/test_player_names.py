"""A player renames itself (PATCH /players/me): later seats take the new name, seats it holds
keep theirs, and a refused rename changes nothing. Through HTTP."""

from __future__ import annotations

from typing import Any

from .helpers import bearer
from .players_support import new_player


def test_a_player_renames_itself_and_its_later_seats_take_the_new_name(client: Any):
    amira = new_player(client, "Guest 1234")
    before = client.post("/games", json={"players": [{"player": "me"}, {"bot": "greedy"}]},
                         headers=bearer(amira["token"])).get_json()  # fmt: skip
    renamed = client.patch("/players/me", json={"name": "Amira"}, headers=bearer(amira["token"]))
    assert renamed.status_code == 200 and renamed.get_json()["name"] == "Amira"
    assert client.get(f"/players/{amira['id']}").get_json()["name"] == "Amira"
    after = client.post("/games", json={"players": [{"player": "me"}, {"bot": "greedy"}]},
                        headers=bearer(amira["token"])).get_json()  # fmt: skip
    assert after["seats"][0]["name"] == "Amira"
    assert client.get(f"/games/{before['id']}").get_json()["seats"][0]["name"] == "Guest 1234"


def test_a_rename_needs_the_players_bearer_and_a_valid_name(client: Any):
    amira = new_player(client, "Amira")
    unknown = client.patch("/players/me", json={"name": "Badr"}, headers=bearer("nonsense"))
    assert unknown.status_code == 401 and unknown.get_json()["code"] == "unauthorized"
    # The token is checked before the body: no token and a bad body is still a 401.
    assert client.patch("/players/me", json={"name": ""}).status_code == 401
    for body in ({"name": ""}, {"name": "x" * 41}, {"name": "Badr", "bot": "greedy"}, {}):
        refused = client.patch("/players/me", json=body, headers=bearer(amira["token"]))
        assert refused.status_code == 422, body
        assert refused.get_json()["code"] == "invalid_request"
    assert client.get(f"/players/{amira['id']}").get_json()["name"] == "Amira"


BOT_LIKE = ["Expert bot ", "\u0395xpert bot", "Expert\u00a0bot", "Gr\u0435edy bot", "skilledbot"]


def test_a_name_that_reads_as_a_bots_or_is_blank_is_refused_everywhere(client: Any):
    amira = new_player(client, "Amira")
    for name in [*BOT_LIKE, "   ", "\u00a0", "x" * 25]:
        made = client.post("/players", json={"name": name})
        assert made.status_code == 422 and made.get_json()["code"] == "invalid_request", name
        renamed = client.patch("/players/me", json={"name": name}, headers=bearer(amira["token"]))
        assert renamed.status_code == 422, name
    seat = client.post("/games", json={"players": [{"name": BOT_LIKE[1]}, {"bot": "random"}]})
    assert seat.status_code == 422
    assert client.get(f"/players/{amira['id']}").get_json()["name"] == "Amira"


def test_a_name_is_kept_as_the_one_normaliser_makes_it(client: Any):
    made = client.post("/players", json={"name": "  \uff21mira \u00a0 Badr "})
    assert made.status_code == 201 and made.get_json()["name"] == "Amira Badr"
