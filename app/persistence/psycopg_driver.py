"""What PostgreSQL's hot path (postgres.py) asks of a psycopg connection itself: whether a
transaction is open, one statement sent in autocommit, JSON parameters wrapped, and psycopg's
errors as the service's. Apart from the repository, which decides what is sent and when.

A statement sent with no transaction open is sent in psycopg's autocommit, set for that
statement alone (``autocommitted``): no BEGIN goes first.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.pq import TransactionStatus
from psycopg.types.json import Json

from app.services.errors import ConcurrentUpdate, Unavailable

_JSON_COLUMNS = ("snapshot", "rules", "custom_deck", "body", "ratings")

# What a lost race looks like from PostgreSQL: the save's version check (postgres_statements.py),
# a duplicate log step or idempotency key, a lock that could not be had.
_LOST_RACE = (
    pg_errors.DivisionByZero,
    pg_errors.UniqueViolation,
    pg_errors.LockNotAvailable,
    pg_errors.SerializationFailure,
    pg_errors.DeadlockDetected,
)


def idle(connection: psycopg.Connection[Any]) -> bool:
    """No transaction open on the connection (nothing sent since the last commit)."""
    # libpq's own status, an int: ``connection.info`` makes an object and an enum each time
    return connection.pgconn.transaction_status == TransactionStatus.IDLE


@contextmanager
def autocommitted(connection: psycopg.Connection[Any]) -> Iterator[None]:
    """Statements sent as transactions of their own: psycopg sends no BEGIN before them.
    The connection is never given back to the pool in autocommit: a broken or interrupted
    one is closed instead (the pool then drops it)."""
    connection.autocommit = True
    try:
        yield
    finally:
        if idle(connection):
            connection.autocommit = False
        else:
            connection.close()


def jsonable(row: dict[str, Any]) -> dict[str, Any]:
    """psycopg sends a dict or list parameter as JSON only when it is wrapped."""
    for name in _JSON_COLUMNS:
        if name in row:
            row[name] = Json(row[name])
    return row


@contextmanager
def translated() -> Iterator[None]:
    """The service's exception for what went wrong (as ``unit_of_work.translated`` does
    for SQLAlchemy's): a lost race to retry, or the database away."""
    try:
        yield
    except _LOST_RACE as error:
        raise ConcurrentUpdate(str(error)) from error
    except (psycopg.OperationalError, psycopg.InterfaceError) as error:
        raise Unavailable("the database is not answering; try again") from error
