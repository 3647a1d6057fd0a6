"""SQLite writers queue at a gate (app/persistence/write_gate.py): one holder at a time across
threads and processes, taken before a unit of work's first write and given back whatever way the
unit of work ends: a commit, a lost race, an error. A gate left held would stop every writer of
the file, so each way out is tried here, with a second writer that must get through in time."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.persistence import Database, SqlUnitOfWork
from app.persistence.write_gate import WriteGate
from app.services.errors import ConcurrentUpdate

from .test_unit_of_work import a_move_to_save, a_won_race, loaded


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    from app.persistence.schema import migrate_database

    url = f"sqlite:///{tmp_path / 'basra.sqlite3'}"
    migrate_database(url)
    db = Database(url)
    yield db
    db.dispose()


def _hold(path: str, entered: multiprocessing.Event, seconds: float) -> None:  # type: ignore[type-arg]
    gate = WriteGate(Path(path))
    gate.enter()
    entered.set()
    time.sleep(seconds)
    gate.leave()


def test_a_second_process_waits_until_the_first_leaves(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    entered = context.Event()
    holder = context.Process(target=_hold, args=(str(tmp_path / "db"), entered, 0.6))
    holder.start()
    try:
        assert entered.wait(30), "the other process never entered"
        gate = WriteGate(tmp_path / "db")
        started = time.monotonic()
        gate.enter()
        waited = time.monotonic() - started
        gate.leave()
    finally:
        holder.join(30)
    assert waited > 0.3, f"entered after {waited:.3f} s while another process held the gate"


def test_threads_of_one_process_take_turns(tmp_path: Path) -> None:
    gate, inside, most = WriteGate(tmp_path / "db"), [0], [0]

    def writer() -> None:
        for _ in range(50):
            gate.enter()
            inside[0] += 1
            most[0] = max(most[0], inside[0])
            time.sleep(0.0005)
            inside[0] -= 1
            gate.leave()

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert most[0] == 1


def test_a_thread_may_enter_again_before_it_leaves(tmp_path: Path) -> None:
    gate = WriteGate(tmp_path / "db")
    done = threading.Event()

    def nested() -> None:
        gate.enter()
        gate.enter()
        gate.leave()
        gate.leave()
        done.set()

    threading.Thread(target=nested, daemon=True).start()
    assert done.wait(5), "a thread waited for itself"
    assert _another_thread_gets_through(gate)


def _another_thread_gets_through(gate: WriteGate, timeout: float = 5.0) -> bool:
    through = threading.Event()

    def other() -> None:
        gate.enter()
        gate.leave()
        through.set()

    threading.Thread(target=other, daemon=True).start()
    return through.wait(timeout)


def _free(database: Database) -> bool:
    assert database.write_gate is not None
    return _another_thread_gets_through(database.write_gate)


def test_a_committed_move_gives_the_gate_back(database: Database) -> None:
    game = a_move_to_save(database)
    with SqlUnitOfWork(database) as uow:
        uow.games.save(game)
        uow.commit()
        assert _free(database), "held after the commit, while the answer is built"
    assert loaded(database, game.id).version == game.version


def test_a_lost_race_gives_the_gate_back(database: Database) -> None:
    _, stale = a_won_race(database)
    with pytest.raises(ConcurrentUpdate), SqlUnitOfWork(database) as uow:
        uow.games.save(stale)
    assert _free(database)


def test_an_error_between_the_write_and_the_commit_gives_the_gate_back(
    database: Database,
) -> None:
    game = a_move_to_save(database)
    with pytest.raises(RuntimeError), SqlUnitOfWork(database) as uow:
        uow.games.save(game)
        raise RuntimeError("a bug after the write")
    assert _free(database)
    assert loaded(database, game.id).version == game.loaded_version, "the write was kept"


def test_a_rollback_gives_the_gate_back(database: Database) -> None:
    game = a_move_to_save(database)
    with SqlUnitOfWork(database) as uow:
        uow.games.save(game)
        uow.rollback()
        assert _free(database)
    assert loaded(database, game.id).version == game.loaded_version


def test_an_sqlite_file_has_a_gate_and_memory_has_none(database: Database) -> None:
    assert database.write_gate is not None
    assert database.write_gate.path.name == "basra.sqlite3.write-gate"
    in_memory = Database("sqlite://")
    assert in_memory.write_gate is None
    in_memory.dispose()
