"""A move's two statements prepared once per connection and sent through libpq itself.

A psycopg cursor spends about 30 us of CPU around each statement a move sends (the cursor,
its transformer, the query's conversion, the prepared-statement cache, the autocommit flag
flipped and restored), as much as the round trip itself (docs/performance.md, "Where a
move's cost goes"). The load and the save of a move are the same few texts every time, sent when no
transaction is open, so here each is prepared once per connection (``PQprepare``) and then
sent with its values as text (``PQexecPrepared``). Rows come back in binary and are read by
the connection's own loaders, so a row comes out as a cursor would give it.

Only statements sent while the connection is idle come here: each then runs as a transaction
of its own, as it did in psycopg's autocommit, and no BEGIN is sent. That is also what makes
a statement that is no longer prepared safe to send again: psycopg clears the statements of a
connection (``DEALLOCATE ALL``) when it rolls back a transaction, and the first send after it
fails before anything runs. The statement is then prepared again and sent once more.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from itertools import count
from typing import Any

import psycopg
from psycopg import abc, pq
from psycopg import errors as pg_errors
from psycopg.adapt import Transformer
from psycopg.types.json import Json

from app.persistence.json_codec import json_bytes

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_UNDEFINED_STATEMENT = b"26000"  # invalid_sql_statement_name: not prepared on this connection
_BINARY = 1  # libpq's result format code
_INFO_KEY = "basra_libpq"  # where a pooled connection keeps its ``OnConnection``
_names = count(1)


@dataclass(frozen=True, slots=True)
class Prepared:
    """A statement written with psycopg's ``%(name)s`` placeholders, in libpq's form: ``$1``
    for the first name, and so on (a name used twice is one parameter)."""

    name: bytes
    text: bytes
    parameters: tuple[str, ...]

    @classmethod
    def of(cls, statement: str) -> Prepared:
        names: list[str] = []

        def numbered(match: re.Match[str]) -> str:
            if match.group(1) not in names:
                names.append(match.group(1))
            return f"${names.index(match.group(1)) + 1}"

        text = _PLACEHOLDER.sub(numbered, statement)
        return cls(f"basra_{next(_names)}".encode(), text.encode(), tuple(names))


@dataclass(slots=True)
class OnConnection:
    """What one connection to the server keeps between its units of work: the statements
    prepared on it, and the transformer that reads its rows (its loaders found once)."""

    connection: psycopg.Connection[Any]
    transformer: abc.Transformer
    encoding: str  # the connection's, for the text of parameters and of errors
    prepared: set[bytes] = field(default_factory=set)

    @classmethod
    def of(cls, info: dict[Any, Any], connection: psycopg.Connection[Any]) -> OnConnection:
        """The state of a pooled connection, in its SQLAlchemy ``info`` (which lives as long
        as the connection to the server does: a new one starts afresh)."""
        state: OnConnection | None = info.get(_INFO_KEY)
        if state is None or state.connection is not connection:
            encoding = connection.info.encoding
            state = info[_INFO_KEY] = cls(connection, Transformer(connection), encoding)
        return state

    def execute(self, statement: Prepared, values: Mapping[str, Any]) -> pq.abc.PGresult:
        """Send ``statement`` with ``values`` on the idle connection. The error of a failed
        statement is psycopg's own class of it (a lost race stays one)."""
        pgconn, encoding = self.connection.pgconn, self.encoding
        # A None goes as SQL NULL (psycopg's own sends do the same; its types say otherwise).
        sent: Any = [_text(values[name], encoding) for name in statement.parameters]
        if statement.name not in self.prepared:
            self._prepare(statement)
        result = exec_prepared(pgconn, statement.name, sent)
        if (
            result.status == pq.ExecStatus.FATAL_ERROR
            and result.error_field(pq.DiagnosticField.SQLSTATE) == _UNDEFINED_STATEMENT
        ):
            self.prepared.discard(statement.name)  # gone with a DEALLOCATE ALL: nothing ran
            self._prepare(statement)
            result = exec_prepared(pgconn, statement.name, sent)
        _check(pgconn, result, encoding)
        return result

    def first_row(self, result: pq.abc.PGresult) -> tuple[Any, ...] | None:
        """The result's first row, each value loaded as the connection's cursors load it."""
        if result.ntuples == 0:
            return None
        self.transformer.set_pgresult(result)
        row: tuple[Any, ...] = self.transformer.load_row(0, tuple)
        return row

    def _prepare(self, statement: Prepared) -> None:
        # No parameter types: the server infers each from where it stands, and the values go
        # as text, so a version of 5 and one of 50,000 fit the same prepared statement.
        pgconn = self.connection.pgconn
        _check(pgconn, prepare(pgconn, statement.name, statement.text), self.encoding)
        self.prepared.add(statement.name)


# The two messages this module sends, each a round trip (the GIL is let go meanwhile). They
# are functions of their own so that bench/profile_move.py and the tests can count them.
def prepare(pgconn: pq.abc.PGconn, name: bytes, text: bytes) -> pq.abc.PGresult:
    return pgconn.prepare(name, text, None)


def exec_prepared(pgconn: pq.abc.PGconn, name: bytes, sent: Any) -> pq.abc.PGresult:
    return pgconn.exec_prepared(name, sent, None, _BINARY)


def _check(pgconn: pq.abc.PGconn, result: pq.abc.PGresult, encoding: str) -> None:
    if result.status in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
        return
    if pgconn.status != pq.ConnStatus.OK:
        raise psycopg.OperationalError(
            f"the connection to the server was lost: {pgconn.get_error_message()}"
        )
    raise pg_errors.error_from_result(result, encoding)


def _timestamp(value: datetime, _encoding: str) -> bytes:
    if value.tzinfo is None:  # the session's time zone would decide what it meant
        raise TypeError("a timestamp sent to PostgreSQL must carry its time zone")
    return value.isoformat().encode()


# Each type a move's parameters come in, as the text PostgreSQL reads it; looked up by the
# exact type (``bool`` apart from ``int``), anything else refused.
_TEXT_OF: dict[type, Callable[[Any, str], bytes]] = {
    str: str.encode,
    int: lambda value, _encoding: str(value).encode(),
    bool: lambda value, _encoding: b"true" if value else b"false",
    datetime: _timestamp,
    Json: lambda value, _encoding: json_bytes(value.obj),
    dict: lambda value, _encoding: json_bytes(value),
    list: lambda value, _encoding: json_bytes(value),
}


def _text(value: Any, encoding: str) -> bytes | None:
    """A parameter as the text PostgreSQL reads it in, in the connection's encoding."""
    if value is None:
        return None
    text_of = _TEXT_OF.get(type(value))
    if text_of is None:
        raise TypeError(f"no text form for a parameter of type {type(value).__name__}")
    return text_of(value, encoding)
