"""Driving players through the API: making them, seating them, playing their games out."""

from __future__ import annotations

import threading
from typing import Any

from .helpers import bearer


def new_player(client: Any, name: str) -> dict[str, Any]:
    response = client.post("/players", json={"name": name})
    assert response.status_code == 201, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def players_game(
    client: Any, creator: dict[str, Any], joiner: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    """A game of ``creator`` (seat 0, by its bearer) and ``joiner`` (seat 1, joined by its)."""
    body = {"players": [{"player": "me"}, {"open": True}], **extra}
    created = client.post("/games", json=body, headers=bearer(creator["token"]))
    assert created.status_code == 201, created.get_json()
    game: dict[str, Any] = created.get_json()
    joined = client.post(f"/games/{game['id']}/join", json={"invite": game["invite"]},
                         headers=bearer(joiner["token"]))  # fmt: skip
    assert joined.status_code == 201, joined.get_json()
    return game


def play_out(client: Any, game_id: str, tokens: list[str], limit: int = 2000) -> dict[str, Any]:
    """Each seat's bearer (seat order) plays its first legal card until the match ends."""
    for _ in range(limit):
        view: dict[str, Any] = client.get(f"/games/{game_id}", headers=bearer(tokens[0])).get_json()
        if view["status"] != "active":
            return view
        mover = tokens[view["turn"]]
        card = client.get(f"/games/{game_id}", headers=bearer(mover)).get_json()["hand"][0]
        response = client.post(f"/games/{game_id}/moves", json={"card": card},
                               headers=bearer(mover))  # fmt: skip
        assert response.status_code == 201, response.get_json()
    raise AssertionError("the match did not end")


def play_first_hands(client: Any, game_id: str, tokens: list[str | None]) -> None:
    """Every seat plays the four cards of its first hand (``tokens`` in seat order, None for a
    bot's seat: bots answer by themselves); a rated game ended after that is rated."""
    seats = len(tokens)
    for _ in range(4 * seats):
        anyone = next(token for token in tokens if token)
        view = client.get(f"/games/{game_id}", headers=bearer(anyone)).get_json()
        if sum(seat["hand_size"] for seat in view["seats"]) == 0 or view["status"] != "active":
            return
        mover = tokens[view["turn"]]
        assert mover is not None, "a bot's turn that the bot did not play"
        card = client.get(f"/games/{game_id}", headers=bearer(mover)).get_json()["hand"][0]
        response = client.post(f"/games/{game_id}/moves", json={"card": card},
                               headers=bearer(mover))  # fmt: skip
        assert response.status_code == 201, response.get_json()


def race(*requests: Any) -> list[Any]:
    """Send the requests at once, each from a thread of its own."""
    start, answers = threading.Barrier(len(requests)), [None] * len(requests)

    def send(index: int) -> None:
        start.wait()
        answers[index] = requests[index]()

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return answers
