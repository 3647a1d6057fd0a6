"""A move's first answer, kept for the retries of its Idempotency-Key as one deflated value
(app/persistence/stored_answers.py): a whole match's answers in a few KB on each database,
every retry answered with the first answer byte for byte, and a changed value refused rather
than read as some other answer."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from app.persistence import Database, SqlUnitOfWork
from app.persistence.models import IDEMPOTENT
from app.persistence.statements import json_bytes
from app.persistence.stored_answers import UnreadableAnswer, packed, unpacked
from app.services import creation, games
from app.services.creation import Player
from app.services.playing import PlayCard, play_card

MATCH_LIMIT = 32 * 1024  # bytes of stored answers a finished match may leave


@pytest.fixture(scope="module")
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


@pytest.fixture(scope="module")
def match(database: Database) -> tuple[str, list[tuple[PlayCard, bytes]]]:
    """A human playing the first card of its hand against the greedy bot, every move sent with
    a key of its own, to 101 in six rounds (most matches take three to five): the game's id,
    and each move's command with its answer as the API encodes it. The server's seed is fixed,
    so the deals are the same on every run."""
    seed = hashlib.sha256(b"long match 12").digest()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(creation, "new_server_seed", lambda: seed)
        created = games.create_game(
            SqlUnitOfWork(database), [Player(name="Amira", seed="x"), Player(bot="greedy")]
        )
    token, view = created.seats[0]["token"], created.state
    sent: list[tuple[PlayCard, bytes]] = []
    for number in range(1000):
        if view["status"] != "active":
            return created.game_id, sent
        key = f"8c4e3a52-6f0d-4d55-9a0b-{number:012d}"  # as long as a browser's UUID
        command = PlayCard(created.game_id, token, view["hand"][0], idempotency_key=key)
        played = play_card(SqlUnitOfWork(database), command)
        sent.append((command, json_bytes(played.to_dict())))
        view = played.state
    raise AssertionError("the match did not end in 1,000 moves")


def test_a_finished_matchs_stored_answers_take_at_most_32_kib(database, match):
    game_id, sent = match
    with database.engine.connect() as connection:
        query = select(IDEMPOTENT.c.answer).where(IDEMPOTENT.c.game_id == game_id)
        values = [bytes(value) for (value,) in connection.execute(query)]
    assert len(values) == len(sent) == 144
    assert sum(map(len, values)) <= MATCH_LIMIT
    assert sum(map(len, values)) < sum(len(answer) for _, answer in sent) / 4


def test_every_retry_of_a_finished_match_gets_its_first_answer_byte_for_byte(database, match):
    _, sent = match
    for command, first in sent:
        again = play_card(SqlUnitOfWork(database), command)
        assert again.replayed
        assert json_bytes(again.to_dict()) == first


GAME = "c0ffee"
MOVE = {"n": 1, "round": 1, "seat": 0, "card": "9S", "captured": ["9D"], "basra": None}
ANSWER = {"moves": [MOVE], "state": {"id": GAME, "version": 3, "ratings": None}}


def test_an_answer_reads_back_as_the_same_document():
    assert json_bytes(unpacked(GAME, packed(GAME, ANSWER))) == json_bytes(ANSWER)


def test_an_answer_is_read_only_as_its_own_games():
    with pytest.raises(UnreadableAnswer):
        unpacked("0ff1ce", packed(GAME, ANSWER))


def test_a_changed_byte_is_refused_rather_than_read_as_another_answer():
    value = packed(GAME, ANSWER)
    for index in range(len(value)):  # zlib's checksum covers the stream
        changed = value[:index] + bytes([value[index] ^ 0x10]) + value[index + 1 :]
        with pytest.raises(UnreadableAnswer):
            unpacked(GAME, changed)


@pytest.mark.parametrize("value", [
    packed(GAME, ANSWER)[:-5],  # cut short
    packed(GAME, ANSWER) + b"more",
    bytes([99]) + packed(GAME, ANSWER)[1:],  # a format this code never wrote
    b"",
])  # fmt: skip
def test_a_value_that_is_not_a_whole_answer_is_refused(value):
    with pytest.raises(UnreadableAnswer):
        unpacked(GAME, value)
