"""The turn clock, resigning and invitations in the page (API.md 13-15).

They skip on a server without those items (GET /rules lists no `turn_seconds`, or POST /games
answers no `invite`), so the client can land before the server does.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def needs_clock(api: Any) -> None:
    names = {option["name"] for option in api.call("GET", "/rules")["options"]}
    if "turn_seconds" not in names:
        pytest.skip("this server has no turn clock yet (API.md 13)")


def clocked_game(api: Any, seconds: int) -> tuple[dict[str, Any], dict[str, Any]]:
    created = api.create([{"name": "Tala"}, {"bot": "greedy"}], rules={"turn_seconds": seconds})
    if "deadline" not in created["state"]:
        pytest.skip("views carry no deadline yet (API.md 13)")
    return created, next(s for s in created["seats"] if s.get("token"))


def shown_seconds(page: Any) -> int:
    return int(page.get_attribute("#clock", "data-seconds"))


def test_the_clock_counts_down_and_the_server_plays_when_it_runs_out(
    api: Any, new_page: Any, open_seat: Any
) -> None:
    needs_clock(api)
    created, seat = clocked_game(api, 5)
    page = new_page()
    open_seat(page, created["id"], seat)
    page.wait_for_selector("#game[data-your-turn=true]")
    page.wait_for_selector("#clock:not([hidden])")
    first = shown_seconds(page)
    assert 0 < first <= 5
    assert re.search(r"Your time: 0:0\d", page.text_content("#clock"))
    time.sleep(1.3)
    assert shown_seconds(page) < first
    before = page.get_attribute("#game", "data-version")
    # Nobody touches anything: the server plays for the seat, and the page sees it.
    page.wait_for_function(
        "old => document.querySelector('#game').dataset.version !== old", arg=before, timeout=20_000
    )
    moves = api.call("GET", f"/games/{created['id']}/moves")["moves"]
    assert moves and moves[0]["seat"] == seat["seat"]


def test_resigning_asks_first_and_then_ends_the_match(
    api: Any, new_page: Any, open_seat: Any
) -> None:
    needs_clock(api)
    created, seat = clocked_game(api, 600)
    page = new_page()
    open_seat(page, created["id"], seat)
    page.wait_for_selector("#resign:not([hidden])")
    page.click("#resign")
    page.wait_for_selector("#resign-dialog[open]")
    page.click("#resign-cancel")
    assert api.view(created["id"])["status"] == "active"
    assert page.get_attribute("#game", "data-status") == "active"

    page.click("#resign")
    page.wait_for_selector("#resign-dialog[open]")
    page.click("#resign-confirm")
    page.wait_for_selector("#game[data-status=finished]")
    final = api.view(created["id"])
    assert final["status"] == "finished" and final["winner"] == 1
    assert "resigned" in page.text_content("#winner")
    assert page.is_hidden("#resign")


def test_an_invite_travels_in_the_links_fragment_and_a_link_without_it_cannot_join(
    live_server_url: str, new_page: Any
) -> None:
    host = new_page()
    host.goto(live_server_url + "/")
    host.wait_for_selector("#start:not([disabled])")
    host.fill("#name", "Host")
    host.select_option("#seat-1", "open")
    host.click("#start")
    host.wait_for_selector("#share:not([hidden])")
    link = host.input_value("#share-link")
    if "#invite=" not in link:
        pytest.skip("this server gives no invites yet (API.md 15)")
    assert "?" not in link and re.search(r"/play/[0-9a-f]+#invite=[^&]+$", link)

    stranger = new_page()
    stranger.goto(link.split("#")[0])
    stranger.wait_for_selector("#join:not([hidden])")
    stranger.fill("#join-name", "Stranger")
    stranger.click("#join-btn")
    stranger.wait_for_selector("#notice.error")
    assert stranger.get_attribute("#game", "data-status") == "waiting"

    friend = new_page()
    friend.goto(link)
    friend.wait_for_selector("#join:not([hidden])")
    friend.fill("#join-name", "Friend")
    friend.click("#join-btn")
    friend.wait_for_selector("#game[data-status=active]")
    host.wait_for_selector("#game[data-status=active]")
    assert "#" not in friend.url


def test_a_public_game_is_listed_in_the_lobby_for_anyone_to_join(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    if not api.call("GET", "/rules").get("public_games"):
        pytest.skip("this server has no public games yet (API.md 15)")
    host = new_page()
    host.goto(live_server_url + "/")
    host.wait_for_selector("#start:not([disabled])")
    host.fill("#name", "Publica")
    host.select_option("#seat-1", "open")
    host.check("#public")
    host.click("#start")
    host.wait_for_selector("#share:not([hidden])")
    game_id = re.search(r"/play/([^/?#]+)", host.url).group(1)

    guest = new_page()
    guest.goto(live_server_url + "/")
    guest.wait_for_selector(f'#open-games-list a[href="/play/{game_id}"]')
    guest.click(f'#open-games-list a[href="/play/{game_id}"]')
    guest.wait_for_selector("#join:not([hidden])")
    guest.fill("#join-name", "Guest")
    guest.click("#join-btn")
    guest.wait_for_selector("#game[data-status=active]")
