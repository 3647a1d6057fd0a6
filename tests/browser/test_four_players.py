"""Four players in two teams: partners across, scores per team, bot plays shown one by one."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}
TURN_OR_END = """() => {
  const game = document.querySelector('#game');
  return game.dataset.status === 'finished' || game.dataset.yourTurn === 'true';
}"""
# Counts the play-back steps a page draws (each bot play is shown on its own).
COUNT_STEPS = """() => {
  window.__steps = 0;
  new MutationObserver(() => {
    if (document.querySelector('#game').dataset.animating === 'true') window.__steps += 1;
  }).observe(document.querySelector('#game'),
             { attributes: true, attributeFilter: ['data-animating'] });
}"""


def lobby_game(
    page: Any, base: str, name: str, seats: list[str], target: str, before_start: Any = None
) -> str:
    """Sets up a four-player game in the lobby; returns its id."""
    page.goto(base + "/")
    page.wait_for_selector("#start:not([disabled])")
    page.fill("#name", name)
    page.check("#players-4")
    for seat, choice in enumerate(seats):
        page.select_option(f"#seat-{seat}", choice)
    page.check(f"#target-{target}")
    if before_start:
        before_start(page)
    page.click("#start")
    page.wait_for_url(re.compile(r"/play/[^/]+"))
    return str(re.search(r"/play/([^/?#]+)", page.url).group(1))


def test_two_human_partners_and_two_bots_play_a_match_to_its_end(
    api: Any, live_server_url: str, new_page: Any, screenshot: Any
) -> None:
    alice = new_page(pace=40)

    def show_lobby(page: Any) -> None:
        page.click("#house-rules summary")
        page.select_option("#rule-majority_tie", "carry_over")
        screenshot(page, "lobby")

    game_id = lobby_game(
        alice,
        live_server_url,
        "Alice",
        ["you", "bot:greedy", "open", "bot:random"],
        "31",
        before_start=show_lobby,
    )
    alice.wait_for_selector("#share:not([hidden])")
    link = alice.input_value("#share-link")

    bob = new_page(pace=40)
    bob.goto(link)
    bob.fill("#join-name", "Bob")
    bob.click("#join-btn")
    for page in (alice, bob):
        page.wait_for_selector("#game[data-status=active]")
        page.evaluate(COUNT_STEPS)

    # Partners sit across; each side is one team with its own score box.
    assert (
        alice.get_attribute('#opponents [data-seat="2"]', "class").split().count("place-top") == 1
    )
    assert bob.get_attribute('#opponents [data-seat="0"]', "class").split().count("place-top") == 1
    assert "partner" in alice.text_content('#opponents [data-seat="2"]')
    assert "place-left" in alice.get_attribute('#opponents [data-seat="1"]', "class")
    assert "place-right" in alice.get_attribute('#opponents [data-seat="3"]', "class")
    teams = alice.eval_on_selector_all(".side .side-name", "ns => ns.map(n => n.textContent)")
    assert teams == ["Team A: Alice (you) & Bob", "Team B: Greedy bot & Random bot"]

    pages = {0: alice, 2: bob}
    shot = False
    for played in range(300):
        view = api.view(game_id)
        if view["status"] == "finished":
            break
        turn = view["turn"]
        if turn not in pages:
            # a bot is to move only while a request is being answered: look again
            continue
        page = pages[turn]
        page.wait_for_selector("#game[data-your-turn=true]")
        if not shot and played >= 7 and len(view["floor"]) >= 3:
            screenshot(page, "table-4p")
            shot = True
        before = page.get_attribute("#game", "data-version")
        page.click("#hand button >> nth=0")
        page.wait_for_function(
            """old => { const g = document.querySelector('#game');
                        return g.dataset.version !== old && g.dataset.animating === 'false'; }""",
            arg=before,
        )
    else:
        raise AssertionError("the match did not end")

    final = api.view(game_id)
    assert final["status"] == "finished"
    for page, side in ((alice, 0), (bob, 0)):
        page.wait_for_selector("#game[data-status=finished]")
        headline = page.text_content("#winner")
        if final["winner"] == side:
            assert headline == "Your team wins!"
        elif final["winner"] is None:
            assert "draw" in headline.lower()
        else:
            assert headline == "Team B: Greedy bot & Random bot win."
        scores = page.eval_on_selector_all(".side .score", "ss => ss.map(s => s.textContent)")
        assert scores == [str(s["score"]) for s in final["sides"]]
        assert page.locator("#rounds tbody tr").count() == len(final["rounds"]) + 1
        assert page.evaluate("window.__steps") > 0  # plays were shown one at a time
    assert max(s["score"] for s in final["sides"]) >= 31


def test_each_bot_play_is_shown_on_its_own_before_your_next_turn(
    api: Any, new_page: Any, open_seat: Any
) -> None:
    created = api.create(
        [{"name": "Nour"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "expert"}]
    )
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page(pace=600)
    open_seat(page, created["id"], seat)
    page.wait_for_selector("#game[data-your-turn=true]")
    page.evaluate(
        """() => {
          window.__lines = [];
          new MutationObserver(() => {
            const text = document.querySelector('#last-move').textContent;
            const lines = window.__lines;
            if (text && lines[lines.length - 1] !== text) lines.push(text);
          }).observe(document.querySelector('#last-move'),
                     { childList: true, characterData: true, subtree: true });
        }"""
    )
    page.click("#hand button >> nth=0")
    page.wait_for_selector("#game[data-animating=true]")
    assert page.get_attribute("#game", "data-your-turn") == "false"
    page.wait_for_function(TURN_OR_END, timeout=20_000)
    lines = page.evaluate("window.__lines")
    players = [line.split(" played ")[0] for line in lines]
    # Each of the three bots' plays was on screen by itself, in seat order, after yours.
    for bot in ("Greedy bot", "Random bot (your partner)", "Expert bot"):
        assert bot in players, lines
    assert (
        players.index("Greedy bot")
        < players.index("Random bot (your partner)")
        < players.index("Expert bot")
    )
    assert page.locator("#hand button").count() == 3


def test_the_four_player_table_fits_a_phone_screen(api: Any, new_page: Any, open_seat: Any) -> None:
    created = api.create([{"name": "Pia"}, {"bot": "greedy"}, {"bot": "greedy"}, {"bot": "greedy"}])
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page(PHONE)
    open_seat(page, created["id"], seat)
    page.wait_for_selector("#game[data-your-turn=true]")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    boxes = [b.bounding_box() for b in page.locator("#hand button, #opponents .seat").all()]
    assert len(boxes) == 4 + 3
    for box in boxes:
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    page.locator("#hand button >> nth=0").scroll_into_view_if_needed()
    before = page.get_attribute("#game", "data-version")
    page.click("#hand button >> nth=0")
    page.wait_for_function(
        "old => document.querySelector('#game').dataset.version !== old", arg=before
    )


def test_a_game_of_four_bots_set_up_in_the_lobby_is_watched_to_its_end(
    live_server_url: str, new_page: Any
) -> None:
    page = new_page(pace=0)
    game_id = lobby_game(
        page,
        live_server_url,
        "Watcher",
        ["bot:greedy", "bot:random", "bot:greedy", "bot:random"],
        "31",
    )
    page.wait_for_selector("#game[data-status=finished]", timeout=60_000)
    assert page.get_attribute("#game", "data-you") == ""
    assert page.is_hidden("#hand")
    assert page.locator("#rounds tbody tr").count() >= 2
    assert f"/replay/{game_id}" == page.get_attribute("#replay-link", "href")
