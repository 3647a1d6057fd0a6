"""One Idempotency-Key per intended move: the page sends a move again, under the same key, when the
network failed or the server answered 5xx, and a fresh key for the next move; the move is played
once even when the first request was applied and only its answer was lost."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.browser

YOUR_TURN = "() => document.querySelector('#game').dataset.yourTurn === 'true'"


def test_a_move_is_sent_again_with_its_key_and_played_once(
    api: Any, new_page: Any, open_seat: Any
) -> None:
    created = api.create([{"name": "Noor"}, {"bot": "greedy"}], rules={"target_score": 1})
    game_id = created["id"]
    seat = next(s for s in created["seats"] if s.get("token"))
    page = new_page()
    sent: list[tuple[str, str]] = []  # (what became of the request, its Idempotency-Key)

    def moves(route: Any, request: Any) -> None:
        if request.method != "POST":
            route.continue_()
            return
        key = request.headers.get("idempotency-key", "")
        attempt = sum(1 for _, k in sent if k == key)
        if len(sent) == 0:
            # The first move reaches the server and is played; its answer is lost (a 503).
            route.fetch()
            sent.append(("applied, answered 503", key))
            route.fulfill(
                status=503,
                content_type="application/problem+json",
                body=json.dumps({"title": "Service Unavailable", "status": 503}),
            )
        elif attempt == 0 and len(sent) == 2:
            # The second move never reaches the server (the network failed).
            sent.append(("aborted", key))
            route.abort("connectionreset")
        else:
            sent.append(("sent", key))
            route.continue_()

    page.route(f"**/games/{game_id}/moves", moves)
    open_seat(page, game_id, seat)

    for _ in range(2):
        page.wait_for_function(YOUR_TURN)
        before = str(page.get_attribute("#game", "data-version"))
        page.click("#hand button >> nth=0")
        page.wait_for_function(
            "old => document.querySelector('#game').dataset.version !== old", arg=before
        )

    outcomes = [outcome for outcome, _ in sent]
    assert outcomes == ["applied, answered 503", "sent", "aborted", "sent"], sent
    keys = [key for _, key in sent]
    assert keys[0] and keys[0] == keys[1], "a retry carries the move's own key"
    assert keys[2] and keys[2] == keys[3], "a retry carries the move's own key"
    assert keys[0] != keys[2], "the next move has a fresh key"
    # Each intended move was played once, and the page shows what the server holds.
    log = api.call("GET", f"/games/{game_id}/moves")["moves"]
    assert len([m for m in log if m["seat"] == seat["seat"]]) == 2
    assert page.get_attribute("#game", "data-status") in ("active", "finished")
    view = api.view(game_id, seat["token"])
    page.wait_for_function(
        "v => Number(document.querySelector('#game').dataset.version) >= v", arg=view["version"]
    )
    assert page.text_content("#notice") == ""
