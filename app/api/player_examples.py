"""The examples of players, their rated games and the leaderboard, recorded with the rest
(app/api/examples.py passes its ``Book``): two players play a short rated match."""

from __future__ import annotations

from typing import Any

# A player's token in the examples: a real one changes with every recording.
TOKEN_SHOWN = "the token POST /players answered"


def record_players(book: Any) -> None:
    amira = book.exchange("POST /players", "/players", {"name": "Amira"}, status=201,
                          request=("player", "A player of one's own"))  # fmt: skip
    badr = book.exchange("POST /players", "/players", {"name": "Badr"}, status=201)
    book.exchange("GET /players/me", "/players/me", status=200, token=amira["token"])
    rename = ("rename", "The name later seats take")
    book.exchange("PATCH /players/me", "/players/me", {"name": "Amira"}, status=200,
                  token=amira["token"], request=rename)  # fmt: skip
    rated = {"players": [{"player": "me", "seed": "amira-7f3c"}, {"open": True}],
             "rated": True, "rules": {"target_score": 1}}  # fmt: skip
    created = book.exchange(
        "POST /games", "/games", rated, status=201, token=amira["token"],
        request=("rated", "A rated game: the creator's player, and a seat for another to join"),
    )  # fmt: skip
    game_id = created["id"]
    book.exchange(
        "POST /games/{game_id}/join", f"/games/{game_id}/join", {"invite": created["invite"]},
        status=201, token=badr["token"],
        request=("as_a_player", "Take the open seat as the player whose bearer this is"),
        shown={"invite": "the invite POST /games answered"},
    )  # fmt: skip
    _play_out(book, game_id, [amira["token"], badr["token"]])
    book.exchange("GET /players/{player_id}", f"/players/{badr['id']}", status=200)
    book.exchange("GET /players/{player_id}/games", f"/players/{badr['id']}/games?limit=5",
                  status=200)  # fmt: skip
    book.exchange("GET /leaderboard", "/leaderboard?limit=10", status=200)
    _refusals(book, amira["token"])


def _refusals(book: Any, token: str) -> None:
    """A player in two seats of one game; a rated game's seat joined with no player's bearer."""
    twice = {"players": [{"player": "me"}, {"player": "me"}]}
    book.problem("already_seated", "POST", "/games", twice, token=token)
    rated = {"players": [{"player": "me"}, {"open": True}], "rated": True}
    created = book.send("POST", "/games", rated, token=token).get_json()
    joining = {"name": "Badr", "invite": created["invite"]}
    book.problem("player_required", "POST", f"/games/{created['id']}/join", joining)


def _play_out(book: Any, game_id: str, tokens: list[str]) -> None:
    """Each seat's player plays its first legal card until the match is over."""
    for _ in range(10_000):
        views = [book.send("GET", f"/games/{game_id}", token=token).get_json() for token in tokens]
        if views[0]["status"] != "active":
            return
        turn = views[0]["turn"]
        card = views[turn]["legal_moves"][0]["card"]
        book.send("POST", f"/games/{game_id}/moves", {"card": card}, token=tokens[turn])
