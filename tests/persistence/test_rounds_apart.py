"""A game's finished rounds live in a column of their own (games.rounds), apart from the
snapshot, written only when a round ends and handed to the view as stored, on each database
(docs/performance.md: a move late in a long match cost 1.1-1.2 times an early one)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from sqlalchemy import select, update

from app.persistence import Database, SqlUnitOfWork
from app.persistence.models import GAMES
from app.persistence.statements import json_bytes
from app.services import audit, games, playing
from app.services.creation import Player

from .test_unit_of_work import loaded


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


class Match:
    """A human (seat 0) against the greedy bot, to 10,000 points: many rounds."""

    def __init__(self, database: Database) -> None:
        self.database = database
        created = games.create_game(
            SqlUnitOfWork(database),
            [Player(name="Amira"), Player(bot="greedy")],
            rules={"target_score": 10000},
        )
        self.id, self.token = created.game_id, created.seats[0]["token"]
        self.view: dict[str, Any] = created.state

    def move(self, key: str | None = None) -> playing.Played:
        command = playing.PlayCard(self.id, self.token, self.view["hand"][0], idempotency_key=key)
        played = playing.play_card(SqlUnitOfWork(self.database), command)
        self.view = played.state
        return played

    def resign(self) -> None:
        playing.resign_game(SqlUnitOfWork(self.database), self.id, self.token)

    def to_round(self, number: int) -> None:
        while self.view["round"] < number:
            self.move()

    def stored(self) -> tuple[dict[str, Any], str]:
        """The snapshot and the rounds as the games table holds them."""
        with self.database.engine.connect() as connection:
            query = select(GAMES.c.snapshot, GAMES.c.rounds).where(GAMES.c.id == self.id)
            snapshot, rounds = connection.execute(query).one()
        return snapshot, rounds

    def store_rounds(self, text: str) -> None:
        with self.database.engine.begin() as connection:
            connection.execute(update(GAMES).where(GAMES.c.id == self.id).values(rounds=text))


def encoded(value: Any) -> Any:
    """What a client reads of ``value``: encoded as the server encodes it, then parsed."""
    return orjson.loads(json_bytes(value))


def test_the_rounds_are_kept_apart_from_the_snapshot_and_replay_to_the_same(database):
    match = Match(database)
    match.to_round(4)
    snapshot, rounds = match.stored()
    assert "rounds" not in snapshot
    assert len(json.loads(rounds)) == 3
    assert json.loads(rounds) == encoded(match.view["rounds"])
    replayed = [result.to_dict() for result in loaded(database, match.id).state.rounds]
    assert replayed == json.loads(rounds)
    assert audit.verify(SqlUnitOfWork(database), match.id)["ok"]


def test_the_rounds_are_written_only_when_a_round_ends(database):
    match = Match(database)
    match.to_round(3)
    _, compact = match.stored()
    # The same rounds, written another way: a save that rewrote them would write them compact.
    spaced = json.dumps(json.loads(compact))
    assert spaced != compact
    match.store_rounds(spaced)

    before = len(match.view["rounds"])
    match.move()
    while len(match.view["rounds"]) == before:
        assert match.stored()[1] == spaced, "a move that ended no round wrote the rounds"
        assert encoded(match.view)["rounds"] == json.loads(compact)
        match.move()
    _, written = match.stored()
    assert written != spaced and json.loads(written)[:before] == json.loads(compact)
    assert len(json.loads(written)) == before + 1
    assert audit.verify(SqlUnitOfWork(database), match.id)["ok"]


def test_a_keyed_move_late_in_a_match_is_answered_again_exactly(database):
    match = Match(database)
    match.to_round(2)
    first = match.move(key="late-key")
    again = playing.play_card(
        SqlUnitOfWork(database),
        playing.PlayCard(match.id, match.token, first.moves[0]["card"], idempotency_key="late-key"),
    )
    assert again.replayed
    assert encoded(again.to_dict()) == encoded(first.to_dict())
    assert len(encoded(first.to_dict())["state"]["rounds"]) == 1
