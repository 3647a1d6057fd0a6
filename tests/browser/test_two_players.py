"""Two browsers: one creates a game with an open seat, the other joins by the link; each sees the
other's moves arrive without reloading, and so does a third page that only watches.

With the stream (GET /games/{id}/stream) the pages follow it; on a server without one they fall
back to polling, and the test checks which of the two they used.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from openapi_spec import parse_yaml

pytestmark = pytest.mark.browser

CARD_NAME = re.compile(
    r"last played (ace|[2-9]|10|jack|queen|king) of (spades|hearts|diamonds|clubs)"
)


def version(page: Any) -> int:
    return int(page.get_attribute("#game", "data-version"))


def server_streams(api: Any) -> bool:
    import urllib.request

    with urllib.request.urlopen(api.base + "/openapi.yaml", timeout=10) as response:
        paths = parse_yaml(response.read())["paths"]
    return "/games/{game_id}/stream" in paths


def test_a_friend_joins_by_link_and_each_side_and_a_spectator_see_the_other_move(
    api: Any, live_server_url: str, new_page: Any
) -> None:
    alice = new_page()
    alice.goto(live_server_url + "/")
    alice.fill("#name", "Alice")
    alice.wait_for_selector("#start:not([disabled])")
    alice.select_option("#seat-1", "open")
    alice.click("#start")
    alice.wait_for_selector("#share:not([hidden])")
    link = alice.input_value("#share-link")
    assert re.search(r"/play/[^/?#]+(#invite=[^&]+)?$", link), link
    assert "?" not in link  # an invite never travels in a query string
    assert alice.get_attribute("#game", "data-status") == "waiting"
    game_id = re.search(r"/play/([^/?#]+)", link).group(1)

    bob = new_page()
    bob.goto(link)
    bob.wait_for_selector("#join:not([hidden])")
    bob.fill("#join-name", "Bob")
    bob.click("#join-btn")
    bob.wait_for_selector("#game[data-status=active]")
    alice.wait_for_selector("#game[data-status=active]")  # noticed without a reload
    assert alice.is_hidden("#share")
    assert "#invite" not in bob.url  # the invite did its job and left the address bar

    watcher = new_page()
    watcher.goto(f"{live_server_url}/play/{game_id}")
    watcher.wait_for_selector("#game[data-status=active]")
    assert watcher.get_attribute("#game", "data-you") == ""
    assert watcher.is_hidden("#hand") and watcher.is_hidden("#join")
    assert "watching" in watcher.text_content("#you-label")

    mode = "stream" if server_streams(api) else "polling"
    for page in (alice, bob, watcher):
        page.wait_for_selector(f"#game[data-live={mode}]")
        page.evaluate("window.__sameDocument = true")

    players = {0: alice, 1: bob}
    names = {0: "Alice", 1: "Bob"}
    for _ in range(6):
        turn = int(alice.get_attribute("#game", "data-turn"))
        mover, other = players[turn], players[1 - turn]
        mover.wait_for_selector("#game[data-your-turn=true]")
        card = mover.get_attribute("#hand button >> nth=0", "data-card")
        before = version(mover)
        mover.click("#hand button >> nth=0")
        for page in (mover, other, watcher):
            page.wait_for_function(
                "v => Number(document.querySelector('#game').dataset.version) > v", arg=before
            )
        other.wait_for_selector("#game[data-your-turn=true]")
        last = other.text_content("#last-move")
        assert last.startswith(f"{names[turn]} played {card[:-1]}"), last
        seen = watcher.text_content("#last-move")
        assert seen.startswith(f"{names[turn]} played {card[:-1]}"), seen
        label = other.get_attribute(f'#opponents [data-seat="{turn}"]', "aria-label")
        assert re.search(r"\b\d+ cards? in hand", label) and CARD_NAME.search(label), label

    for page in (alice, bob, watcher):
        assert page.evaluate("window.__sameDocument") is True
