"""What a finished match's stored Idempotency-Key answers take, and that a retry still gets the
first answer byte for byte.

Plays --matches matches to 101 of a human seat (playing the greedy bot's card) against the greedy
bot through the use cases (`playing.play_card`) on a PostgreSQL database of its own (created at
127.0.0.1:5432 and dropped at the end) and on an SQLite file, every move sent with a key of its
own (a UUID, as `crypto.randomUUID()` in a browser makes it). Every key is then sent again: the
answer must be the first one, encoded as the API encodes it (orjson), byte for byte. It prints
what a match's answers take: as the JSON the API wrote (what was stored until 0012), as stored
values, with their rows' keys and request hashes, and on PostgreSQL the whole table with its
indexes (`pg_total_relation_size` after `VACUUM FULL`).

Usage: .venv/bin/python bench/idempotent_answers.py [--matches 20] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import secrets
import statistics
import tempfile
import uuid

import psycopg
from harness import psql  # bench/harness.py
from sqlalchemy import text

from app.engine import observe
from app.engine.bots import choose_card
from app.persistence import Database, SqlUnitOfWork
from app.persistence.schema import migrate_database
from app.persistence.statements import json_bytes
from app.services.creation import Player
from app.services.games import create_game
from app.services.playing import PlayCard, play_card

TABLE = "idempotent_responses"
KIB = 1024


def play_match(database: Database, rng: random.Random) -> tuple[str, list[tuple[PlayCard, bytes]]]:
    """One match to its end: its id, and each move sent with the answer the API wrote."""
    created = create_game(SqlUnitOfWork(database), [Player(name="Amira"), Player(bot="greedy")])
    token, state = created.seats[0]["token"], created.state
    sent: list[tuple[PlayCard, bytes]] = []
    for _ in range(1_000):
        if state["status"] != "active":
            return created.game_id, sent
        uow = SqlUnitOfWork(database)
        with uow:
            game = uow.games.get(created.game_id)
        assert game is not None
        card = str(choose_card("greedy", observe(game.state, 0), rng))
        command = PlayCard(created.game_id, token, card, idempotency_key=str(uuid.uuid4()))
        played = play_card(SqlUnitOfWork(database), command)
        sent.append((command, json_bytes(played.to_dict())))
        state = played.state
    raise AssertionError("the match did not end in 1,000 moves")


def retried_alike(database: Database, sent: list[tuple[PlayCard, bytes]]) -> int:
    """How many retries got an answer other than the first, byte for byte (0 expected)."""
    differ = 0
    for command, first in sent:
        again = play_card(SqlUnitOfWork(database), command)
        differ += not again.replayed or json_bytes(again.to_dict()) != first
    return differ


class Figures:
    """One database's figures, each a list with one item a match."""

    def __init__(self) -> None:
        self.moves: list[int] = []
        self.json: list[int] = []  # the answers as the API wrote them (what was kept before)
        self.answers: list[int] = []  # the stored answers' values
        self.rows: list[int] = []  # with the rows' keys and request hashes
        self.differ = 0
        self.table = 0.0  # PostgreSQL: the table with its indexes, a match on average

    def line(self, name: str) -> str:
        answers, json = statistics.mean(self.answers), statistics.mean(self.json)
        a_move = answers / statistics.mean(self.moves)
        text = (
            f"{name}: stored answers {answers / KIB:.1f} KiB a match on average,"
            f" {max(self.answers) / KIB:.1f} KiB at most ({a_move:.0f} B a move; as JSON"
            f" {json / KIB:.1f} KiB, {json / answers:.1f} times more);"
            f" with keys and request hashes {statistics.mean(self.rows) / KIB:.1f} KiB"
        )
        if self.table:
            text += f"; the table with its indexes {self.table / KIB:.1f} KiB"
        return text + f"; retries answered otherwise than the first time: {self.differ}"


def measure(url: str, matches: int, seed: int) -> Figures:
    migrate_database(url)
    database = Database(url)
    rng, figures = random.Random(seed), Figures()
    query = f"SELECT key, request_hash, answer FROM {TABLE} WHERE game_id = :game_id"
    try:
        for _ in range(matches):
            game_id, sent = play_match(database, rng)
            figures.differ += retried_alike(database, sent)
            with database.engine.connect() as connection:
                rows = connection.execute(text(query), {"game_id": game_id}).all()
            figures.moves.append(len(sent))
            figures.json.append(sum(len(answer) for _, answer in sent))
            figures.answers.append(sum(len(answer) for _, _, answer in rows))
            figures.rows.append(
                sum(len(key) + len(digest) + len(answer) for key, digest, answer in rows)
            )
    finally:
        database.dispose()
    return figures


def table_bytes(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"VACUUM FULL {TABLE}")
        row = connection.execute(f"SELECT pg_total_relation_size('{TABLE}')").fetchone()
        assert row is not None
        return int(row[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    name = f"basra_bench_answers_{secrets.token_hex(4)}"
    psql(f'CREATE DATABASE "{name}"')
    try:
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        postgres = measure(url, args.matches, args.seed)
        postgres.table = table_bytes(url.replace("+psycopg", "")) / args.matches
    finally:
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    with tempfile.TemporaryDirectory() as folder:
        sqlite = measure(f"sqlite:///{folder}/answers.sqlite3", args.matches, args.seed)
    moves = postgres.moves + sqlite.moves
    print(
        f"{len(moves)} matches to 101 ({args.matches} on each database), {min(moves)} to"
        f" {max(moves)} moves, {statistics.mean(moves):.0f} on average; one answer a move"
    )
    print(postgres.line("PostgreSQL"))
    print(sqlite.line("SQLite"))
    return 1 if postgres.differ or sqlite.differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
