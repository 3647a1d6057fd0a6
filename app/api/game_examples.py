"""The examples of the /games resource, recorded first (app/api/examples.py passes its ``Book``):
a human against a bot from a fixed deck, a seat joined, the refusals, the audit and the stream of
the finished game, a resignation and a turn that ran out; GET /rules and the probes on the way."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from app.api.contract import CARD_CODES

# Round 1 of the recorded game: Amira (seat 0) leads with 5D onto 5C 2H 3S 5H, a basra.
OPENING_HANDS = [["5D", "9S", "KD", "4C"], ["4S", "QH", "JC", "10C"]]
OPENING_FLOOR = ["5C", "2H", "3S", "5H"]


# The invite in the join example: a real one changes with every recording.
INVITE_SHOWN = "the invite POST /games answered"


def fixed_deck(hands: list[list[str]], floor: list[str]) -> list[str]:
    """A whole deck dealing ``hands`` (seat 0 first) and ``floor`` in round 1, the rest in
    canonical order (the same construction as tests/api/helpers.py's stacked_deck)."""
    top = [code for hand in hands for code in hand] + floor
    return top + [code for code in CARD_CODES if code not in top]


def record_game(book: Any) -> None:
    """Play the example games through ``book``, keeping each answer as its example."""
    versus_bot, amira = _create_games(book)
    game_id = versus_bot["id"]
    open_game, badr, amira_b = _join(book)
    book.exchange("GET /games/{game_id}", f"/games/{game_id}", status=200, token=amira)
    book.exchange(
        "POST /games/{game_id}/moves", f"/games/{game_id}/moves", {"card": "5D"}, status=201,
        token=amira, request=("card", "Play a card (the 5D takes 5C 5H and 2H+3S: a basra)"),
    )  # fmt: skip
    book.request_only("POST /games/{game_id}/moves", "lower_case", "Lower case is accepted",
                      {"card": "9s"})  # fmt: skip
    _refusals(book, game_id, amira, open_game, badr, amira_b)
    book.stream(open_game, keep=False)
    _play(book, game_id, amira, moves=2)
    book.exchange("GET /games/{game_id}/moves", f"/games/{game_id}/moves", status=200)
    book.exchange("GET /games/{game_id}/events", f"/games/{game_id}/events?after=3",
                  status=200, token=amira)  # fmt: skip
    _play(book, game_id, amira)
    book.problem("game_not_active", "POST", f"/games/{game_id}/moves", {"card": "AS"},
                 token=amira)  # fmt: skip
    book.exchange("GET /games/{game_id}/replay", f"/games/{game_id}/replay?step=1", status=200)
    _analysis(book, game_id, open_game)
    book.stream(game_id)
    book.exchange("GET /games/{game_id}/verify", f"/games/{game_id}/verify", status=200)
    book.exchange("GET /games/{game_id}/fairness", f"/games/{game_id}/fairness", status=200)
    book.exchange("GET /games", "/games?limit=2", status=200)
    book.exchange("GET /rules", "/rules", status=200)
    book.exchange("GET /healthz", "/healthz", status=200)
    book.exchange("GET /readyz", "/readyz", status=200)
    _resign(book)
    _time_out(book)


def _analysis(book: Any, game_id: str, open_game: str) -> None:
    """The finished game's analysis: refused while a game is on, 202 while it is computed,
    then 200 (the example keeps its first moves: the rest are alike)."""
    operation, url = "GET /games/{game_id}/analysis", f"/games/{game_id}/analysis"
    book.problem("game_not_over", "GET", f"/games/{open_game}/analysis")
    book.exchange(operation, url, status=202)
    deadline = time.monotonic() + 120
    while book.send("GET", url).status_code == 202:
        if time.monotonic() > deadline:
            raise AssertionError(f"{url}: the analysis did not finish")
        time.sleep(0.1)
    done = book.exchange(operation, url, status=200)
    done["moves"] = done["moves"][:3]
    book.examples[operation]["responses"]["200"] = done


def _resign(book: Any) -> None:
    """A match resigned, then its rematch: asked for by one seat, then taken by the other."""
    two = {"players": [{"name": "Amira"}, {"name": "Badr"}]}
    created = book.exchange("POST /games", "/games", two, status=201)
    url = f"/games/{created['id']}/resign"
    tokens = [seat["token"] for seat in created["seats"]]
    book.exchange("POST /games/{game_id}/resign", url, status=201, token=tokens[1])
    rematch = "POST /games/{game_id}/rematch"
    book.exchange(rematch, f"/games/{created['id']}/rematch", status=201, token=tokens[1])
    book.send("POST", f"/games/{created['id']}/rematch", token=tokens[0])  # the game deals
    book.stream(created["id"], keep=False)  # ... resigned, over, rematch


def _time_out(book: Any) -> None:
    """A game on a turn clock whose first turn runs out: the server plays for the seat (the
    ``timeout`` record, then its ``move``). Then that seat resigns, so that no clock is left
    running in the database."""
    clocked = {"players": [{"name": "Amira"}, {"name": "Badr"}], "rules": {"turn_seconds": 30}}
    created = book.send("POST", "/games", clocked).get_json()
    url, token = f"/games/{created['id']}", created["seats"][0]["token"]
    config = book.client.application.config
    clock = config["CLOCK"]
    late = clock() + timedelta(seconds=31)
    config["CLOCK"] = lambda: late  # the app's clock, as tests set it
    try:
        loaded = book.send("GET", url).get_json()  # loading the game plays the expired turn
    finally:
        config["CLOCK"] = clock
    if not loaded or loaded.get("version", 0) <= created["state"]["version"]:
        raise AssertionError(f"{url}: the expired turn was not played: {loaded}")
    resigned = book.send("POST", f"{url}/resign", token=token)
    if resigned.status_code != 201:
        raise AssertionError(f"{url}/resign: {resigned.status_code} {resigned.get_json()}")
    book.stream(created["id"], keep=False)  # ... timeout, move, resigned, over


def _create_games(book: Any) -> tuple[dict[str, Any], str]:
    deck = fixed_deck(OPENING_HANDS, OPENING_FLOOR)
    body = {
        "players": [{"name": "Amira", "seed": "amira-7f3c"}, {"bot": "greedy", "name": "Ghada"}],
        "rules": {"target_score": 31},
        "deck": deck,
    }
    created = book.exchange(
        "POST /games", "/games", body, status=201,
        request=("against_a_bot", "A human against the greedy bot, round 1 from a fixed deck"),
    )  # fmt: skip
    book.exchange(
        "POST /games", "/games", {"players": [{"name": "Amira"}, {"name": "Badr"}]}, status=201,
        request=("two_humans", "Two humans at one table, dealt by the fair shuffle"),
    )  # fmt: skip
    four = {
        "players": [{"name": "Amira"}, {"bot": "expert"}, {"open": True}, {"bot": "random"}],
        "rules": {"seven_diamonds": "sum_le_10", "majority_tie": "carry_over"},
    }
    book.exchange(
        "POST /games",
        "/games",
        four,
        status=201,
        request=("four_seats", "Four seats (two teams): bots, and a seat left open"),
    )
    return created, created["seats"][0]["token"]


def _join(book: Any) -> tuple[str, str, str]:
    created = book.exchange(
        "POST /games", "/games",
        {"players": [{"name": "Amira", "seed": "amira-7f3c"}, {"open": True}]}, status=201,
        request=("open_seat", "A seat left open for a second player to join"),
    )  # fmt: skip
    game_id = created["id"]
    joined = book.exchange(
        "POST /games/{game_id}/join", f"/games/{game_id}/join",
        {"name": "Badr", "seed": "b4dr", "invite": created["invite"]}, status=201,
        request=("join", "Take the open seat with the game's invite, and a seed of your own"),
        shown={"name": "Badr", "seed": "b4dr", "invite": INVITE_SHOWN},
    )  # fmt: skip
    return game_id, joined["token"], created["seats"][0]["token"]


def _refusals(book: Any, game_id: str, amira: str, open_game: str, badr: str,
              amira_b: str) -> None:  # fmt: skip
    moves = f"/games/{game_id}/moves"
    book.problem("not_found", "GET", "/games/0123456789abcdef")
    book.problem("unauthorized", "POST", moves, {"card": "9S"})
    book.problem("forbidden", "POST", moves, {"card": "9S"}, token=badr)
    book.problem("bad_request", "POST", moves, token=amira, raw=b'{"card": 9S}')
    book.problem("invalid_request", "POST", "/games", {"players": [{"name": "Amira"}]})
    book.problem("invalid_card", "POST", moves, {"card": "1X"}, token=amira)
    book.problem("card_not_in_hand", "POST", moves, {"card": "AS"}, token=amira)
    book.problem("version_mismatch", "POST", moves, {"card": "9S"}, token=amira,
                 headers={"If-Match": '"1"'})  # fmt: skip
    key = {"Idempotency-Key": "d3b07384-move-2"}
    book.send("POST", moves, {"card": "9S"}, amira, key)
    book.problem("idempotency_conflict", "POST", moves, {"card": "KD"}, token=amira, headers=key)
    book.problem("payload_too_large", "POST", "/games", raw=b" " * (70 * 1024))
    book.problem("game_full", "POST", f"/games/{open_game}/join", {"name": "Camelia"})
    private = book.send("POST", "/games", {"players": [{"name": "Amira"}, {"open": True}]})
    book.problem("forbidden", "POST", f"/games/{private.get_json()['id']}/join", {"name": "Zaki"})
    book.problem("game_not_finished", "GET", f"/games/{open_game}/replay")
    turn = book.client.get(f"/games/{open_game}").get_json()["turn"]
    book.problem("not_your_turn", "POST", f"/games/{open_game}/moves", {"card": "AS"},
                 token=badr if turn == 0 else amira_b)  # fmt: skip


def _play(book: Any, game_id: str, token: str, moves: int = 10_000) -> None:
    """Amira plays her first legal card ``moves`` times (or to the end); the bot replies."""
    view = book.client.get(f"/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
    state = view.get_json()
    for _ in range(moves):
        if state["status"] != "active":
            return
        card = state["legal_moves"][0]["card"]
        state = book.exchange("POST /games/{game_id}/moves", f"/games/{game_id}/moves",
                              {"card": card}, status=201, token=token)["state"]  # fmt: skip
