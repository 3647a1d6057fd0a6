"""The SQLAlchemy engine and sessions, set up the same way for SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from app.config import sqlite_path
from app.persistence.liveness import drop_dead_connections
from app.persistence.postgres import PostgresGameRepository
from app.persistence.repository import SqlGameRepository
from app.persistence.sqlite import SqliteGameRepository
from app.persistence.statements import json_bytes, json_text
from app.persistence.write_gate import WriteGate


def make_engine(database_url: str, **options: Any) -> Engine:
    # A failed statement's parameters (snapshots hold every hand) stay out of errors and logs.
    options.setdefault("hide_parameters", True)
    # Every move reads and writes a whole snapshot: orjson does both several times faster
    # than the standard library (docs/performance.md). The documents are the same JSON.
    options.setdefault("json_deserializer", orjson.loads)
    if database_url.startswith("sqlite"):
        path = sqlite_path(database_url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        options.setdefault("json_serializer", json_text)  # SQLite stores text, not bytes
        engine = create_engine(database_url, **options)
        event.listen(engine, "connect", _tune_sqlite)
        return engine
    # No pre-ping (a SELECT 1 round trip on every checkout): a poll of the socket finds the
    # connections a restarted server closed (liveness.py).
    options.setdefault("pool_pre_ping", False)
    options.setdefault("json_serializer", json_bytes)  # psycopg sends the bytes as they are
    options.setdefault("pool_size", 10)
    options.setdefault("max_overflow", 0)
    # The connection given back last is handed out first: after a burst has opened the whole
    # pool, the steady load keeps to a few connections (and PostgreSQL backends) that stay warm
    # in the processor's caches, where first-in-first-out cycled every request through all of
    # them (docs/matchmaking.md, "the moves alone are slower after the waves").
    options.setdefault("pool_use_lifo", True)
    engine = create_engine(database_url, **options)
    if not options["pool_pre_ping"]:
        drop_dead_connections(engine)
    return engine


def _tune_sqlite(dbapi_connection: Any, _record: Any) -> None:
    # SQLite ignores foreign keys unless asked, and without WAL a reader blocks a writer.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


class Database:
    """One engine and its session factory; the app holds exactly one."""

    def __init__(self, database_url: str, **options: Any) -> None:
        self.url = database_url
        self.engine = make_engine(database_url, **options)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        # An SQLite file's writers queue at a gate (write_gate.py); in memory there is one.
        path = sqlite_path(database_url)  # None for any other database
        self.write_gate = WriteGate(path) if path is not None else None

    def session(self) -> Session:
        return self.sessions()

    def repository(self) -> SqlGameRepository:
        """The games of one unit of work, with a move's statements sent by the driver itself:
        combined for PostgreSQL (postgres.py), as they are for SQLite (sqlite.py)."""
        if self.engine.dialect.name == "postgresql":
            return PostgresGameRepository(self.engine)
        if self.engine.dialect.name == "sqlite":
            return SqliteGameRepository(self.engine, self.write_gate)
        raise ValueError(
            f"games are stored in PostgreSQL or SQLite, not {self.engine.dialect.name}"
        )

    def dispose(self) -> None:
        self.engine.dispose()
