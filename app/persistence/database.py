"""The SQLAlchemy engine and sessions, set up the same way for SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from app.config import sqlite_path


def make_engine(database_url: str, **options: Any) -> Engine:
    # A failed statement's parameters (snapshots hold every hand) stay out of errors and logs.
    options.setdefault("hide_parameters", True)
    if database_url.startswith("sqlite"):
        path = sqlite_path(database_url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(database_url, **options)
        event.listen(engine, "connect", _tune_sqlite)
        return engine
    options.setdefault("pool_pre_ping", True)
    options.setdefault("pool_size", 5)
    options.setdefault("max_overflow", 5)
    return create_engine(database_url, **options)


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

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    def session(self) -> Session:
        return self.sessions()

    def dispose(self) -> None:
        self.engine.dispose()
