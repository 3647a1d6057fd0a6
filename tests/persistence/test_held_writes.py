"""Writes held back until the commit (PostgreSQL's repository, app/persistence/
postgres.py): a lost race leaves nothing of its batch behind, not even its notice, and a
use case reads its own writes before it commits. Run on both backends: SQLite's plain
repository must behave the same way."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from app.live.notices import parse_notice
from app.persistence import Database, SqlUnitOfWork
from app.persistence.notifications import CHANNEL, libpq_url
from app.persistence.postgres import PostgresGameRepository
from app.persistence.sqlite import SqliteGameRepository
from app.services import audit, games
from app.services.creation import Player
from app.services.errors import ConcurrentUpdate
from app.services.model import StoredResult

from .test_unit_of_work import a_move_to_save, a_won_race, loaded, play_first_card, two_humans


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database(database_url)
    yield db
    db.dispose()


def test_each_database_has_its_own_move_path(database, backend):
    kind = {"postgresql": PostgresGameRepository, "sqlite": SqliteGameRepository}[backend]
    with SqlUnitOfWork(database) as uow:
        assert type(uow.games) is kind


def test_a_lost_race_keeps_nothing_of_its_batch(database, backend):
    first, second = a_won_race(database)
    game_id = first.id
    listener = _listening(database, backend)
    with pytest.raises(ConcurrentUpdate), SqlUnitOfWork(database) as uow:
        uow.games.save(second)  # stale: loaded at the version ``first`` moved on from
        uow.games.store_result(game_id, 0, "key-1", StoredResult("hash", {"moves": []}))
        uow.commit()
    with SqlUnitOfWork(database) as uow:
        assert uow.games.stored_result(game_id, 0, "key-1") is None
        stored = uow.games.get(game_id)
    assert stored is not None and stored.version == first.version
    assert len(audit.moves(SqlUnitOfWork(database), game_id)) == 1
    assert audit.verify(SqlUnitOfWork(database), game_id)["ok"]
    if listener is not None:
        notices = _notices_of(listener, game_id, timeout=0.5)
        assert notices == [], "a batch that did not commit announced a version"
        listener.close()


def test_the_version_check_alone_refuses_a_stale_save(database):
    """A save that appends nothing (so no log key can collide) is still refused when the
    game moved on since it was loaded: the version in the UPDATE is the guard."""
    game_id = two_humans(database)
    first, stale = loaded(database, game_id), loaded(database, game_id)
    play_first_card(first)
    with SqlUnitOfWork(database) as uow:
        uow.games.save(first)
        uow.commit()
    stale.deadline = first.created_at
    with pytest.raises(ConcurrentUpdate), SqlUnitOfWork(database) as uow:
        uow.games.save(stale)
        uow.commit()
    assert loaded(database, game_id).deadline == first.deadline


def test_the_winner_of_a_race_is_announced_once(database, backend):
    if backend != "postgresql":
        pytest.skip("SQLite has no NOTIFY; its streams poll")
    game = a_move_to_save(database)
    game_id = game.id
    listener = _listening(database, backend)
    assert listener is not None
    with SqlUnitOfWork(database) as uow:
        uow.games.save(game)
        uow.commit()
    notices = _notices_of(listener, game_id, timeout=1)
    listener.close()
    assert len(notices) == 1
    notice = parse_notice(notices[0])
    assert notice is not None and notice.version == game.version
    # It carries the move's public record, so that no listener need read the log for it.
    assert notice.page is not None and notice.after == game.loaded_version
    assert [record.event for record in notice.page.records] == ["move"]


def test_a_use_case_reads_its_own_writes_before_it_commits(database):
    game = a_move_to_save(database)
    game_id, before = game.id, game.loaded_version
    with SqlUnitOfWork(database) as uow:
        uow.games.save(game)
        uow.games.store_result(game_id, 0, "key-2", StoredResult("hash", {"moves": []}))
        assert [e.seq for e in uow.games.events(game_id, after=before)] == list(
            range(before + 1, game.version + 1)
        )
        assert uow.games.stored_result(game_id, 0, "key-2") == StoredResult("hash", {"moves": []})
        progress = uow.games.progress(game_id)
        assert progress is not None and progress.version == game.version
        # Reading sent the held writes; committing after it still keeps them all, once.
        uow.commit()
    assert loaded(database, game_id).version == game.version
    assert len(audit.moves(SqlUnitOfWork(database), game_id)) == 1


def test_a_new_game_is_written_whole_or_not_at_all(database):
    uow = SqlUnitOfWork(database)
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    game = loaded(database, created.game_id)
    assert [seat.bot for seat in game.seats] == [None, "greedy"]
    assert audit.verify(SqlUnitOfWork(database), created.game_id)["ok"]


def _listening(database: Database, backend: str) -> psycopg.Connection | None:
    if backend != "postgresql":
        return None
    connection = psycopg.connect(libpq_url(database.url), autocommit=True)
    connection.execute(f"LISTEN {CHANNEL}")
    return connection


def _notices_of(listener: psycopg.Connection, game_id: str, timeout: float) -> list[str]:
    """This game's notices (the database is shared with other tests' background work)."""
    notices = [n.payload for n in listener.notifies(timeout=timeout, stop_after=100)]
    return [payload for payload in notices if payload.startswith(f"{game_id}:")]


def test_a_rollback_forgets_writes_not_sent_yet(database):
    """A use case that rolls back and goes on in the same unit of work (``load_settled``
    does) must not have the writes it gave up sent with its next statement or commit."""
    game = a_move_to_save(database)
    game_id, before = game.id, game.loaded_version
    with SqlUnitOfWork(database) as uow:
        uow.games.save(game)
        uow.rollback()
        assert uow.games.progress(game_id).version == before  # type: ignore[union-attr]
        uow.commit()
    assert loaded(database, game_id).version == before
    assert audit.moves(SqlUnitOfWork(database), game_id) == []
