"""GET /games: pages of games, newest first, filtered by status, with a cursor."""

from __future__ import annotations

import base64
import json
from datetime import datetime

import pytest

from .helpers import create, human_vs_bot
from .support import BOTS_ONLY, assert_problem, finished_bot_game

SUMMARY_FIELDS = {"id", "status", "version", "created_at", "seats", "scores", "winner"}


def page(client, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    response = client.get(f"/games?{query}")
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def walk(client, limit, max_pages=200, **params):
    """Every game, page by page, following next_cursor."""
    seen, cursor = [], None
    for _ in range(max_pages):
        body = page(client, limit=limit, **params, **({"cursor": cursor} if cursor else {}))
        assert len(body["games"]) <= limit
        seen += body["games"]
        cursor = body["next_cursor"]
        if cursor is None:
            return seen
    raise AssertionError("the pages never ended")


def created(summary):
    return datetime.fromisoformat(summary["created_at"].replace("Z", "+00:00"))


@pytest.mark.both_databases
def test_the_newest_games_come_first(client):
    ids = [human_vs_bot(client)[0]["id"] for _ in range(3)]
    body = page(client, limit=3)
    assert [g["id"] for g in body["games"]] == ids[::-1]


def test_a_summary_names_the_game_its_seats_scores_and_winner(client):
    game = finished_bot_game(client)
    (summary,) = page(client, limit=1)["games"]
    assert set(summary) >= SUMMARY_FIELDS
    assert summary["id"] == game["id"] and summary["status"] == "finished"
    assert summary["version"] == game["state"]["version"]
    assert summary["winner"] == game["state"]["winner"]
    assert summary["scores"] == [side["score"] for side in game["state"]["sides"]]
    assert [s["bot"] for s in summary["seats"]] == ["random", "greedy"]
    created(summary)  # an ISO 8601 time


@pytest.mark.both_databases
@pytest.mark.parametrize("status", ["waiting", "active", "finished"])
def test_the_status_filter_lists_only_games_in_that_status(client, status):
    games = {
        "waiting": create(client, [{"name": "Amira"}, {"open": True}], public=True),
        "active": human_vs_bot(client)[0],
        "finished": finished_bot_game(client),
    }
    listed = page(client, status=status, limit=100)["games"]
    assert listed and all(g["status"] == status for g in listed)
    assert listed[0]["id"] == games[status]["id"]
    others = {g["id"] for s, g in games.items() if s != status}
    assert not others & {g["id"] for g in listed}


@pytest.mark.both_databases
def test_the_limit_caps_the_page(client):
    for _ in range(3):
        create(client, BOTS_ONLY)
    body = page(client, limit=2)
    assert len(body["games"]) == 2 and body["next_cursor"]


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "limit=x", "status=over"])
def test_a_bad_limit_or_status_is_refused(client, query):
    assert_problem(client.get(f"/games?{query}"), 422, "invalid_request")


@pytest.mark.both_databases
def test_paging_with_the_cursor_lists_every_game_once_newest_first(client):
    for _ in range(5):
        create(client, BOTS_ONLY)
    walked = walk(client, limit=9)
    ids = [g["id"] for g in walked]
    assert len(ids) == len(set(ids)) >= 5
    times = [created(g) for g in walked]
    assert times == sorted(times, reverse=True)
    first = page(client, limit=100)["games"]
    assert ids[: len(first)] == [g["id"] for g in first]


@pytest.mark.both_databases
def test_paging_a_status_filter_stays_inside_that_status(client):
    for _ in range(4):
        finished_bot_game(client)
    walked = walk(client, limit=3, status="finished")
    assert all(g["status"] == "finished" for g in walked)
    ids = [g["id"] for g in walked]
    assert len(ids) == len(set(ids)) >= 4


@pytest.mark.both_databases
def test_a_game_created_while_paging_does_not_shift_the_next_page(client):
    ids = [create(client, BOTS_ONLY)["id"] for _ in range(4)]
    first = page(client, limit=2)
    newcomer = create(client, BOTS_ONLY)["id"]
    second = page(client, limit=2, cursor=first["next_cursor"])
    assert [g["id"] for g in first["games"]] == ids[:1:-1]
    assert [g["id"] for g in second["games"]] == ids[1::-1]
    assert newcomer not in {g["id"] for g in second["games"]}


def b64(text):
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    ["not-a-cursor!!", b64("garbage"), b64('["yesterday", "abc"]'), b64("[1, 2]"), b64("null"),
     b64(json.dumps({"a": 1}))],
    ids=["not-base64", "not-json", "not-a-time", "numbers", "null", "object"],
)  # fmt: skip
def test_a_cursor_the_server_did_not_give_is_refused(client, cursor):
    assert_problem(client.get(f"/games?cursor={cursor}"), 422, "invalid_request")


NOW = "2026-12-05T12:00:00.123456+00:00"
HOSTILE = {
    "lone surrogate id": b64(f'["{NOW}", "\\ud800"]'),
    "NUL id": b64(f'["{NOW}", "\\u0000"]'),
    "id of another alphabet": b64(json.dumps([NOW, "a b' OR 1=1"])),
    "not a time": b64(json.dumps(["2026-12-05T25:00:00", "0123456789abcdef"])),
    "written otherwise": b64(json.dumps([NOW, "0123456789abcdef"], indent=1)),
    "padded": b64(json.dumps([NOW, "0123456789abcdef"])) + "==",
    "invalid UTF-8": "%ED%A0%80",
    "too long": "A" * 400,
}


@pytest.mark.both_databases
@pytest.mark.parametrize("cursor", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_hostile_cursor_is_a_422_on_every_list_never_a_500(client, cursor):
    player = client.post("/players", json={"name": "Amira"}).get_json()
    for url in ("/games", f"/players/{player['id']}/games"):
        assert_problem(client.get(f"{url}?cursor={cursor}"), 422, "invalid_request")
