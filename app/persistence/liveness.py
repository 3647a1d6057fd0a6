"""Dropping a pooled PostgreSQL connection that died while it waited in the pool, without a
round trip to the server.

``pool_pre_ping`` sends ``SELECT 1`` on every checkout: a round trip on every request, one
of the ten a move used to cost (docs/performance.md). A connection the server has closed
(a restart, ``-m fast`` or ``-m immediate``, or a backend killed) has its socket readable:
the server's goodbye, or the end of the stream. An idle pooled connection has nothing to
read, so a poll of the socket that finds something is enough to throw it away and take a
fresh one; the pool does that when the checkout hook raises ``DisconnectionError``.
"""

from __future__ import annotations

import select
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.exc import DisconnectionError


def drop_dead_connections(engine: Engine) -> None:
    event.listen(engine, "checkout", _check_on_checkout)


def _check_on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    if not is_alive(dbapi_connection):
        raise DisconnectionError("the pooled connection was closed by the server")


def is_alive(dbapi_connection: Any) -> bool:
    """False when a psycopg connection is closed, broken, or has unread input while idle."""
    if getattr(dbapi_connection, "closed", False) or getattr(dbapi_connection, "broken", False):
        return False
    pgconn = getattr(dbapi_connection, "pgconn", None)
    if pgconn is None:  # not psycopg: nothing cheap to look at
        return True
    try:
        poller = select.poll()
        poller.register(pgconn.socket, select.POLLIN | select.POLLERR | select.POLLHUP)
        return not poller.poll(0)
    except Exception:  # no socket any more (closed, or not a socket): it is gone
        return False
