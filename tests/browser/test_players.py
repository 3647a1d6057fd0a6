"""A visitor is a player: a guest made on the first visit, who can be named, plays and is rated as
that player, and has a page with the rating, its chart, the games and the leaderboard."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

pytestmark = pytest.mark.browser

PLAYER_KEY = "basra:player"


def stored_player(page: Any) -> dict[str, Any]:
    page.wait_for_function(f"() => !!localStorage.getItem('{PLAYER_KEY}')")
    return dict(json.loads(page.evaluate(f"localStorage.getItem('{PLAYER_KEY}')")))


def as_player(page: Any, player: dict[str, Any]) -> None:
    """The page starts as a browser that already holds this player."""
    value = json.dumps(json.dumps({"id": player["id"], "token": player["token"],
                                   "name": player["name"]}))  # fmt: skip
    page.context.add_init_script(f"localStorage.setItem('{PLAYER_KEY}', {value});")


def play_to_the_end(api: Any, game_id: str, token: str) -> dict[str, Any]:
    view = api.view(game_id, token)
    for _ in range(2000):
        if view["status"] == "finished":
            return view
        if view.get("turn") == view.get("you") and view.get("hand"):
            view = api.call("POST", f"/games/{game_id}/moves", {"card": view["hand"][0]}, token)[
                "state"
            ]
        else:
            time.sleep(0.05)
            view = api.view(game_id, token)
    raise AssertionError("the game did not finish")


def test_a_first_visit_makes_a_guest_player_that_the_next_visit_keeps(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    page = new_page()
    page.goto(live_server_url + "/")
    page.wait_for_selector("#me-link:not([hidden])")
    player = stored_player(page)
    me = api.call("GET", "/players/me", token=player["token"])
    assert me["id"] == player["id"] and me["bot"] is None
    assert re.fullmatch(r"Guest \d{4}", me["name"])
    assert me["name"] in page.text_content("#me-link")
    page.reload()
    page.wait_for_selector("#me-link:not([hidden])")
    assert stored_player(page)["id"] == player["id"]  # not a second guest


def test_the_player_is_named_and_plays_the_lobby_game_as_itself(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    page = new_page()
    page.goto(live_server_url + "/")
    page.wait_for_selector("#start:not([disabled])")
    page.fill("#name", "Nour")
    page.click("#start")
    page.wait_for_url(re.compile(r"/play/[^/]+"))
    page.wait_for_selector("#game[data-your-turn=true]")
    game_id = re.search(r"/play/([^/?#]+)", page.url).group(1)
    player = stored_player(page)
    assert api.call("GET", f"/players/{player['id']}")["name"] == "Nour"
    seat = api.view(game_id)["seats"][0]
    assert seat["player"] == player["id"] and seat["name"] == "Nour"
    before = page.get_attribute("#game", "data-version")
    page.click("#hand button >> nth=0")  # the move goes with the player's bearer
    page.wait_for_function(
        "old => document.querySelector('#game').dataset.version !== old", arg=before
    )
    assert api.call("GET", f"/games/{game_id}/moves")["moves"][0]["seat"] == 0


def test_the_lobby_offers_a_rated_game(api: Any, live_server_url: str, new_page: Any) -> None:
    page = new_page()
    page.goto(live_server_url + "/")
    page.wait_for_selector("#start:not([disabled])")
    page.check("#rated")
    page.click("#start")
    page.wait_for_url(re.compile(r"/play/[^/]+"))
    game_id = re.search(r"/play/([^/?#]+)", page.url).group(1)
    player = stored_player(page)
    history = api.call("GET", f"/players/{player['id']}/games")["games"]
    assert [(g["id"], g["rated"]) for g in history] == [(game_id, True)]


def test_the_profile_shows_the_rating_its_chart_the_games_and_the_leaderboard(
    api: Any, live_server_url: str, new_page: Any, screenshot: Any
) -> None:
    player = api.call("POST", "/players", {"name": "Salma"})
    games = []
    for _ in range(3):
        created = api.call(
            "POST", "/games",
            {"players": [{"player": "me"}, {"bot": "random"}], "rated": True,
             "rules": {"target_score": 1}},
            player["token"],
        )  # fmt: skip
        play_to_the_end(api, created["id"], player["token"])
        games.append(created["id"])
    page = new_page()
    as_player(page, player)
    page.goto(f"{live_server_url}/profile")
    page.wait_for_selector("#main[data-ready=true]")
    me = api.call("GET", f"/players/{player['id']}")
    assert page.text_content("#profile-name") == "Salma"
    assert f"{me['rating']['value']:.1f}" in page.text_content("#rating-value")
    assert page.text_content("#stat-played") == str(me["stats"]["played"]) == "3"
    # A picture: one point a rated game, and the first game's rating before it.
    assert page.locator("#chart svg.rating-chart circle").count() == 4
    assert page.locator("#chart svg path.line").count() == 1
    links = page.eval_on_selector_all("#history a", "as => as.map(a => a.getAttribute('href'))")
    assert links == [f"/replay/{g}" for g in reversed(games)]  # newest first, to the replays
    board = api.call("GET", "/leaderboard?limit=20")["players"]
    shown = page.eval_on_selector_all(
        "#leaderboard li[data-player]", "ls => ls.map(l => l.dataset.player)"
    )
    assert shown == [p["id"] for p in board]
    screenshot(page, "profile")
    page.click("#history a >> nth=0")
    page.wait_for_url(re.compile(r"/replay/"))


def test_a_player_renames_itself_on_its_profile(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    player = api.call("POST", "/players", {"name": "Guest 1234"})
    page = new_page()
    as_player(page, player)
    page.goto(f"{live_server_url}/profile")
    page.wait_for_selector("#main[data-ready=true]")
    page.fill("#rename", "Yara")
    page.click("#rename-save")
    page.wait_for_function("() => document.querySelector('#profile-name').textContent === 'Yara'")
    assert api.call("GET", f"/players/{player['id']}")["name"] == "Yara"
    page.wait_for_function("() => document.querySelector('#me-link bdi').textContent === 'Yara'")
    other = new_page()
    other.goto(f"{live_server_url}/profile/{player['id']}")
    other.wait_for_selector("#main[data-ready=true]")
    assert other.text_content("#profile-name") == "Yara"
    assert other.is_hidden("#rename-form")  # someone else's page


def test_the_header_is_current_on_a_game_link_and_after_a_rated_game(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    player = api.call("POST", "/players", {"name": "Hoda"})
    created = api.call(
        "POST", "/games",
        {"players": [{"player": "me"}, {"bot": "random"}], "rated": True,
         "rules": {"target_score": 1}},
        player["token"],
    )  # fmt: skip
    page = new_page()
    as_player(page, player)
    page.goto(f"{live_server_url}/play/{created['id']}")
    page.wait_for_selector("#me-link:not([hidden]) bdi")  # present on a /play link too
    assert page.text_content("#me-link bdi") == "Hoda"
    shown_before = page.text_content("#me-link .me-rating")
    for _ in range(200):
        page.wait_for_function(
            """() => ['finished'].includes(document.querySelector('#game').dataset.status)
                     || document.querySelector('#game').dataset.yourTurn === 'true'"""
        )
        if page.get_attribute("#game", "data-status") == "finished":
            break
        before = page.get_attribute("#game", "data-version")
        page.keyboard.press("1")
        page.wait_for_function(
            """old => document.querySelector('#game').dataset.version !== old
                     || document.querySelector('#game').dataset.status === 'finished'""",
            arg=before,
        )
    rating = api.call("GET", f"/players/{player['id']}")["rating"]
    after = rating["value"]
    game = api.call("GET", f"/players/{player['id']}/games")["games"][0]
    delta = after - game["rating_before"]
    page.wait_for_selector("#rating-change")
    sign = "+" if delta > 0 else "\u2212"
    expected = f"{sign}{abs(delta):.1f}"
    assert page.text_content("#me-link .rating-change") == expected
    assert page.text_content("#rating-change") == f"Your rating: {expected}"
    now = f"{after:.1f}{'?' if rating['provisional'] else ''}"
    assert page.text_content("#me-link .me-rating") == now != shown_before
