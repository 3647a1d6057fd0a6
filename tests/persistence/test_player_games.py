"""A player's list of games on both databases: each entry with its game's seats, scores and
whose turn it is, read in the same two statements however many games the page holds."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event

from app.persistence import Database, SqlUnitOfWork
from app.services import games, playing
from app.services.creation import Player


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


def games_of(database: Database, player_id: str, count: int) -> list[str]:
    """``count`` games of the player (seat 0) against the greedy bot; the first resigned."""
    made = []
    for _ in range(count):
        seats = [Player(name="Amira", player_id=player_id), Player(bot="greedy")]
        created = games.create_game(SqlUnitOfWork(database), seats)
        made.append(created)
    token = made[0].seats[0]["token"]
    playing.resign_game(SqlUnitOfWork(database), made[0].game_id, token)
    return [created.game_id for created in made]


def listed(database: Database, player_id: str) -> tuple[list[Any], int]:
    """The player's games, and how many statements reading them took."""
    statements = []

    def count(*_args: Any) -> None:
        statements.append(1)

    event.listen(database.engine, "before_cursor_execute", count)
    try:
        with SqlUnitOfWork(database) as uow:
            found = uow.players.games(player_id, None, 100, None)
    finally:
        event.remove(database.engine, "before_cursor_execute", count)
    return found, len(statements)


def test_a_page_of_games_is_two_statements_however_many_games_it_holds(database):
    few, many = secrets.token_hex(8), secrets.token_hex(8)
    games_of(database, few, 1)
    made = games_of(database, many, 6)
    _, one_game = listed(database, few)
    found, six_games = listed(database, many)
    assert one_game == six_games == 2
    assert [played.game_id for played in found] == made[::-1]
    resigned = found[-1]
    assert resigned.status == "finished" and resigned.turn is None
    seats = [(s.seat, s.name, s.bot) for s in resigned.seats]
    assert seats == [(0, "Amira", None), (1, "Greedy bot", "greedy")]
    playing_now = found[0]
    assert playing_now.status == "active" and playing_now.turn in (0, 1)
    assert playing_now.scores == [0, 0] and playing_now.updated_at.tzinfo is not None
