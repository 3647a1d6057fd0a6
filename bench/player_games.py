"""A player's list of games (GET /players/{id}/games) as its history grows, on both databases.

Fills a fresh database of each kind (SQLite in a temporary file; PostgreSQL `basra_bench_pg_*`
at 127.0.0.1:5432, or BENCH_POSTGRES_URL's server, created here and dropped at the end) with
--games games of one player against the greedy bot, one in five of them active (a state stored
whole, as a move leaves it), written as the service writes a new game (``game_row``,
``seat_rows``). Then it reads pages of 20 entries, --reps times each, from the newest and from
the middle of the history:
  - ``entries``: the repository's read, ``SqlPlayerRepository.games``: the page with its games'
    scores and whose turn it is (read out of an active game's stored state) in one statement,
    then the seats of the page's games in a second;
  - ``entries, page only``: that first statement alone, without the turn: what the list read
    before its entries named their seats, scores and turn.
It prints the median and p99 of each (ms) and their ratio, and on PostgreSQL the plan of the
first statement (EXPLAIN ANALYZE).

Usage: nice -n 10 .venv/bin/python bench/player_games.py [--games 20000] [--reps 300]
Loopback only, bounded in time (the fill is the longest part: about a minute for 20,000 games).
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

from harness import percentile  # bench/harness.py
from sqlalchemy import create_engine, event, insert, select, text
from sqlalchemy.engine import make_url

from app.persistence import Database, SqlUnitOfWork
from app.persistence.game_list import older_than
from app.persistence.memory import MemoryUnitOfWork
from app.persistence.models import GAMES, SEATS
from app.persistence.schema import migrate_database
from app.persistence.statements import game_row, seat_rows
from app.services.creation import Player
from app.services.games import create_game

SERVER = os.environ.get(
    "BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
PAGE = 20
BATCH = 1000


def template(player_id: str) -> Any:
    """A game of the player against the greedy bot, dealt: the rows every copy is made of."""
    uow = MemoryUnitOfWork()
    seats = [Player(name="Amira", player_id=player_id), Player(bot="greedy")]
    created = create_game(uow, seats)
    game = uow.games.get(created.game_id)
    assert game is not None
    return game


def fill(database: Database, player_id: str, games: int) -> None:
    game = template(player_id)
    row, seats = game_row(game), seat_rows(game)
    start = game.created_at
    with database.engine.begin() as connection:
        for first in range(0, games, BATCH):
            game_rows, seat_batch = [], []
            for number in range(first, min(first + BATCH, games)):
                game_id = secrets.token_hex(8)
                at = start - timedelta(seconds=games - number)
                status = "active" if number % 5 == 0 else "finished"
                game_rows.append(row | {"id": game_id, "created_at": at, "updated_at": at,
                                        "status": status})  # fmt: skip
                seat_batch += [seat | {"game_id": game_id, "created_at": at} for seat in seats]
            connection.execute(insert(GAMES), game_rows)
            connection.execute(insert(SEATS), seat_batch)
    with database.engine.connect() as connection:  # the statistics autovacuum would gather
        connection.execute(text("ANALYZE"))
        connection.commit()


def page_only(database: Database, player_id: str, before: Any) -> list[Any]:
    """The list's page as it was read before its entries named seats, scores and turn."""
    columns = (SEATS.c.game_id, SEATS.c.seat, SEATS.c.created_at, GAMES.c.status,
               GAMES.c.winner, GAMES.c.rated, GAMES.c.ratings)  # fmt: skip
    query = select(*columns).join(GAMES, GAMES.c.id == SEATS.c.game_id)
    query = query.where(SEATS.c.player_id == player_id)
    if before is not None:
        query = query.where(older_than(before, SEATS.c.created_at, SEATS.c.game_id))
    query = query.order_by(SEATS.c.created_at.desc(), SEATS.c.game_id.desc()).limit(PAGE)
    with SqlUnitOfWork(database) as uow:
        return list(uow.games.connection.execute(query))  # type: ignore[attr-defined]


def entries(database: Database, player_id: str, before: Any) -> list[Any]:
    with SqlUnitOfWork(database) as uow:
        return uow.players.games(player_id, None, PAGE, before)


def timed(read: Callable[[], list[Any]], reps: int) -> list[float]:
    read()  # warm: the statement's plan, the pool's connection
    times = []
    for _ in range(reps):
        began = time.perf_counter()
        found = read()
        times.append((time.perf_counter() - began) * 1000)
        assert len(found) == PAGE
    return times


def measure(backend: str, url: str, games: int, reps: int) -> None:
    migrate_database(url)
    database = Database(url)
    player_id = secrets.token_hex(8)
    began = time.perf_counter()
    fill(database, player_id, games)
    print(f"\n{backend}: {games} games of one player filled in {time.perf_counter() - began:.0f} s")
    with SqlUnitOfWork(database) as uow:
        middle = uow.players.games(player_id, None, games // 2, None)[-1]
    for where, before in (("newest", None), ("middle", (middle.created_at, middle.game_id))):
        new = timed(partial(entries, database, player_id, before), reps)
        old = timed(partial(page_only, database, player_id, before), reps)
        for label, values in (("entries", new), ("entries, page only", old)):
            print(f"  {where:6} {label:20} p50 {statistics.median(values):6.3f} ms"
                  f"  p99 {percentile(values, 0.99):6.3f} ms")  # fmt: skip
        ratio = statistics.median(new) / statistics.median(old)
        print(f"  {where:6} ratio of the medians: {ratio:.2f}")
    if backend == "postgresql":
        explain(database, player_id)
    database.dispose()


def explain(database: Database, player_id: str) -> None:
    """EXPLAIN ANALYZE of each statement the list sends, with the values it sent."""
    sent: list[tuple[str, Any]] = []

    def keep(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        sent.append((statement, parameters))

    event.listen(database.engine, "before_cursor_execute", keep)
    try:
        entries(database, player_id, None)
    finally:
        event.remove(database.engine, "before_cursor_execute", keep)
    with database.engine.connect() as connection:
        for statement, parameters in sent:
            plan = connection.exec_driver_sql(f"EXPLAIN ANALYZE {statement}", parameters)
            print("  plan:\n    " + "\n    ".join(plan.scalars().all()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--reps", type=int, default=300)
    args = parser.parse_args()
    for backend, url in _each(args.games):
        measure(backend, url, args.games, args.reps)
    return 0


def _each(games: int) -> Iterator[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as folder:
        yield "sqlite", f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
    name = f"basra_bench_pg_{secrets.token_hex(4)}"
    admin = create_engine(SERVER, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield "postgresql", make_url(SERVER).set(database=name).render_as_string(False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


if __name__ == "__main__":
    raise SystemExit(main())
