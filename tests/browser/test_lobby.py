"""The lobby sets up any game from GET /rules: house rules, target, seats; keyboard and phone."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

CATALOGUES = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "i18n"
PHONE = {"width": 375, "height": 667}
TURN_OR_END = """() => {
  const game = document.querySelector('#game');
  return game.dataset.status === 'finished' || game.dataset.yourTurn === 'true';
}"""


def open_lobby(page: Any, base: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector("#start:not([disabled])")


def game_id(page: Any) -> str:
    page.wait_for_url(re.compile(r"/play/[^/]+"))
    return str(re.search(r"/play/([^/?#]+)", page.url).group(1))


def test_every_rule_option_is_offered_with_its_standard_value_and_a_line_of_help(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    catalog = api.call("GET", "/rules")
    english = json.loads((CATALOGUES / "en.json").read_text(encoding="utf-8"))
    page = new_page()
    open_lobby(page, live_server_url)
    page.click("#house-rules summary")
    own_place = {"target_score", "turn_seconds", "max_timeouts"}
    for option in catalog["options"]:
        if option["name"] in own_place:
            continue
        rule = page.locator(f'.rule[data-rule="{option["name"]}"]')
        assert rule.is_visible(), option["name"]
        text = rule.text_content()
        # The page's catalogue words each option; one it does not know shows as /rules serves it.
        label = english.get(f"rule.{option['name']}.label", option["label"])
        help_line = english.get(f"rule.{option['name']}.help", option["help"])
        assert label and help_line and label in text and help_line in text
        assert "Standard:" in text
    presets = page.eval_on_selector_all("input[name=target]", "rs => rs.map(r => r.value)")
    assert presets == [str(p) for p in catalog["target_score"]["presets"]] + ["custom"]
    levels = page.eval_on_selector_all("#seat-1 option", "os => os.map(o => o.value)")
    assert levels == ["you"] + [f"bot:{b['level']}" for b in catalog["bots"]] + ["open"]


def test_house_rules_and_a_target_of_31_are_what_the_game_is_played_with(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    page = new_page()
    open_lobby(page, live_server_url)
    page.fill("#name", "Hoda")
    page.check("#target-31")
    page.click("#house-rules summary")
    page.select_option("#rule-seven_diamonds", "plain")
    page.fill("#rule-basra_points", "20")
    page.locator("#rule-basra_points").dispatch_event("change")
    assert "2 changed" in page.text_content("#rules-changed")
    page.click("#start")
    gid = game_id(page)
    page.wait_for_selector("#game[data-your-turn=true]")
    assert page.is_hidden("#status")  # "Creating the game..." went once the game was shown
    created = api.call("GET", f"/games/{gid}/events")["events"][0]["data"]["rules"]
    assert created["seven_diamonds"] == "plain" and created["basra_points"] == 20
    assert created["target_score"] == 31
    assert "Target 31" in page.text_content("#scoreboard")
    assert page.text_content(".side .of").strip() == "/ 31"

    for _ in range(400):
        page.wait_for_function(TURN_OR_END)
        if page.get_attribute("#game", "data-status") == "finished":
            break
        before = page.get_attribute("#game", "data-version")
        page.click("#hand button >> nth=0")
        page.wait_for_function(
            "old => document.querySelector('#game').dataset.version !== old", arg=before
        )
    final = api.view(gid)
    assert final["status"] == "finished"
    # The match ended at the first round after which a side had 31 or more.
    totals = [0, 0]
    for number, entry in enumerate(final["rounds"], start=1):
        totals = [a + b for a, b in zip(totals, entry["points"], strict=True)]
        if number < len(final["rounds"]):
            assert max(totals) < 31 or totals[0] == totals[1]
    assert max(totals) >= 31


def test_a_move_can_be_played_with_the_keyboard_alone(live_server_url: str, new_page: Any) -> None:
    page = new_page()
    open_lobby(page, live_server_url)
    for _ in range(10):
        if page.evaluate("document.activeElement.id") == "name":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "name"
    page.keyboard.type("Kiki")
    page.keyboard.press("Enter")  # submits the setup form with its standard choices
    game_id(page)
    page.wait_for_selector("#game[data-your-turn=true]")

    for _ in range(40):
        if page.evaluate("!!document.activeElement.closest('#hand')"):
            break
        page.keyboard.press("Tab")
    focused = page.evaluate(
        """() => { const node = document.activeElement;
                   return { card: node.dataset.card, label: node.getAttribute('aria-label'),
                            visible: node.matches(':focus-visible') }; }"""
    )
    assert focused["card"] and focused["label"].startswith("Play ") and focused["visible"]
    assert focused["card"][:-1] in page.text_content("#caption")  # what it would take
    before = page.get_attribute("#game", "data-version")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "old => document.querySelector('#game').dataset.version !== old", arg=before
    )
    page.wait_for_function(TURN_OR_END)
    log = page.text_content("#log")
    assert f"You played {focused['card'][:-1]}" in log
    if page.get_attribute("#game", "data-status") != "finished":
        before = page.get_attribute("#game", "data-version")
        page.keyboard.press("1")  # digits play the n-th card
        page.wait_for_function(
            "old => document.querySelector('#game').dataset.version !== old", arg=before
        )


def test_the_lobby_fits_a_phone_screen(live_server_url: str, new_page: Any) -> None:
    page = new_page(PHONE)
    open_lobby(page, live_server_url)
    page.check("#players-4")
    page.click("#house-rules summary")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    for box in [b.bounding_box() for b in page.locator("#setup-form select, #start").all()]:
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
