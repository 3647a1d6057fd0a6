"""The play page: a whole game against a bot, the lobby, keyboard play, phone layout, errors."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.browser


PHONE = {"width": 375, "height": 667}
CARD_LABEL = re.compile(r"^Play (ace|[2-9]|10|jack|queen|king) of (spades|hearts|diamonds|clubs)$")
TURN_OR_END = """() => {
  const game = document.querySelector('#game');
  return game.dataset.status === 'finished' || game.dataset.yourTurn === 'true';
}"""


def version(page: Any) -> str:
    return str(page.get_attribute("#game", "data-version"))


def wait_for_new_version(page: Any, old: str) -> None:
    """The page took in the move: a new version, or the end of the game (polling stops there)."""
    page.wait_for_function(
        """old => {
          const game = document.querySelector('#game');
          return game.dataset.version !== old || game.dataset.status === 'finished';
        }""",
        arg=old,
    )


def shown_floor(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#floor .card", "cs => cs.map(c => c.dataset.card)"))


def check_preview(page: Any, view: dict[str, Any]) -> bool:
    """Hovering a card that captures highlights exactly what the view's legal_moves say."""
    capturing = [m for m in view.get("legal_moves", []) if m["captured"]]
    if not capturing:
        return False
    move = capturing[0]
    page.hover(f'#hand button[data-card="{move["card"]}"]')
    highlighted = page.eval_on_selector_all(
        "#floor .card.target", "cs => cs.map(c => c.dataset.card)"
    )
    assert sorted(highlighted) == sorted(move["captured"])
    assert "would take" in page.text_content("#caption")
    page.mouse.move(0, 0)
    return True


def test_a_whole_game_against_the_random_bot_is_played_through_the_page(
    api: Any, new_page: Any, open_seat: Any, screenshot: Any
) -> None:
    created = api.create([{"name": "Tess"}, {"bot": "random"}], rules={"target_score": 1})
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page()
    open_seat(page, created["id"], seat)

    previewed = False
    for turn in range(400):
        page.wait_for_function(TURN_OR_END)
        if page.get_attribute("#game", "data-status") == "finished":
            break
        view = api.view(created["id"], seat["token"])
        assert shown_floor(page) == view["floor"]
        labels = page.eval_on_selector_all(
            "#hand button", "bs => bs.map(b => b.getAttribute('aria-label'))"
        )
        assert len(labels) == len(view["hand"]) and all(CARD_LABEL.match(label) for label in labels)
        assert f"Stock {view['stock']}" in page.text_content("#stock")
        if not previewed:
            previewed = check_preview(page, view)
        if turn == 3:
            screenshot(page, "play")
        before = version(page)
        if turn % 2:
            page.keyboard.press("1")  # digits play the n-th card
        else:
            page.click("#hand button >> nth=0")
        wait_for_new_version(page, before)
    else:
        raise AssertionError("the game did not end within 400 turns")

    final = api.view(created["id"], seat["token"])
    assert final["status"] == "finished"
    winner = page.text_content("#winner")
    if final["winner"] is None:
        assert "draw" in winner.lower()
    elif final["winner"] == 0:
        assert winner == "You win!"
    else:
        assert "wins" in winner
    assert page.get_attribute("#replay-link", "href") == f"/replay/{created['id']}"
    scores = page.eval_on_selector_all(".side .score", "ss => ss.map(s => s.textContent)")
    assert scores == [str(s["score"]) for s in final["sides"]]
    assert page.locator("#rounds tbody tr").count() == len(final["rounds"]) + 1
    # Each round's row says what made its points, and the Basras counters add up the match.
    for entry in final["rounds"]:
        row = page.text_content(f'#rounds tr[data-round="{entry["round"]}"]')
        for side in (0, 1):
            if entry["basras"][side]:
                assert f"{entry['basras'][side]} basra" in row, row
    totals = page.eval_on_selector_all(".side .basras", "ns => ns.map(n => n.textContent)")
    for side, text in enumerate(totals):
        match = sum(entry["basras"][side] for entry in final["rounds"])
        assert text.endswith(f"match {match}"), text
    # The "Round N scored" notice sits in the page's flow: it covers nothing.
    notice = page.locator("#notice")
    if notice.is_visible():
        box, table = notice.bounding_box(), page.locator("#rounds").bounding_box()
        assert box["y"] + box["height"] <= table["y"] or box["y"] >= table["y"] + table["height"]
    assert page.text_content("#status") == ""  # "Creating the game..." is long gone


def test_the_lobby_starts_a_game_against_a_bot_and_keeps_the_token(
    live_server_url: str, new_page: Any
) -> None:
    page = new_page()
    page.goto(live_server_url + "/")
    page.wait_for_selector("#start:not([disabled])")
    page.fill("#name", "Lina")
    page.select_option("#seat-1", "bot:expert")
    page.click("#start")
    page.wait_for_url(re.compile(r"/play/[^/]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    stored = page.evaluate("id => localStorage.getItem('basra:seat:' + id)", game_id)
    assert stored and '"token"' in stored
    page.wait_for_selector("#game[data-your-turn=true]")
    assert page.locator("#hand button").count() == 4
    assert "expert" in page.text_content("#opponents").lower()
    assert "Lina (you)" in page.text_content("#scoreboard")

    before = version(page)
    page.focus("#hand button >> nth=1")
    page.keyboard.press("Enter")  # Enter plays the focused card
    wait_for_new_version(page, before)
    page.wait_for_function(TURN_OR_END)
    page.wait_for_selector("#log li")  # the log is fetched (GET /moves) after the view is drawn
    assert page.locator("#log li").count() >= 1

    page.reload()  # the stored token resumes the seat
    page.wait_for_selector("#game[data-your-turn=true]")
    assert page.locator("#hand button").count() >= 1


def test_the_table_fits_a_phone_screen(api: Any, new_page: Any, open_seat: Any) -> None:
    created = api.create([{"name": "Pia"}, {"bot": "greedy"}])
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page(PHONE)
    open_seat(page, created["id"], seat)
    page.wait_for_selector("#hand button")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    for box in [b.bounding_box() for b in page.locator("#hand button").all()]:
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


def test_problems_from_the_api_show_in_the_status_line(live_server_url: str, new_page: Any) -> None:
    problem = json.loads(urlopen_error(live_server_url + "/games/no-such-game"))
    page = new_page()
    page.goto(live_server_url + "/play/no-such-game")
    status = page.locator("#status.error")
    status.wait_for()
    # The problem's stable code picks the message from the page's catalogue; the server's own
    # words stay at hand in the tooltip.
    english = json.loads((ROOT / "app/web/static/i18n/en.json").read_text(encoding="utf-8"))
    assert status.get_attribute("data-code") == problem["code"]
    assert status.text_content() == english[f"error.{problem['code']}"]
    if problem.get("detail"):
        assert status.get_attribute("title") == problem["detail"]


def urlopen_error(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=10):
            pass
    except urllib.error.HTTPError as err:
        with err:
            assert err.code == 404
            return str(err.read().decode())
    raise AssertionError(f"{url} did not answer 404")
