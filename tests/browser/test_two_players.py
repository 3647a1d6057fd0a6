"""Two browsers: one creates a game with an open seat, the other joins by the link; each sees the
other's moves arrive without reloading."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def version(page: Any) -> int:
    return int(page.get_attribute("#game", "data-version"))


def test_a_friend_joins_by_link_and_each_side_sees_the_other_move(
    live_server_url: str, new_page: Any
) -> None:
    alice = new_page()
    alice.goto(live_server_url + "/")
    alice.fill("#name", "Alice")
    alice.click("#create-open")
    alice.wait_for_selector("#share:not([hidden])")
    link = alice.input_value("#share-link")
    assert re.search(r"/play/[^/]+$", link)
    assert alice.get_attribute("#game", "data-status") == "waiting"

    bob = new_page()
    bob.goto(link)
    bob.wait_for_selector("#join:not([hidden])")
    bob.fill("#join-name", "Bob")
    bob.click("#join-btn")
    bob.wait_for_selector("#game[data-status=active]")
    alice.wait_for_selector("#game[data-status=active]")  # noticed by polling, no reload
    assert alice.is_hidden("#share")
    for page in (alice, bob):
        page.evaluate("window.__sameDocument = true")

    players = {0: alice, 1: bob}
    names = {0: "Alice", 1: "Bob"}
    for _ in range(6):
        turn = int(alice.get_attribute("#game", "data-turn"))
        mover, watcher = players[turn], players[1 - turn]
        mover.wait_for_selector("#game[data-your-turn=true]")
        card = mover.get_attribute("#hand button >> nth=0", "data-card")
        before = version(mover)
        mover.click("#hand button >> nth=0")
        mover.wait_for_function(
            "v => Number(document.querySelector('#game').dataset.version) > v", arg=before
        )
        watcher.wait_for_function(
            "v => Number(document.querySelector('#game').dataset.version) > v", arg=before
        )
        watcher.wait_for_selector("#game[data-your-turn=true]")
        last = watcher.text_content("#last-move")
        assert last.startswith(f"{names[turn]} played {card[:-1]}"), last
        assert watcher.get_attribute(f'#opponents [data-seat="{turn}"]', "aria-label").endswith(
            "cards in hand"
        )

    for page in (alice, bob):
        assert page.evaluate("window.__sameDocument") is True
