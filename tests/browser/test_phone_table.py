"""The table on a phone (375 px, a touch screen) and what it tells: a tap selects a card and
shows what it would take, a second tap or the Play button plays it; a whole game in Arabic, right
to left; the round's summary waits for "Continue"; a timed-out turn and two bots of one level."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}
CATALOGUES = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "i18n"
TURN_OR_END = """() => {
  const game = document.querySelector('#game');
  return game.dataset.status === 'finished' || game.dataset.yourTurn === 'true';
}"""


def words(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def version(page: Any) -> str:
    return str(page.get_attribute("#game", "data-version"))


def wait_for_new_version(page: Any, old: str) -> None:
    page.wait_for_function(
        """old => {
          const game = document.querySelector('#game');
          return game.dataset.version !== old || game.dataset.status === 'finished';
        }""",
        arg=old,
    )


def highlighted(page: Any) -> list[str]:
    return sorted(
        page.eval_on_selector_all("#floor .card.target", "cs => cs.map(c => c.dataset.card)")
    )


def fits(page: Any) -> None:
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    header = page.locator(".topbar").bounding_box()
    assert header is not None and header["height"] < 60  # one line: nothing wraps above "Basra"


def test_a_tap_shows_what_a_card_would_take_and_a_second_tap_plays_it(
    api: Any, new_page: Any, open_seat: Any, screenshot: Any
) -> None:
    created = api.create([{"name": "Tam"}, {"bot": "greedy"}])
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page(PHONE, touch=True)
    open_seat(page, created["id"], seat)
    page.wait_for_selector("#game[data-your-turn=true]")
    fits(page)
    view = api.view(created["id"], seat["token"])
    legal = {m["card"]: m for m in view["legal_moves"]}
    capturing = [c for c in view["hand"] if legal[c]["captured"]]
    card = capturing[0] if capturing else view["hand"][0]

    before = version(page)
    page.tap(f'#hand button[data-card="{card}"]')
    selected = page.locator(f'#hand button[data-card="{card}"]')
    assert selected.get_attribute("aria-pressed") == "true"
    assert "selected" in (selected.get_attribute("class") or "")
    assert highlighted(page) == sorted(legal[card]["captured"])
    assert "would take" in page.text_content("#caption")
    assert page.is_visible("#play-selected")
    assert version(page) == before  # nothing was played by the first tap
    screenshot(page, "table-en")

    # Another card: the selection moves, still nothing played.
    other = next(c for c in view["hand"] if c != card)
    page.tap(f'#hand button[data-card="{other}"]')
    assert highlighted(page) == sorted(legal[other]["captured"])
    assert version(page) == before

    page.tap(f'#hand button[data-card="{other}"]')  # the second tap on it plays it
    wait_for_new_version(page, before)
    moves = api.call("GET", f"/games/{created['id']}/moves")["moves"]
    assert moves[0]["card"] == other and moves[0]["seat"] == seat["seat"]

    page.wait_for_selector("#game[data-your-turn=true]")
    hand = api.view(created["id"], seat["token"])["hand"]
    before = version(page)
    page.tap(f'#hand button[data-card="{hand[0]}"]')
    page.tap("#play-selected")  # or the Play button plays the selected card
    wait_for_new_version(page, before)
    moves = api.call("GET", f"/games/{created['id']}/moves")["moves"]
    assert [m["card"] for m in moves if m["seat"] == seat["seat"]][-1] == hand[0]
    clock_and_resign = [page.locator(s).bounding_box() for s in ("#pace", "#hand")]
    assert all(box is not None for box in clock_and_resign)


def test_a_whole_game_in_arabic_on_a_phone_reads_right_to_left(
    api: Any, new_page: Any, open_seat: Any, screenshot: Any
) -> None:
    ar = words("ar")
    created = api.create(
        [{"name": "ليلى"}, {"bot": "random"}], rules={"target_score": 1, "turn_seconds": 120}
    )
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page(PHONE, locale="ar-EG", touch=True)
    open_seat(page, created["id"], seat)
    assert page.get_attribute("html", "dir") == "rtl"
    assert page.get_attribute("html", "lang") == "ar"
    for turn in range(400):
        page.wait_for_function(TURN_OR_END)
        if page.get_attribute("#game", "data-status") == "finished":
            break
        fits(page)
        assert page.text_content("#turn") == ar["turn.yours_touch"]
        # The clock and Resign are there, in Arabic, under the hand.
        assert page.text_content("#clock").startswith(ar["clock.yours"])
        assert page.text_content("#resign") == ar["resign.button"]
        hand = page.eval_on_selector_all("#hand button", "bs => bs.map(b => b.dataset.card)")
        # The first card of the hand sits at the right: the hand reads right to left.
        boxes = [page.locator(f'#hand button[data-card="{c}"]').bounding_box() for c in hand]
        if len(boxes) > 1:
            assert boxes[0]["x"] > boxes[-1]["x"]
        before = version(page)
        page.tap(f'#hand button[data-card="{hand[0]}"]')
        if turn == 2:
            screenshot(page, "table-ar")  # a card selected: what it would take, in Arabic
        page.tap(f'#hand button[data-card="{hand[0]}"]')
        wait_for_new_version(page, before)
    else:
        raise AssertionError("the game did not end within 400 turns")

    final = api.view(created["id"], seat["token"])
    headline = page.text_content("#winner")
    if final["winner"] is None:
        assert headline.startswith(ar["result.draw"])
    elif final["winner"] == 0:
        assert headline.startswith(ar["result.you_win"])
    else:
        assert ar["result.wins"].replace("{side}", "").strip(" .") in headline
    # Names are isolated in the scoreboard and the moves read in Arabic.
    assert page.locator("#scoreboard bdi", has_text="ليلى").count() >= 1
    log = page.text_content("#log")
    assert ar["move.you.took"].split(" ")[0] in log or ar["move.you.trailed"].split(" ")[0] in log
    assert page.text_content("#live") == ""  # nothing says "live" once the game is over
    assert page.text_content("#rounds-title") == ar["rounds.title"]
    assert page.is_visible("#round-summary")  # the last round's summary stays by the result


def test_the_round_summary_waits_for_continue(api: Any, new_page: Any, open_seat: Any) -> None:
    created = api.create([{"name": "Rami"}, {"bot": "greedy"}], rules={"target_score": 500})
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page(summary_seconds=60)
    open_seat(page, created["id"], seat)
    for _ in range(60):
        page.wait_for_function(
            """() => document.querySelector('#game').dataset.yourTurn === 'true'
                     || !document.querySelector('#round-summary').hidden"""
        )
        if page.is_visible("#round-summary"):
            break
        before = version(page)
        page.keyboard.press("1")
        page.wait_for_function(
            """old => document.querySelector('#game').dataset.version !== old
                     || !document.querySelector('#round-summary').hidden""",
            arg=before,
        )
    else:
        raise AssertionError("no round summary within 60 turns")

    view = api.view(created["id"], seat["token"])
    first = view["rounds"][0]
    summary = page.locator("#round-summary")
    assert summary.get_attribute("data-round") == "1"
    assert page.text_content("#summary-title") == "Round 1 is over"
    cards = page.eval_on_selector_all(
        "#round-summary tr.cards td", "ts => ts.map(t => t.textContent)"
    )
    points = page.eval_on_selector_all(
        "#round-summary tr.points td", "ts => ts.map(t => t.textContent)"
    )
    assert [c.split(" ")[0] for c in cards] == [str(n) for n in first["cards"]]
    assert points == [f"+{p}" for p in first["points"]]
    if first["majority"] is not None:
        assert "\u2605" in cards[first["majority"]]
    basras = page.eval_on_selector_all(
        "#round-summary tr.basras td", "ts => ts.map(t => t.textContent)"
    )
    assert basras == [str(n) for n in first["basras"]]
    moves = api.call("GET", f"/games/{created['id']}/moves")["moves"]
    last = [m for m in moves if m["round"] == 1 and m["captured"]][-1]
    names = {0: "Rami (you)", 1: "Greedy bot"}
    assert names[last["seat"] % 2] in page.text_content(".summary-last")

    # The table waits on the summary: the next deal shows once the player continues.
    assert page.get_attribute("#game", "data-your-turn") != "true"
    page.click("#summary-continue")
    page.wait_for_selector("#round-summary", state="hidden")
    page.wait_for_function(TURN_OR_END)
    assert "Round 2" in page.text_content("#scoreboard .match-info")


def test_a_timed_out_turn_reads_as_played_for_the_seat(
    api: Any, new_page: Any, open_seat: Any
) -> None:
    created = api.create([{"name": "Sami"}, {"bot": "greedy"}], rules={"turn_seconds": 5})
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page()
    open_seat(page, created["id"], seat)
    page.wait_for_selector("#game[data-your-turn=true]")
    # Nobody plays: the server plays for the seat when its 5 seconds run out.
    page.wait_for_selector("#log li.timeout", timeout=20_000)
    text = page.text_content("#log li.timeout")
    assert text.split(". ", 1)[1].startswith("Your time ran out: "), text
    assert "was played for you" in text
    assert "You played" not in text
    page.reload()  # from the game's log, after a reload too
    page.wait_for_selector("#log li.timeout")


def test_two_bots_of_one_level_have_names_of_their_own(
    api: Any, new_page: Any, open_seat: Any
) -> None:
    created = api.create(
        [{"name": "Nour"}, {"bot": "greedy"}, {"bot": "greedy"}, {"bot": "random"}]
    )
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page()
    open_seat(page, created["id"], seat)
    page.wait_for_selector("#opponents .seat")
    names = page.eval_on_selector_all(
        "#opponents .seat-name .name", "ns => ns.map(n => n.textContent)"
    )
    assert sorted(names) == ["Greedy bot 1", "Greedy bot 2", "Random bot"]


@pytest.mark.parametrize("locale", ["en-US", "ar-EG", "zu-ZA", "sw-TZ", "si-LK", "fil-PH", "gu-IN"])
def test_the_table_fits_a_phone_in_every_language(
    api: Any, new_page: Any, open_seat: Any, locale: str
) -> None:
    bots = [{"bot": "expert"}, {"bot": "expert"}, {"bot": "skilled"}]
    created = api.create([{"name": "Long Name Of A Player"}, *bots])
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page(PHONE, locale=locale, touch=True)
    open_seat(page, created["id"], seat)
    page.wait_for_selector("#game[data-your-turn=true]")
    fits(page)
    page.tap("#hand button >> nth=0")  # the preview and the Play button fit too
    fits(page)
    for box in [b.bounding_box() for b in page.locator("#hand button, #play-selected").all()]:
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
