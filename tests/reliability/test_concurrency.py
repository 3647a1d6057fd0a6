"""Concurrency on PostgreSQL under gunicorn with several workers, for a bounded time:

- many clients hammer the same game (several clients per seat, racing for every turn);
- one client per game on many games at once.

Afterwards every game's log is contiguous, every /verify is ok, no move was applied twice (the
log holds exactly the moves the clients were told were applied), each idempotent retry returned
the first answer, and the server log holds no token and no card.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from .load import Http, SoloPlayer, Stats, assert_no_secret_in, audit_games, check_solo_players
from .load import run_clients as run_all
from .servers import Gunicorn, gunicorn, migrated_postgres
from .support import check_log, write_report

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(postgres_server: bool, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    if not postgres_server:
        pytest.skip("PostgreSQL is not running")
    with (
        migrated_postgres() as url,
        gunicorn(url, tmp_path_factory.mktemp("gunicorn"), workers=4) as running,
    ):
        yield running


@dataclass
class SharedGame:
    game_id: str
    tokens: list[str]
    applied: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> first answer
    lock: threading.Lock = field(default_factory=threading.Lock)


# A race needs moves to race for: the clients play on past their time until this many moves
# were applied, up to CAP_SECONDS (a loaded CI machine once let only 20 through in 8 s).
MINIMUM_MOVES = 40
CAP_SECONDS = 60.0


def _hammer(http: Http, game: SharedGame, seat: int, rng: random.Random, deadline: float) -> None:
    """One of several clients of a seat: look, and when it is our turn, race to play."""
    path = f"/games/{game.game_id}"
    token = game.tokens[seat]
    cap = deadline + CAP_SECONDS
    while time.monotonic() < deadline or (
        len(game.applied) < MINIMUM_MOVES and time.monotonic() < cap
    ):
        response = http.send("get", path, token)
        if response is None or response.status_code != 200:
            http.stats.error(f"GET {path}: {response and response.status_code}")
            continue
        view = response.json()
        if view["status"] != "active" or view["turn"] != seat:
            time.sleep(rng.random() * 0.01)
            continue
        key, body = secrets.token_hex(12), {"card": rng.choice(view["hand"])}
        headers = {"Idempotency-Key": key}
        if rng.random() < 0.3:
            headers["If-Match"] = f'"{view["version"]}"'
        answer = http.send("post", f"{path}/moves", token, json=body, headers=headers)
        if answer is None:
            http.stats.error("a move's answer was lost with no fault injected")
            continue
        if answer.status_code == 201:
            with game.lock:
                game.applied[key] = answer.json()
            if rng.random() < 0.3:  # the same request again: the first answer, nothing applied
                again = http.send("post", f"{path}/moves", token, json=body, headers=headers)
                with http.stats.lock:
                    http.stats.replays += 1
                if again is None or (again.status_code, again.json()) != (201, answer.json()):
                    http.stats.error(f"idempotent retry of {key} did not answer the first answer")
        elif answer.status_code not in (409, 412, 422) or answer.json()["code"] not in (
            "not_your_turn",
            "conflict",
            "version_mismatch",
            "card_not_in_hand",
            "game_not_active",
        ):
            http.stats.error(f"move: {answer.status_code} {answer.text[:200]}")


def hammer_one_game(server: Gunicorn, clients: int, seconds: float, name: str) -> None:
    stats = Stats()
    http = Http(server.url, stats)
    created = http.send(
        "post",
        "/games",
        json={
            "players": [{"name": f"Seat {n}"} for n in range(4)],
            "rules": {"target_score": 10000},
        },
    ).json()
    game = SharedGame(created["id"], [seat["token"] for seat in created["seats"]])
    deadline = time.monotonic() + seconds
    rngs = [random.Random(n) for n in range(clients)]
    run_all(
        [
            (lambda n=n: _hammer(Http(server.url, stats), game, n % 4, rngs[n], deadline))
            for n in range(clients)
        ]
    )
    assert stats.errors == [], stats.errors[:5]
    events = audit_games(server.url, [game.game_id])[game.game_id]["events"]
    assert check_log(events) == []
    played = [e["data"] for e in events if e["type"] == "CardPlayed"]
    firsts = sorted(answer["moves"][0]["n"] for answer in game.applied.values())
    assert firsts == [move["n"] for move in played], "the log and the 201 answers disagree"
    assert len(played) >= MINIMUM_MOVES, f"too few moves to have raced: {stats.summary()}"
    assert_no_secret_in(server.log(), game.tokens)
    write_report(
        name,
        {
            "clients": clients,
            "seconds": seconds,
            "games": 1,
            "moves_applied": len(played),
            **stats.summary(),
        },
    )


def many_games(server: Gunicorn, clients: int, seconds: float, name: str) -> None:
    stats = Stats()
    deadline = time.monotonic() + seconds
    players = [
        SoloPlayer(Http(server.url, stats), random.Random(1000 + n), deadline)
        for n in range(clients)
    ]
    run_all([player.run for player in players])
    assert stats.errors == [], stats.errors[:5]
    assert stats.lost == 0
    checked = check_solo_players(server.url, players)
    tokens = [game.token for player in players for game in player.games]
    assert_no_secret_in(server.log(), tokens)
    write_report(name, {"clients": clients, "seconds": seconds, **checked, **stats.summary()})


def test_32_clients_hammering_one_game(server: Gunicorn) -> None:
    hammer_one_game(server, clients=32, seconds=8, name="concurrency_one_game")


def test_200_clients_on_200_games(server: Gunicorn) -> None:
    many_games(server, clients=200, seconds=10, name="concurrency_many_games")


@pytest.mark.soak
def test_soak_32_clients_hammering_one_game(server: Gunicorn) -> None:
    hammer_one_game(server, clients=32, seconds=120, name="concurrency_one_game-soak")


@pytest.mark.soak
def test_soak_200_clients_on_200_games(server: Gunicorn) -> None:
    many_games(server, clients=200, seconds=180, name="concurrency_many_games-soak")


def test_a_body_over_64_kib_is_refused_by_the_real_server(server: Gunicorn) -> None:
    import requests

    big = b'{"players": [{"name": "' + b"x" * (65 * 1024) + b'"}]}'
    response = requests.post(
        f"{server.url}/games", data=big, timeout=30, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert response.headers["Content-Type"].startswith("application/problem+json")
    assert response.json()["code"] == "payload_too_large"
