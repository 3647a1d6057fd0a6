"""Clients for the load and fault runs, and the checks made on every game afterwards.

A client names each move with an Idempotency-Key and, when the answer is lost (a 503, a dropped
connection), sends the very same request again until it gets a definite answer: so it always
knows which moves it applied, and the log can be held to exactly that count.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import requests

from .support import check_log, problem_errors

TIMEOUT = 30  # seconds per request; gunicorn's own worker timeout is 30 s too
LOST = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError)


@dataclass
class Stats:
    """Shared by every client of a run (guarded by a lock)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    lost: int = 0  # requests with no answer at all (connection dropped)
    replays: int = 0  # idempotent retries compared with the first answer
    errors: list[str] = field(default_factory=list)
    outage_answers: Counter[str] = field(default_factory=Counter)
    slowest_seconds: float = 0.0  # the longest wait for one answer: a stall shows here

    def count(self, status: int | None, seconds: float = 0.0) -> None:
        with self.lock:
            self.requests += 1
            self.slowest_seconds = max(self.slowest_seconds, seconds)
            if status is None:
                self.lost += 1
            else:
                self.statuses[status] += 1

    def error(self, message: str) -> None:
        with self.lock:
            if len(self.errors) < 50:
                self.errors.append(message)

    def summary(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "statuses": dict(sorted(self.statuses.items())),
            "lost_connections": self.lost,
            "idempotent_replays": self.replays,
            "slowest_request_seconds": round(self.slowest_seconds, 3),
            "errors": self.errors[:10],
        }


class Http:
    """requests with the run's bookkeeping: every answer is counted and every refusal checked."""

    def __init__(self, base: str, stats: Stats) -> None:
        self.base, self.stats = base, stats
        self.session = requests.Session()

    def send(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", {}))
        if token:
            headers["Authorization"] = f"Bearer {token}"
        started = time.monotonic()
        try:
            response = self.session.request(
                method, self.base + path, headers=headers, timeout=TIMEOUT, **kwargs
            )
        except LOST:
            self.stats.count(None, time.monotonic() - started)
            self.session.close()
            self.session = requests.Session()
            return None
        self.stats.count(response.status_code, time.monotonic() - started)
        wrong = problem_errors(
            response.status_code, response.headers.get("Content-Type", ""), response.content
        )
        if wrong:
            self.stats.error(f"{method} {path}: {'; '.join(wrong)}")
        if response.status_code == 503:
            self.stats.outage_answers[response.json().get("code", "?")] += 1
        return response


@dataclass
class PlayedGame:
    game_id: str
    token: str
    applied: int = 0  # this client's moves the server confirmed (201), each key once


class SoloPlayer:
    """One human against a bot, game after game, until the deadline."""

    def __init__(
        self,
        http: Http,
        rng: random.Random,
        deadline: float,
        bots: tuple[str, ...] = ("random", "greedy"),
    ) -> None:
        self.http, self.rng, self.deadline, self.bots = http, rng, deadline, bots
        self.games: list[PlayedGame] = []
        self.state: dict[str, Any] | None = None

    def run(self) -> None:
        while time.monotonic() < self.deadline:
            over = self.state is None or self.state["status"] == "finished"
            if not over or self.new_game():
                self.move()

    def new_game(self) -> bool:
        players = [{"name": "Load"}, {"bot": self.rng.choice(self.bots)}]
        response = self.http.send(
            "post", "/games", json={"players": players, "rules": {"target_score": 30}}
        )
        if response is None or response.status_code != 201:
            self._expect_outage(response, "POST /games")
            time.sleep(0.1)
            return False
        body = response.json()
        self.games.append(PlayedGame(body["id"], body["seats"][0]["token"]))
        self.state = body["state"]
        return True

    def move(self) -> None:
        assert self.state is not None
        game = self.games[-1]
        card = self.rng.choice(self.state["hand"])
        key = secrets.token_hex(12)
        body = self.until_answered(game, {"card": card}, key)
        if body is None:
            return
        game.applied += 1
        self.state = body["state"]
        if self.rng.random() < 0.2:  # a retry of an answered request answers the same again
            again = self.until_answered(game, {"card": card}, key)
            with self.http.stats.lock:
                self.http.stats.replays += 1
            if again is not None and again != body:
                self.http.stats.error(f"idempotent retry differs in {game.game_id}")

    def until_answered(self, game: PlayedGame, body: dict[str, Any], key: str) -> Any:
        """The same request again and again while the answer is lost or the service is down."""
        path = f"/games/{game.game_id}/moves"
        give_up = max(self.deadline, time.monotonic()) + 60
        while time.monotonic() < give_up:
            response = self.http.send(
                "post", path, game.token, json=body, headers={"Idempotency-Key": key}
            )
            if response is not None and response.status_code == 201:
                return response.json()
            self._expect_outage(response, f"POST {path}")
            time.sleep(0.1)
        self.http.stats.error(f"{game.game_id}: key {key} never answered")
        return None

    def _expect_outage(self, response: Any, what: str) -> None:
        """No answer, a 503 (the database is down) or a lost race are the only excuses."""
        if response is None or response.status_code == 503:
            return
        if response.status_code != 409 or response.json().get("code") != "conflict":
            self.http.stats.error(f"{what}: {response.status_code} {response.text[:200]}")


def run_clients(workers: list[Callable[[], None]]) -> None:
    threads = [threading.Thread(target=work, daemon=True) for work in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
        assert not thread.is_alive(), "a load client did not stop"


def all_game_ids(base: str) -> list[str]:
    ids: list[str] = []
    cursor = None
    for _ in range(10_000):
        params: dict[str, Any] = {"limit": 100, **({"cursor": cursor} if cursor else {})}
        page = requests.get(f"{base}/games", params=params, timeout=TIMEOUT).json()
        ids += [game["id"] for game in page["games"]]
        cursor = page["next_cursor"]
        if not cursor:
            return ids
    raise AssertionError("the game list does not end")


def whole_log(base: str, game_id: str) -> list[dict[str, Any]]:
    """Every page of /events (``next_after`` leads from one to the next)."""
    events: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = requests.get(
            f"{base}/games/{game_id}/events", params={"after": after}, timeout=TIMEOUT
        ).json()
        events.extend(page["events"])
        after = page["next_after"]
    return events


def audit_games(base: str, game_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Every game's whole log and /verify verdict; AssertionError on the first problem."""

    def audit(game_id: str) -> tuple[str, dict[str, Any]]:
        events = whole_log(base, game_id)
        wrong = check_log(events)
        assert not wrong, f"{game_id}: {wrong}"
        verdict = requests.get(f"{base}/games/{game_id}/verify", timeout=TIMEOUT)
        assert verdict.status_code == 200, verdict.text
        assert verdict.json()["ok"], f"{game_id}: {verdict.json()}"
        return game_id, {"events": events, "verify": verdict.json()}

    with ThreadPoolExecutor(max_workers=8) as pool:
        return dict(pool.map(audit, game_ids))


def moves_by_seat(events: list[dict[str, Any]], seat: int) -> int:
    return sum(1 for e in events if e["type"] == "CardPlayed" and e["data"]["seat"] == seat)


def check_solo_players(base: str, players: list[SoloPlayer]) -> dict[str, Any]:
    """Every game in the database verifies, and each holds exactly the moves its client made."""
    ids = all_game_ids(base)
    audited = audit_games(base, ids)
    played = [game for player in players for game in player.games]
    for game in played:
        logged = moves_by_seat(audited[game.game_id]["events"], 0)
        assert logged == game.applied, (
            f"{game.game_id}: the client had {game.applied} moves confirmed, the log holds {logged}"
        )
    return {
        "games": len(ids),
        "games_played_by_clients": len(played),
        "moves": sum(g.applied for g in played),
    }


def assert_no_secret_in(log: str, tokens: list[str]) -> None:
    from .support import card_codes

    leaked = [token for token in tokens if token in log]
    assert not leaked, f"{len(leaked)} tokens in the server log"
    assert not card_codes(log), f"card codes in the server log: {sorted(card_codes(log))[:10]}"
