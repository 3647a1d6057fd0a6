"""The replay page steps through a finished game and shows its fairness checked."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser


def hands(page: Any) -> list[list[str]]:
    return list(
        page.eval_on_selector_all(
            "#hands .replay-seat",
            "seats => seats.map(s => [...s.querySelectorAll('.card')].map(c => c.dataset.card))",
        )
    )


def at_step(page: Any, step: int) -> None:
    page.wait_for_selector(f'#replay[data-step="{step}"]')


def test_the_replay_steps_through_hands_and_shows_the_fairness_check(
    api: Any, live_server_url: str, new_page: Any, screenshot: Any
) -> None:
    game_id = api.finished_game()
    moves = api.call("GET", f"/games/{game_id}/moves")["moves"]
    page = new_page()
    page.goto(f"{live_server_url}/replay/{game_id}")
    page.wait_for_selector(f'#replay[data-total="{len(moves)}"]')
    at_step(page, 0)
    start = hands(page)
    assert start == api.call("GET", f"/games/{game_id}/replay?step=0")["state"]["hands"]

    page.keyboard.press("ArrowRight")
    at_step(page, 1)
    one = hands(page)
    assert one != start
    assert moves[0]["card"] in page.text_content("#replay-move").replace("\u2660", "S").replace(
        "\u2665", "H"
    ).replace("\u2666", "D").replace("\u2663", "C")
    page.click("#next")
    at_step(page, 2)
    assert hands(page) == api.call("GET", f"/games/{game_id}/replay?step=2")["state"]["hands"]
    page.keyboard.press("ArrowLeft")
    at_step(page, 1)
    assert hands(page) == one
    page.click("#prev")
    at_step(page, 0)
    assert hands(page) == start
    page.keyboard.press("End")
    at_step(page, len(moves))
    assert "End of the match" in page.text_content("#next-move")
    page.keyboard.press("Home")
    at_step(page, 0)

    page.wait_for_selector('#verify-ok[data-ok="true"]')
    page.wait_for_selector('#commitment-check[data-ok="true"]')
    page.wait_for_selector('#decks-summary[data-ok="true"]')
    assert "match" in page.text_content("#decks-summary")
    fairness = api.call("GET", f"/games/{game_id}/fairness")
    assert fairness["server_seed"] in page.text_content("#fairness-data")
    page.keyboard.press("ArrowRight")
    at_step(page, 1)
    screenshot(page, "replay")


def test_the_replay_of_a_game_with_a_fixed_deck_says_so(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    from app.engine.cards import FULL_DECK

    deck = [str(card) for card in FULL_DECK]
    game_id = api.finished_game(deck=deck)
    page = new_page()
    page.goto(f"{live_server_url}/replay/{game_id}")
    page.wait_for_selector('#decks li[data-round="1"]')
    assert "fixed by the game's creator" in page.text_content('#decks li[data-round="1"]')
    fairness = api.call("GET", f"/games/{game_id}/fairness")
    if "custom_deck" in fairness:  # API.md 16
        page.wait_for_selector("#fairness-data dt")
        assert "fixed by the game's creator" in page.text_content("#fairness-data")


def test_the_replay_ends_with_the_resignation_and_says_when_nobody_gave_a_seed(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    created = api.create([{"name": "Rana"}, {"bot": "greedy"}], rules={"turn_seconds": 60})
    seat = next(s for s in created["seats"] if s.get("token"))
    view = created["state"]
    for _ in range(3):  # a few cards, then the seat resigns
        if view["turn"] == view["you"]:
            view = api.call(
                "POST", f"/games/{created['id']}/moves", {"card": view["hand"][0]}, seat["token"]
            )["state"]
        else:
            view = api.view(created["id"], seat["token"])
    api.call("POST", f"/games/{created['id']}/resign", None, seat["token"])
    page = new_page()
    page.goto(f"{live_server_url}/replay/{created['id']}")
    page.wait_for_selector("#replay[data-total]")
    page.keyboard.press("End")
    total = page.get_attribute("#replay", "data-total")
    at_step(page, int(str(total)))
    page.wait_for_function(
        "() => document.querySelector('#next-move').textContent.includes('resigned')"
    )
    assert "(Rana resigned)" in page.text_content("#next-move")
    page.wait_for_function(
        "() => document.querySelector('#fairness-data').textContent.includes('Client seed')"
    )
    data = page.text_content("#fairness-data")
    assert "(none: nobody gave a seed)" in data and "|" not in data.split("Client seed")[1][:5]
