"""Small helpers for driving the API in tests."""

from __future__ import annotations

from typing import Any

from app.engine.cards import FULL_DECK


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def stacked_deck(hands: list[list[str]], floor: list[str]) -> list[str]:
    """A deck for round 1 of a game with ``len(hands)`` seats: ``hands[seat]`` is that seat's
    first four cards, ``floor`` the first floor (no Jack or 7D there, or the bury rule moves
    them); the rest follow in canonical order. Round 1's dealer is the last seat, so seat 0
    is dealt first."""
    top = [card for hand in hands for card in hand] + floor
    rest = [str(card) for card in FULL_DECK if str(card) not in top]
    return top + rest


def create(client: Any, players: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    response = client.post("/games", json={"players": players, **extra})
    assert response.status_code == 201, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def human_vs_bot(client: Any, bot: str = "greedy", **extra: Any) -> tuple[dict[str, Any], str]:
    body = create(client, [{"name": "Amira"}, {"bot": bot}], **extra)
    return body, body["seats"][0]["token"]


def play_to_end(client: Any, game_id: str, token: str, limit: int = 2000) -> dict[str, Any]:
    """Play the first legal card of our hand until the match ends (against bots)."""
    headers = bearer(token)
    view: dict[str, Any] = client.get(f"/games/{game_id}", headers=headers).get_json()
    for _ in range(limit):
        if view["status"] != "active":
            return view
        assert view["turn"] == view["you"], "bots must have replied inside the request"
        response = client.post(
            f"/games/{game_id}/moves", json={"card": view["hand"][0]}, headers=headers
        )
        assert response.status_code == 201, response.get_json()
        view = response.get_json()["state"]
    raise AssertionError("the match did not end")
