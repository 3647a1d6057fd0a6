"""A move played through the use case on each database: loaded with no lock, written by one
statement that carries the move, its log entries and its stored answer together (on
PostgreSQL: two messages to the server, app/persistence/postgres.py), and retried with the
lock when it lost its race. Another request's work is made to land between a move's load and
its write, where a race would put it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Self

import pytest

from app.persistence import Database, SqlUnitOfWork
from app.services import audit, games, playing
from app.services.creation import Player
from app.services.game_images import GameImages, ImagedUnitOfWork
from app.services.model import StoredResult

from .test_unit_of_work import loaded


class Intruded(SqlUnitOfWork):
    """A unit of work that runs ``intrusion`` once, right after the first game it loads, and
    notes whether each load was for update."""

    def __init__(self, database: Database, intrusion: Callable[[], None] | None = None) -> None:
        super().__init__(database)
        self.intrusion = intrusion
        self.loads: list[bool] = []

    def __enter__(self) -> Self:
        super().__enter__()
        get = self.games.get

        def noted(game_id: str, for_update: bool = False, idempotency_key: str | None = None
                  ) -> Any:  # fmt: skip
            game = get(game_id, for_update=for_update, idempotency_key=idempotency_key)
            self.loads.append(for_update)
            intrusion, self.intrusion = self.intrusion, None
            if intrusion is not None:
                intrusion()
            return game

        self.games.get = noted  # type: ignore[method-assign]
        return self


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url, pool_size=1)  # the same connection for every unit of work
    yield db
    db.dispose()


@pytest.fixture
def other_process(database_url: str) -> Iterator[Database]:
    """Another server process on the same database: its own pool."""
    db = Database(database_url)
    yield db
    db.dispose()


def against_a_bot(database: Database) -> tuple[str, str]:
    created = games.create_game(
        SqlUnitOfWork(database), [Player(name="Amira"), Player(bot="greedy")]
    )
    token = created.seats[0]["token"]
    return created.game_id, token


def hand(database: Database, game_id: str) -> list[str]:
    return [str(card) for card in loaded(database, game_id).state.hands[0]]


def play(uow: SqlUnitOfWork, game_id: str, token: str, card: str, key: str | None = None
         ) -> playing.Played:  # fmt: skip
    return playing.play_card(uow, playing.PlayCard(game_id, token, card, idempotency_key=key))


def test_a_keyed_move_and_its_answer_are_written_together_or_not_at_all(database, other_process):
    """The move's write cannot keep its answer (another request took the key after the move
    was loaded): then the move is not kept either, and the retry answers the stored answer."""
    game_id, token = against_a_bot(database)
    before = loaded(database, game_id).version
    theirs = StoredResult(playing._fingerprint({"card": hand(database, game_id)[0]}),
                          {"moves": [], "state": {"theirs": True}})  # fmt: skip

    def answer_first() -> None:
        with SqlUnitOfWork(other_process) as uow:
            uow.games.store_result(game_id, 0, "key-1", theirs)
            uow.commit()

    uow = Intruded(database, answer_first)
    played = play(uow, game_id, token, hand(database, game_id)[0], key="key-1")

    assert played.replayed and played.state == {"theirs": True}
    assert loaded(database, game_id).version == before, "a move was kept without its answer"
    assert audit.moves(SqlUnitOfWork(database), game_id) == []


def test_a_move_that_lost_its_race_is_retried_under_the_lock_and_applies(database, other_process):
    game_id, token = against_a_bot(database)
    first, second = hand(database, game_id)[:2]
    uow = Intruded(database, lambda: play(SqlUnitOfWork(other_process), game_id, token, first))

    played = play(uow, game_id, token, second, key="key-2")

    assert uow.loads == [False, True]  # without the lock, then (after the lost race) with it
    assert not played.replayed and played.moves[0]["card"] == second
    cards = [move["card"] for move in audit.moves(SqlUnitOfWork(database), game_id)]
    assert cards[0] == first and second in cards
    assert audit.verify(SqlUnitOfWork(database), game_id)["ok"]
    again = play(SqlUnitOfWork(database), game_id, token, second, key="key-2")
    assert again.replayed and again.to_dict() == played.to_dict()


def test_a_move_is_two_messages_to_postgresql_with_or_without_a_key(database, round_trips):
    game_id, token = against_a_bot(database)
    cards = hand(database, game_id)
    counts = []
    plays = [(cards[0], None), (cards[1], "key-3"), (cards[2], None), (cards[3], "key-4")]
    for card, key in [*plays, (cards[3], "key-4")]:
        round_trips.clear()
        play(SqlUnitOfWork(database), game_id, token, card, key)
        counts.append(round_trips["waits"])
    # A move is the load and the write, and a retry of an answered key the load alone. The
    # first send of each form on this connection also prepares it, inside the same wait (one
    # round trip more, not counted here: test_prepared_statements.py sees it on the server).
    assert counts == [2, 2, 2, 2, 1]
    assert len(audit.moves(SqlUnitOfWork(database), game_id)) == 8  # four cards, four replies


def test_a_move_from_the_image_of_its_game_is_one_message_with_or_without_a_key(
    database, round_trips
):
    images = GameImages(10)
    created = games.create_game(
        ImagedUnitOfWork(SqlUnitOfWork(database), images),
        [Player(name="Amira"), Player(bot="greedy")],
    )
    game_id, token = created.game_id, created.seats[0]["token"]
    cards = hand(database, game_id)
    counts = []
    for card, key in [(cards[0], None), (cards[1], "key-1"), (cards[2], None), (cards[3], "key-2")]:
        round_trips.clear()
        playing.play_card(ImagedUnitOfWork(SqlUnitOfWork(database), images, serve=True),
                        playing.PlayCard(game_id, token, card, idempotency_key=key))  # fmt: skip
        counts.append(round_trips["waits"])
    # Only the save: the game's image stands for its load.
    assert counts == [1, 1, 1, 1]
    assert len(audit.moves(SqlUnitOfWork(database), game_id)) == 8  # four cards, four replies


def test_the_connection_goes_back_to_the_pool_out_of_autocommit(database, other_process, backend):
    if backend != "postgresql":
        pytest.skip("autocommit is PostgreSQL's move path")
    game_id, token = against_a_bot(database)
    cards = hand(database, game_id)
    play(SqlUnitOfWork(database), game_id, token, cards[0], key="key-4")  # a move
    play(SqlUnitOfWork(database), game_id, token, cards[0], key="key-4")  # its retry
    lost = Intruded(database, lambda: play(SqlUnitOfWork(other_process), game_id, token, cards[1]))
    play(lost, game_id, token, cards[2])  # a lost race, retried
    with database.engine.connect() as connection:
        driver = connection.connection.driver_connection
        assert driver is not None and driver.autocommit is False
