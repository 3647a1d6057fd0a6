"""More helpers for the API tests: seats, moves, problems and "nothing changed" checks.

Everything here goes through the HTTP layer (the Flask test client) only.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from app.engine.cards import FULL_DECK

from .helpers import bearer, create, stacked_deck

PROBLEM_JSON = "application/problem+json"
CARD_CODES = frozenset(str(card) for card in FULL_DECK)
BOTS_ONLY = [{"bot": "random"}, {"bot": "greedy"}]
VIEW_FIELDS = {
    "id", "status", "version", "round", "dealer", "turn", "floor", "stock", "target_score",
    "seats", "sides", "last_move", "rounds", "winner",
}  # fmt: skip
MOVE_FIELDS = {"n", "round", "seat", "card", "captured", "basra"}


def humans(client: Any, count: int = 2, **extra: Any) -> tuple[dict[str, Any], list[str]]:
    """A game of ``count`` human seats, all seated now: (creation body, tokens by seat)."""
    names = ["Amira", "Badr", "Camelia", "Dalia"][:count]
    body = create(client, [{"name": name} for name in names], **extra)
    return body, [seat["token"] for seat in body["seats"]]


def stacked_humans(
    client: Any, hands: list[list[str]], floor: list[str], **extra: Any
) -> tuple[dict[str, Any], list[str]]:
    """Human seats only, round 1 dealt from a stacked deck: ``hands[seat]`` and ``floor``."""
    return humans(client, len(hands), deck=stacked_deck(hands, floor), **extra)


def finished_bot_game(client: Any, players: list[dict[str, Any]] | None = None,
                      **extra: Any) -> dict[str, Any]:  # fmt: skip
    """A game of bots alone, played to its end by the background runner (app.background.bot_runner):
    the creation body with the final state and every move."""
    body = create(client, players or BOTS_ONLY, **extra)
    assert body["status"] == "active" and body["moves"] == []  # 201 at once
    state = wait_until_finished(client, body["id"])
    all_moves = client.get(f"/games/{body['id']}/moves").get_json()["moves"]
    return {**body, "status": state["status"], "state": state, "moves": all_moves}


def wait_until_finished(client: Any, game_id: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        state: dict[str, Any] = client.get(f"/games/{game_id}").get_json()
        if state["status"] == "finished":
            return state
        assert time.monotonic() < deadline, f"game {game_id} did not finish: {state['round']}"
        time.sleep(0.05)


def view(client: Any, game_id: str, token: str | None = None) -> dict[str, Any]:
    response = client.get(f"/games/{game_id}", headers=bearer(token) if token else {})
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def play(client: Any, game_id: str, token: str | None, card: Any,
         headers: dict[str, str] | None = None) -> Any:  # fmt: skip
    """POST one move; returns the raw response."""
    all_headers = {**(bearer(token) if token is not None else {}), **(headers or {})}
    return client.post(f"/games/{game_id}/moves", json={"card": card}, headers=all_headers)


def play_ok(client: Any, game_id: str, token: str, card: str, **kwargs: Any) -> dict[str, Any]:
    response = play(client, game_id, token, card, **kwargs)
    assert response.status_code == 201, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def moves(client: Any, game_id: str) -> list[dict[str, Any]]:
    response = client.get(f"/games/{game_id}/moves")
    assert response.status_code == 200, response.get_json()
    listed: list[dict[str, Any]] = response.get_json()["moves"]
    return listed


def events(client: Any, game_id: str, token: str | None = None,
           after: int | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Every event after ``after``, following ``next_after`` from page to page."""
    listed: list[dict[str, Any]] = []
    cursor: int | None = after
    while True:
        url = f"/games/{game_id}/events" + (f"?after={cursor}" if cursor is not None else "")
        response = client.get(url, headers=bearer(token) if token else {})
        assert response.status_code == 200, response.get_json()
        listed.extend(response.get_json()["events"])
        cursor = response.get_json()["next_after"]
        if cursor is None:
            return listed


def whole_decks(client: Any, game_id: str) -> dict[int, list[str]]:
    """Each round's dealt deck, from the log of a finished game."""
    return {e["data"]["round"]: e["data"]["deck"]
            for e in events(client, game_id) if e["type"] == "RoundDealt"}  # fmt: skip


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    """An RFC 9457 problem document with the contract's stable ``code``."""
    assert response.status_code == status, (
        response.status_code,
        response.get_data(as_text=True)[:600],
    )
    assert response.mimetype == PROBLEM_JSON
    body: dict[str, Any] = response.get_json()
    assert {"type", "title", "status", "detail", "code"} <= set(body), body
    assert body["status"] == status
    assert body["code"] == code, body
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    assert isinstance(body["type"], str) and body["type"]
    return body


def footprint(client: Any, game_id: str) -> tuple[int, list[dict[str, Any]], int]:
    """What a refused request must leave alone: (version, moves, number of events)."""
    return view(client, game_id)["version"], moves(client, game_id), len(events(client, game_id))


def card_strings(value: Any) -> Iterator[str]:
    """Every string in a JSON document that is a card code."""
    if isinstance(value, str):
        if value in CARD_CODES:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from card_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from card_strings(item)


def not_in(hand: list[str], *others: list[str]) -> str:
    """Some card that is in none of the given lists."""
    used = set(hand).union(*others)
    return next(code for code in (str(card) for card in FULL_DECK) if code not in used)
