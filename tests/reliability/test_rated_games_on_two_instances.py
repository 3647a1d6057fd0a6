"""Rated games on two instances sharing one PostgreSQL: two gunicorn servers, each game's last
card sent to both at once, and resignations of many games against one bot sent to both at once.
Each rating changes exactly once: every player played one game, and the game's `ratings` are the
players' ratings now; the bot's results are each counted once, and its rating, fixed, is never
moved."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

from .servers import Gunicorn, gunicorn, migrated_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
GAMES = 4
BOT_GAMES = 8


@pytest.fixture(scope="module")
def instances(
    postgres_server: bool, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Gunicorn, Gunicorn]]:
    if not postgres_server:
        pytest.skip("PostgreSQL is not running")
    logs = tmp_path_factory.mktemp("gunicorn")
    with (
        migrated_postgres() as url,
        gunicorn(url, logs, workers=1) as one,
        gunicorn(url, logs, workers=1) as two,
    ):
        yield one, two


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _player(base: str, name: str) -> dict[str, Any]:
    created = requests.post(f"{base}/players", json={"name": name}, timeout=10)
    assert created.status_code == 201, created.text
    player: dict[str, Any] = created.json()
    return player


def _at_once(*sends: Callable[[], requests.Response]) -> list[requests.Response]:
    start, answers = threading.Barrier(len(sends)), [None] * len(sends)

    def send(index: int) -> None:
        start.wait()
        answers[index] = sends[index]()  # type: ignore[call-overload]

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(sends))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers  # type: ignore[return-value]


def _to_last_card(base: str, game_id: str, tokens: list[str]) -> tuple[str, str]:
    """Play the match up to its last card: (the bearer that plays it, the card)."""
    url = f"{base}/games/{game_id}"
    for _ in range(200):
        view = requests.get(url, headers=_auth(tokens[0]), timeout=10).json()
        mover = tokens[view["turn"]]
        card = requests.get(url, headers=_auth(mover), timeout=10).json()["hand"][0]
        if view["stock"] == 0 and sum(seat["hand_size"] for seat in view["seats"]) == 1:
            return mover, card
        played = requests.post(f"{url}/moves", json={"card": card}, headers=_auth(mover),
                               timeout=10)  # fmt: skip
        assert played.status_code == 201, played.text
    raise AssertionError("the match did not reach its last card")


def test_racing_last_cards_on_two_instances_rate_each_player_once(
    instances: tuple[Gunicorn, Gunicorn],
):
    one, two = instances
    for number in range(GAMES):
        amira, badr = _player(one.url, f"Amira {number}"), _player(two.url, f"Badr {number}")
        body = {"players": [{"player": "me"}, {"open": True}], "rated": True,
                "rules": {"target_score": 1}}  # fmt: skip
        game = requests.post(f"{one.url}/games", json=body, headers=_auth(amira["token"]),
                             timeout=10).json()  # fmt: skip
        joined = requests.post(f"{two.url}/games/{game['id']}/join",
                               json={"invite": game["invite"]}, headers=_auth(badr["token"]),
                               timeout=10)  # fmt: skip
        assert joined.status_code == 201, joined.text
        moves = [f"{base}/games/{game['id']}/moves" for base in (one.url, two.url)]
        for _ in range(10):  # a round that leaves the sides level deals again
            mover, card = _to_last_card(one.url, game["id"], [amira["token"], badr["token"]])
            headers = _auth(mover)
            answers = _at_once(*(
                lambda url=url, card=card, headers=headers: requests.post(
                    url, json={"card": card}, headers=headers, timeout=30)
                for url in moves
            ))  # fmt: skip
            codes = sorted(answer.status_code for answer in answers)
            view = requests.get(f"{two.url}/games/{game['id']}", timeout=10).json()
            if view["status"] == "finished":
                break
            assert codes in ([201, 409], [201, 422])  # the card went, into a new deal
        assert codes == [201, 409]
        final = requests.get(f"{two.url}/games/{game['id']}", timeout=10).json()
        assert final["status"] == "finished"
        now = [requests.get(f"{one.url}/players/{p['id']}", timeout=10).json()
               for p in (amira, badr)]  # fmt: skip
        assert [p["stats"]["played"] for p in now] == [1, 1]
        assert [c["after"]["value"] for c in final["ratings"]] == [
            p["rating"]["value"] for p in now
        ]
        assert requests.get(f"{one.url}/games/{game['id']}/verify", timeout=10).json()["ok"]


def test_games_against_one_bot_ending_at_once_on_two_instances_count_once_and_move_it_not(
    instances: tuple[Gunicorn, Gunicorn],
):
    one, two = instances
    before = requests.get(f"{one.url}/players/bot-expert", timeout=10).json()
    games = []
    for number in range(BOT_GAMES):
        player = _player(one.url, f"Chadi {number}")
        body = {"players": [{"player": "me"}, {"bot": "expert"}], "rated": True}
        created = requests.post(f"{one.url}/games", json=body, headers=_auth(player["token"]),
                                timeout=10)  # fmt: skip
        games.append((created.json()["id"], player["token"]))
    bases = [one.url, two.url]
    answers = _at_once(*(
        lambda i=i, game_id=game_id, token=token: requests.post(
            f"{bases[i % 2]}/games/{game_id}/resign", headers=_auth(token), timeout=60)
        for i, (game_id, token) in enumerate(games)
    ))  # fmt: skip
    assert [answer.status_code for answer in answers] == [201] * BOT_GAMES
    after = requests.get(f"{one.url}/players/bot-expert", timeout=10).json()
    assert after["stats"]["won"] == before["stats"]["won"] + BOT_GAMES
    changes = [next(c for c in answer.json()["state"]["ratings"] if c["player"] == "bot-expert")
               for answer in answers]  # fmt: skip
    assert after["rating"] == before["rating"]  # fixed on the players' scale
    assert all(c["before"] == c["after"] for c in changes)
    assert {c["after"]["value"] for c in changes} == {before["rating"]["value"]}
