"""GET /rules: what a game can be set up with, read from the engine's Rules definition."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from app.engine.bots import BOT_LEVELS
from app.engine.rules import CHOICES, LIMITS, Rules

from .helpers import create


def setup(client: Any) -> dict[str, Any]:
    response = client.get("/rules")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    body: dict[str, Any] = response.get_json()
    return body


def test_every_rule_option_is_listed_in_order_with_its_default(client):
    options = setup(client)["options"]
    assert [option["name"] for option in options] == [field.name for field in fields(Rules)]
    defaults = Rules().to_dict()
    assert {option["name"]: option["default"] for option in options} == defaults
    for option in options:
        assert option["label"] and option["help"], option["name"]


def test_allowed_values_and_ranges_come_from_the_engine(client):
    for option in setup(client)["options"]:
        name = option["name"]
        if name in CHOICES:
            assert option["type"] == "choice"
            assert option["values"] == list(CHOICES[name])
            assert set(option["value_help"]) == set(CHOICES[name])
        elif name in LIMITS:
            assert option["type"] == "integer"
            assert (option["minimum"], option["maximum"]) == LIMITS[name]
    kinds = {option["name"]: option["type"] for option in setup(client)["options"]}
    assert kinds["basra_on_final_play"] == "boolean"


def test_players_bots_and_target_presets_are_listed(client):
    body = setup(client)
    assert body["players"] == [2, 4]
    assert [bot["level"] for bot in body["bots"]] == list(BOT_LEVELS)  # weakest first
    ratings = [bot["rating"] for bot in body["bots"]]
    assert ratings == sorted(ratings) and body["bots"][0]["elo"] == 1000
    for bot in body["bots"]:  # one scale: the rating its player shows, fixed
        shown = client.get(f"/players/{bot['player']}").get_json()["rating"]["value"]
        assert bot["rating"] == shown
    assert all(bot["help"] for bot in body["bots"])
    target = body["target_score"]
    assert (target["minimum"], target["maximum"]) == LIMITS["target_score"]
    assert target["default"] == Rules().target_score
    assert target["presets"] and all(1 <= p <= 10000 for p in target["presets"])
    assert target["default"] in target["presets"]


def test_a_game_created_with_every_listed_non_default_value_is_accepted(client):
    chosen: dict[str, Any] = {}
    for option in setup(client)["options"]:
        if option["type"] == "choice":
            chosen[option["name"]] = option["values"][-1]
        elif option["type"] == "integer" and option.get("maximum") is not None:
            chosen[option["name"]] = option["maximum"]
        elif option["type"] == "boolean":
            chosen[option["name"]] = not option["default"]
    body = create(client, [{"name": "Amira"}, {"bot": "random"}], rules=chosen)
    assert {name: body["rules"][name] for name in chosen} == chosen


def test_a_value_outside_the_listed_range_is_refused(client):
    target = setup(client)["target_score"]
    response = client.post(
        "/games",
        json={
            "players": [{"name": "Amira"}, {"bot": "random"}],
            "rules": {"target_score": target["maximum"] + 1},
        },
    )
    assert response.status_code == 422
    assert response.get_json()["code"] == "invalid_request"


def test_it_says_whether_open_seats_can_be_listed_publicly(client):
    from app.api.request_schemas import CreateGameSchema

    assert setup(client)["public_games"] == ("public" in CreateGameSchema().fields)
