"""Analyses on both databases: one row a game, the lease taken by one worker at a time, the
result stored compressed, and the row gone with its game."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete

from app.persistence import Database, SqlUnitOfWork
from app.persistence.models import GAMES
from app.services import analysis, games
from app.services.creation import Player
from app.services.errors import ConcurrentUpdate
from app.services.model import DONE, RUNNING, AnalysisRecord

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(seconds=60)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


def analysis_row(database: Database) -> str:
    """A game with a running analysis nobody has taken up."""
    players = [Player(name="Amira"), Player(name="Badr")]
    game_id = games.create_game(SqlUnitOfWork(database), players).game_id
    with SqlUnitOfWork(database) as uow:
        uow.analyses.add(AnalysisRecord(game_id, RUNNING, 0, 48, NOW))
        uow.commit()
    return game_id


def test_an_analysis_is_made_once_and_reads_back_as_written(database: Database) -> None:
    game_id = analysis_row(database)
    with pytest.raises(ConcurrentUpdate), SqlUnitOfWork(database) as uow:
        uow.analyses.add(AnalysisRecord(game_id, RUNNING, 0, 48, NOW))
        uow.commit()
    with SqlUnitOfWork(database) as uow:
        assert uow.analyses.get(game_id) == AnalysisRecord(game_id, RUNNING, 0, 48, NOW)
        assert uow.analyses.get("nope") is None


def test_the_lease_goes_to_one_worker_and_only_it_stores_the_result(database: Database) -> None:
    game_id = analysis_row(database)
    with SqlUnitOfWork(database) as first, SqlUnitOfWork(database) as second:
        assert first.analyses.claim(game_id, "a", NOW, LATER)
        first.commit()
        assert not second.analyses.claim(game_id, "b", NOW, LATER)  # a holds it
        assert not second.analyses.finish(game_id, "b", b"x", NOW)
        second.commit()
    result = analysis.encoded([0, 1], [[1, 0, "5D", [["5D", 10.0], ["KS", -1.5]]]])
    with SqlUnitOfWork(database) as uow:
        assert uow.analyses.progress(game_id, "a", 1, LATER)
        assert uow.analyses.finish(game_id, "a", result, NOW)
        uow.commit()
    with SqlUnitOfWork(database) as uow:
        record = uow.analyses.get(game_id)
        assert record is not None and (record.status, record.owner) == (DONE, None)
        assert record.result == result and (record.done, record.claims) == (1, 1)
        assert not uow.analyses.claim(game_id, "b", LATER, LATER)  # done: nothing to take


def test_a_lease_that_ran_out_is_taken_over(database: Database) -> None:
    game_id = analysis_row(database)
    with SqlUnitOfWork(database) as uow:
        assert uow.analyses.claim(game_id, "a", NOW, LATER)
        uow.commit()
    with SqlUnitOfWork(database) as uow:
        assert uow.analyses.claim(game_id, "b", LATER, LATER + timedelta(seconds=60))
        assert not uow.analyses.progress(game_id, "a", 5, LATER)
        uow.commit()
        record = uow.analyses.get(game_id)
        assert record is not None and (record.owner, record.claims) == ("b", 2)


def test_an_analysis_goes_with_its_game(database: Database) -> None:
    game_id = analysis_row(database)
    with database.engine.begin() as connection:
        connection.execute(delete(GAMES).where(GAMES.c.id == game_id))
    with SqlUnitOfWork(database) as uow:
        assert uow.analyses.get(game_id) is None
