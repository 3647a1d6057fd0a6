"""A finished game's analysis in the browser: "Analyse" on the game-over screen with its
progress, then the replay shows each move judged, a chart of each seat's running loss and a
summary per seat."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def test_the_replay_shows_each_judged_move_a_chart_and_the_summary(
    api: Any, live_server_url: str, new_page: Any, screenshot: Any
) -> None:
    game_id = api.finished_game(name="Nour")
    page = new_page()
    page.goto(f"{live_server_url}/play/{game_id}")
    page.click("#result .analyse-button")
    page.wait_for_selector("#result .analysis-link", timeout=60_000)
    analysis = api.call("GET", f"/games/{game_id}/analysis")
    assert analysis["status"] == "done"
    page.click("#result .analysis-link")
    page.wait_for_selector('#analysis[data-ready="true"]', timeout=60_000)

    seats = analysis["seats"]
    assert [s["seat"] for s in seats] == [0]  # the bot's cards are not judged
    row = page.text_content('.analysis-summary tr[data-seat="0"]')
    # Math.round rounds a half up (5/8 is 63%), where Python's round() goes to the even 62
    assert "Nour" in row and f"{math.floor(100 * seats[0]['agreement'] + 0.5)}%" in row
    # toFixed(2) also takes the larger of two equally near (0.125 is 0.13), as Decimal does here
    exact = Decimal(seats[0]["average_loss"]).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    assert str(exact) in row
    assert page.locator(".analysis-chart polyline.loss").count() == 1

    first = analysis["moves"][0]
    page.wait_for_selector('#replay[data-step="0"]')
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f'#analysis-move[data-n="{first["n"]}"]')
    line = page.text_content("#analysis-move")
    assert "\u2068Nour\u2069 played" in line  # the name isolated from the text around it
    assert float(page.get_attribute("#analysis-move", "data-loss") or "nan") == first["loss"]
    if first["loss"]:
        assert "points given up" in line
    screenshot(page, "analysis")
