"""Alembic environment: the URL comes from the caller (``basra migrate``) or DATABASE_URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from app.config import load_settings
from app.persistence.database import make_engine
from app.persistence.models import Base

config = context.config
target_metadata = Base.metadata


def database_url() -> str:
    url = config.attributes.get("database_url")
    return str(url) if url else str(load_settings()["DATABASE_URL"])


def run_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(database_url())
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


def _run(connection: Connection) -> None:
    # render_as_batch: SQLite cannot ALTER most things; batch mode copies the table, drops it
    # and renames the copy. With foreign keys enforced (as the app's engine sets them), the
    # drop deleted every seat and log entry of every game (ON DELETE CASCADE): they are off
    # while migrating. SQLite heeds this only outside a transaction, so before the first.
    if connection.dialect.name == "sqlite" and not connection.in_transaction():
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        connection.commit()
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
