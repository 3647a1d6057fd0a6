"""Online play in the page (API.md 23): the player's games in the lobby with the opponents, the
score and "your turn", resumed from there; a rematch from the result."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def as_player(page: Any, player: dict[str, Any]) -> None:
    stored = json.dumps({"id": player["id"], "token": player["token"], "name": player["name"]})
    page.context.add_init_script(f"localStorage.setItem('basra:player', {json.dumps(stored)});")


def test_the_lobby_lists_the_players_games_and_resumes_one(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    player = api.call("POST", "/players", {"name": "Dina"})
    created = api.call(
        "POST", "/games", {"players": [{"player": "me"}, {"bot": "skilled"}]}, player["token"]
    )
    page = new_page()
    as_player(page, player)
    page.goto(live_server_url + "/")
    item = page.locator(f'#my-games-list li[data-game="{created["id"]}"]')
    item.wait_for()
    text = item.text_content()
    assert "vs Skilled bot" in text and "0 : 0" in text
    view = api.view(created["id"], player["token"])
    if view["turn"] == view["you"]:
        assert "your turn" in text
    item.locator("a").click()
    page.wait_for_url(re.compile(rf"/play/{created['id']}$"))
    page.wait_for_selector("#game:not([hidden])")
    assert page.get_attribute("#game", "data-you") == "0"


def test_a_rematch_from_the_result_seats_the_player_again(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    created = api.create([{"name": "Omar"}, {"bot": "greedy"}], rules={"target_score": 1})
    game_id, token = created["id"], created["seats"][0]["token"]
    view = created["state"]
    for _ in range(2000):
        if view["status"] == "finished":
            break
        if view["turn"] == view["you"]:
            view = api.call("POST", f"/games/{game_id}/moves", {"card": view["hand"][0]}, token)[
                "state"
            ]
        else:
            time.sleep(0.05)
            view = api.view(game_id, token)
    page = new_page()
    stored = json.dumps(json.dumps({"seat": 0, "token": token}))
    page.context.add_init_script(f"localStorage.setItem('basra:seat:{game_id}', {stored});")
    page.goto(f"{live_server_url}/play/{game_id}")
    page.wait_for_selector("#rematch")
    page.click("#rematch")
    page.wait_for_url(re.compile(r"/play/(?!" + game_id + r")[^/]+$"))
    new_id = page.url.rsplit("/", 1)[1]
    page.wait_for_function(
        "id => document.querySelector('#game').dataset.version !== undefined", arg=new_id
    )
    page.wait_for_selector('#game[data-you="0"]')
    view = api.view(new_id)
    assert view["status"] in ("active", "finished")
    assert view["seats"][0]["name"] == "Omar" and view["seats"][1]["bot"] == "greedy"
    old = api.call("GET", f"/games/{game_id}")
    assert old["status"] == "finished"


def test_a_rematch_asked_for_by_the_other_player_is_offered_and_taken(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    amira = api.call("POST", "/players", {"name": "Amira"})
    badr = api.call("POST", "/players", {"name": "Badr"})
    created = api.call(
        "POST", "/games", {"players": [{"player": "me"}, {"open": True}]}, amira["token"]
    )
    api.call("POST", f"/games/{created['id']}/join", {"invite": created["invite"]}, badr["token"])
    api.call("POST", f"/games/{created['id']}/resign", None, badr["token"])
    page = new_page()
    as_player(page, badr)
    page.goto(f"{live_server_url}/play/{created['id']}")
    page.wait_for_selector("#rematch")
    assert page.get_attribute("#rematch", "data-offered") is None
    made = api.call("POST", f"/games/{created['id']}/rematch", None, amira["token"])
    page.wait_for_selector("#rematch-offer", timeout=10_000)
    assert page.text_content("#rematch") == "Accept the rematch"
    page.click("#rematch")
    page.wait_for_url(re.compile(rf"/play/{made['id']}$"))
    page.wait_for_selector('#game[data-status="active"][data-you="1"]')
    assert api.view(made["id"], badr["token"])["you"] == 1
