"""The examples of openapi.yaml, taken from a real game played against the app.

``basra examples`` plays a game from a fixed deck through the HTTP API (in process, on a
throwaway SQLite database), keeps every request body it sent and every answer it got, and
writes them to ``app/api/examples.json``; ``basra openapi`` then puts them in the document
(``ExamplesPlugin``). tests/api/test_examples.py replays the same script against the test
databases and fails when an answer no longer has the shape of its committed example, and
validates every example against its operation's schemas. So when an answer changes shape:
run ``basra examples`` and ``basra openapi``, and commit both files.

``record`` hands a ``Book`` to the script of each resource in turn (``record_game``,
``record_players``, ``record_seeks``, below); a new operation gets a step in its resource's
script (``book.exchange(...)``).
"""

from __future__ import annotations

import copy
import json
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from apispec import BasePlugin

from app.api.contract import CARD_CODES
from app.api.errors import PROBLEM_JSON

EXAMPLES_FILE = Path(__file__).with_name("examples.json")
PROBLEMS_KEY = "problems"
RECORDS_KEY = "stream_records"  # the data of each kind of record of GET /games/{game_id}/stream
STREAM = "GET /games/{game_id}/stream"


class Book:
    """Sends requests through a Flask test client and keeps what the examples need."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.examples: dict[str, Any] = {PROBLEMS_KEY: {}, RECORDS_KEY: {}}

    def send(self, method: str, url: str, body: Any = None, token: str | None = None,
             headers: dict[str, str] | None = None, raw: bytes | None = None) -> Any:  # fmt: skip
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        if raw is not None:
            return self.client.open(url, method=method, data=raw, headers=sent,
                                    content_type="application/json")  # fmt: skip
        return self.client.open(url, method=method, json=body, headers=sent)

    def exchange(self, operation: str, url: str, body: Any = None, *, status: int,
                 token: str | None = None, headers: dict[str, str] | None = None,
                 request: tuple[str, str] | None = None,
                 shown: Any = None) -> dict[str, Any]:  # fmt: skip
        """Send ``body`` to ``operation`` (``"POST /games"``) and keep the 2xx answer as its
        example (the first one kept wins); ``request`` = (name, summary) keeps the body too
        (``shown`` instead, when the body sent holds a secret that changes every time)."""
        method = operation.split(" ", 1)[0]
        response = self.send(method, url, body, token, headers)
        answer = response.get_json()
        if response.status_code != status:
            raise AssertionError(f"{operation}: {response.status_code} {answer}")
        entry = self.examples.setdefault(operation, {})
        entry.setdefault("responses", {}).setdefault(str(status), answer)
        if request is not None:
            name, summary = request
            value = body if shown is None else shown
            entry.setdefault("requests", {})[name] = {"summary": summary, "value": value}
        return dict(answer or {})

    def request_only(self, operation: str, name: str, summary: str, body: Any) -> None:
        """An example request body that is not sent (a variant of one that was)."""
        requests = self.examples.setdefault(operation, {}).setdefault("requests", {})
        requests[name] = {"summary": summary, "value": body}

    def problem(self, code: str, method: str, url: str, body: Any = None, **kwargs: Any) -> None:
        response = self.send(method, url, body, **kwargs)
        answer = response.get_json()
        if not answer or answer.get("code") != code:
            raise AssertionError(f"{method} {url}: expected {code}, got {answer}")
        self.examples[PROBLEMS_KEY].setdefault(code, answer)

    def stream(self, game_id: str, keep: bool = True) -> None:
        """The game's stream, read until it ends or the records stored so far are out: its
        first records as the answer's example (``keep``), and the data of each kind of record as
        that record schema's example."""
        config = self.client.application.config
        keepalive = config.get("STREAM_KEEPALIVE_SECONDS")
        config["STREAM_KEEPALIVE_SECONDS"] = 0.05  # the first keep-alive ends what is stored
        response = self.client.get(f"/games/{game_id}/stream", buffered=False)
        text = ""
        try:
            for chunk in response.response:  # a live game's stream never ends: stop at a keep-alive
                text += chunk.decode() if isinstance(chunk, bytes) else chunk
                if ": keep-alive" in text:
                    break
        finally:
            response.close()
            if keepalive is None:
                config.pop("STREAM_KEEPALIVE_SECONDS")
            else:
                config["STREAM_KEEPALIVE_SECONDS"] = keepalive
        blocks = [block for block in text.split("\n\n") if block.startswith("id:")]
        if keep:
            entry = self.examples.setdefault(STREAM, {})
            entry["responses"] = {"200": "\n\n".join(blocks[:4]) + "\n\n"}
        for block in blocks:
            fields = dict(line.split(": ", 1) for line in block.splitlines())
            self.examples[RECORDS_KEY].setdefault(fields["event"], json.loads(fields["data"]))


def record(client: Any) -> dict[str, Any]:
    """Play the example game through ``client``; the examples, keyed by operation."""
    book = Book(client)
    record_game(book)
    record_players(book)
    record_seeks(book)
    return book.examples


def load(path: Path = EXAMPLES_FILE) -> dict[str, Any]:
    if not path.exists():
        return {PROBLEMS_KEY: {}, RECORDS_KEY: {}}
    examples: dict[str, Any] = json.loads(path.read_text())
    return examples


class ExamplesPlugin(BasePlugin):
    """Puts the recorded examples into every operation as apispec builds its path."""

    def __init__(self, examples: dict[str, Any]) -> None:
        self.examples = examples

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **_kwargs: Any) -> None:  # fmt: skip
        for method, operation in (operations or {}).items():
            entry = self.examples.get(f"{method.upper()} {path}", {})
            content = (operation.get("requestBody") or {}).get("content", {})
            if entry.get("requests") and "application/json" in content:
                content["application/json"]["examples"] = entry["requests"]
            for status, response in operation.get("responses", {}).items():
                if not isinstance(response, dict):
                    continue
                media = response.get("content", {})
                answer = entry.get("responses", {}).get(str(status))
                if answer is not None and "application/json" in media:
                    media["application/json"]["example"] = answer
                if isinstance(answer, str) and "text/event-stream" in media:
                    media["text/event-stream"]["example"] = answer
                self._problem_examples(media)

    def _problem_examples(self, media: dict[str, Any]) -> None:
        recorded = self.examples.get(PROBLEMS_KEY, {})
        for code, example in media.get(PROBLEM_JSON, {}).get("examples", {}).items():
            if code in recorded:
                example["value"] = copy.deepcopy(recorded[code])  # no YAML anchors


# The examples of the /games resource, recorded first: a human against a bot from a fixed deck,
# a seat joined, the refusals, the audit and the stream of the finished game, a resignation and a
# turn that ran out; GET /rules and the probes on the way.

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
    _game_refusals(book, game_id, amira, open_game, badr, amira_b)
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


def _game_refusals(book: Any, game_id: str, amira: str, open_game: str, badr: str,
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


# The examples of players, their rated games and the leaderboard: two players play a short
# rated match.

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
    _player_refusals(book, amira["token"])


def _player_refusals(book: Any, token: str) -> None:
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


# The examples of matchmaking: two players seek alike and are seated together; a third seeks
# and cancels.

RULES = {"target_score": 61}  # a kind of table of its own: no other example seeks it


def record_seeks(book: Any) -> None:
    amira = book.send("POST", "/players", {"name": "Amira"}).get_json()["token"]
    badr = book.send("POST", "/players", {"name": "Badr"}).get_json()["token"]
    two = {"players": 2, "rules": RULES}
    first = book.exchange("POST /seeks", "/seeks", two, status=201, token=amira,
                          request=("two", "A game of two, to 61 points"))  # fmt: skip
    book.problem("already_seeking", "POST", "/seeks", {"players": 4}, token=amira)
    book.exchange("POST /seeks", "/seeks", two, status=201, token=badr)
    url = f"/seeks/{first['id']}"
    book.exchange("GET /seeks/{seek_id}", f"{url}?wait=5", status=200, token=amira)
    book.problem("seek_not_waiting", "DELETE", url, token=amira)
    chadi = book.send("POST", "/players", {"name": "Chadi"}).get_json()["token"]
    four = {"players": 4, "rated": True, "bot_after": 30}
    waiting = book.exchange(
        "POST /seeks", "/seeks", four, status=201, token=chadi,
        request=("four_rated", "A rated game of four; bots take the other seats after 30 s"),
    )  # fmt: skip
    cancelled = book.send("DELETE", f"/seeks/{waiting['id']}", token=chadi)
    if cancelled.status_code != 204:
        raise AssertionError(f"DELETE /seeks: {cancelled.status_code} {cancelled.get_json()}")
