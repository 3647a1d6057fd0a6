"""Play online: a guest presses the button, sees the search and its time, can cancel it, and is
taken to the table once the server pairs it with another guest (or, after the wait the lobby
offers, with a bot)."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def open_lobby(page: Any, base: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector("#start:not([disabled])")
    page.wait_for_selector("#me-link:not([hidden])")


def seek(page: Any, *, rated: bool = True, bot: bool = False, waits: bool = True) -> None:
    """Press "Play online"; unless ``waits`` is false, see the search shown. A seek that a
    waiting one matches at once shows it for a few milliseconds only, then the table."""
    page.set_checked("#online-rated", rated)
    page.set_checked("#online-bot", bot)
    page.click("#seek")
    if waits:
        page.wait_for_selector("#seeking:not([hidden])")


def table_of(page: Any) -> str:
    page.wait_for_url(re.compile(r"/play/[^/]+"), timeout=30_000)
    page.wait_for_selector("#game[data-status=active]")
    return str(re.search(r"/play/([^/?#]+)", page.url).group(1))


def test_two_guests_who_play_online_land_at_the_same_table(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    nadia, omar = new_page(), new_page()
    for page, name in ((nadia, "Nadia"), (omar, "Omar")):
        open_lobby(page, live_server_url)
        page.fill("#name", name)
    seek(nadia)
    nadia.wait_for_function("() => document.querySelector('#seek-elapsed').textContent !== '0 s'")
    assert "Looking" in nadia.text_content("#seek-status")
    seek(omar, waits=False)  # Nadia is waiting: paired at once
    game_id = table_of(nadia)
    assert table_of(omar) == game_id
    view = api.view(game_id)
    assert sorted(s["name"] for s in view["seats"]) == ["Nadia", "Omar"]
    assert all(s["player"] and not s["bot"] for s in view["seats"])
    # Each page holds its own seat: exactly one of them has the turn and its hand to play.
    turns = [page.get_attribute("#game", "data-your-turn") for page in (nadia, omar)]
    assert sorted(turns) == ["false", "true"]


def test_a_search_is_cancelled_and_a_bot_comes_when_nobody_does(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    page = new_page()
    open_lobby(page, live_server_url)
    seek(page, rated=False)
    page.wait_for_selector("#online[data-seek]")  # the POST has answered
    seek_id = page.get_attribute("#online", "data-seek")
    page.click("#seek-cancel")
    page.wait_for_selector("#seeking", state="hidden")
    page.wait_for_selector("#online:not([data-seek])")
    player = api.call("GET", "/players/me", token=page.evaluate(
        "JSON.parse(localStorage.getItem('basra:player')).token"))  # fmt: skip
    assert player["stats"]["played"] == 0
    token = page.evaluate("JSON.parse(localStorage.getItem('basra:player')).token")
    assert api.call("GET", f"/seeks/{seek_id}", token=token)["status"] == "cancelled"
    # Four players (nobody else seeks four here), a bot for each seat nobody came for.
    page.check("#online-4")
    seek(page, rated=False, bot=True)
    page.wait_for_selector("#online[data-seek]")
    assert page.get_attribute("#online", "data-seek") != seek_id
    game_id = table_of(page)  # within the lobby's 20 s and a pairing pass
    seats = api.view(game_id)["seats"]
    assert len(seats) == 4 and sum(1 for s in seats if s["bot"]) == 3
