"""Matchmaking across instances: two gunicorn instances on one PostgreSQL database, each taking
half the seeks of many players seeking at once (and each running its own pairing passes, after
every seek and every second). Every seek ends matched exactly once: each game made from seeks
holds exactly the players whose seeks name it, and no player sits in two of them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from .servers import gunicorn, migrated_postgres
from .support import bearer

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

PLAYERS = 40
TIMEOUT = 30


@pytest.fixture(scope="module")
def two_instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    log_dir = tmp_path_factory.mktemp("matchmaking")
    with (
        migrated_postgres() as url,
        gunicorn(url, log_dir, workers=2) as one,
        gunicorn(url, log_dir, workers=2) as other,
    ):
        yield [one.url, other.url]


def _player(base: str, number: int) -> dict[str, Any]:
    response = requests.post(f"{base}/players", json={"name": f"P{number}"}, timeout=TIMEOUT)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def test_seeks_taken_by_two_instances_are_each_matched_exactly_once(two_instances):
    players = [_player(two_instances[n % 2], n) for n in range(PLAYERS)]
    seeks: dict[str, tuple[str, str]] = {}  # player id -> (instance, seek id)
    lock, start = threading.Lock(), threading.Barrier(PLAYERS)

    def seek(number: int, player: dict[str, Any]) -> None:
        base = two_instances[number % 2]
        start.wait(timeout=TIMEOUT)
        response = requests.post(f"{base}/seeks", json={"players": 2 if number < 24 else 4},
                                 headers=bearer(player["token"]), timeout=TIMEOUT)  # fmt: skip
        assert response.status_code == 201, response.text
        with lock:
            seeks[player["id"]] = (base, response.json()["id"])

    threads = [threading.Thread(target=seek, args=pair) for pair in enumerate(players)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=2 * TIMEOUT)
    assert len(seeks) == PLAYERS
    found = {}
    for player in players:
        made_on, seek_id = seeks[player["id"]]
        other = next(base for base in two_instances if base != made_on)  # read elsewhere
        response = requests.get(f"{other}/seeks/{seek_id}?wait=10",
                                headers=bearer(player["token"]), timeout=TIMEOUT)  # fmt: skip
        assert response.status_code == 200, response.text
        found[player["id"]] = response.json()
    assert {seek["status"] for seek in found.values()} == {"matched"}
    games: dict[str, set[str]] = {}
    for player_id, seek in found.items():
        games.setdefault(seek["game_id"], set()).add(player_id)
    assert sorted(len(held) for held in games.values()) == [2] * 12 + [4] * 4
    for game_id, held in games.items():
        seats = requests.get(f"{two_instances[0]}/games/{game_id}", timeout=TIMEOUT).json()["seats"]
        assert {seat["player"] for seat in seats} == held
        assert sorted(found[p]["seat"] for p in held) == list(range(len(held)))
    for player in players:  # and no game was made twice: each player sits at one table
        listed = requests.get(f"{two_instances[1]}/players/{player['id']}/games", timeout=TIMEOUT)
        assert [game["id"] for game in listed.json()["games"]] == [found[player["id"]]["game_id"]]
