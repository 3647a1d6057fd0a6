"""The unit of work over SQLAlchemy: one repository (and its pooled connection) per
``with``, and the one place where a database error becomes the service's own (a lost race
to retry, or the store down)."""

from __future__ import annotations

from contextlib import suppress
from types import TracebackType
from typing import Self

from sqlalchemy import text
from sqlalchemy.exc import (
    DBAPIError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.orm import Session

from app.persistence.analyses import SqlAnalysisRepository
from app.persistence.database import Database
from app.persistence.players import SqlPlayerRepository
from app.persistence.repository import SqlGameRepository
from app.persistence.schema import current_revisions, newest_revisions
from app.persistence.seeks import SqlSeekRepository
from app.services.errors import ConcurrentUpdate, Unavailable
from app.services.ports import AbstractUnitOfWork

# What PostgreSQL and SQLite say when a transaction lost a race for a lock.
_LOCK_WORDS = ("locked", "busy", "could not serialize", "deadlock")


def is_lock_error(error: DBAPIError) -> bool:
    """A lock timeout, a deadlock or a serialisation failure: the loser may try again."""
    text_ = str(error.orig).lower()
    return any(word in text_ for word in _LOCK_WORDS)


def translated(error: SQLAlchemyError) -> Exception | None:
    """The service's exception for a database error, or None to let it through (a bug)."""
    if isinstance(error, IntegrityError):  # a duplicate (game, seq) or idempotency key
        return ConcurrentUpdate(str(error.orig))
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return Unavailable("the database connection was lost; try again")
    if isinstance(error, OperationalError):
        if is_lock_error(error):
            return ConcurrentUpdate(str(error.orig))
        return Unavailable("the database is not answering; try again")
    if isinstance(error, InterfaceError):
        return Unavailable("the database is not answering; try again")
    return None


class SqlUnitOfWork(AbstractUnitOfWork):
    games: SqlGameRepository
    players: SqlPlayerRepository
    seeks: SqlSeekRepository
    analyses: SqlAnalysisRepository

    def __init__(self, database: Database) -> None:
        self.database = database
        self.session: Session | None = None
        self.inside = False

    def __enter__(self) -> Self:
        self.games = self.database.repository()
        self.players = SqlPlayerRepository(self.games)
        self.seeks = SqlSeekRepository(self.games)  # on the games' connection and transaction
        self.analyses = SqlAnalysisRepository(self.games)
        self.inside = True
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Nothing to undo after a commit; the whole transaction after a loss.
        self.inside = False
        self.games.close()
        session, self.session = self.session, None
        if session is not None:
            with suppress(SQLAlchemyError):  # a lost connection cannot roll back
                session.rollback()
            session.close()
        self.games.finished()
        if isinstance(error, SQLAlchemyError):
            service_error = translated(error)
            if service_error is not None:
                raise service_error from error

    def commit(self) -> None:
        self._inside()
        self.games.commit()

    def rollback(self) -> None:
        self._inside()
        self.games.forget_writes()
        self.games.rollback()
        self.games.finished()

    def ping(self) -> None:
        """/healthz: a pool checkout and ``SELECT 1``, through an ORM session as before the
        games stopped using one (bench/api.py measures moves against it: the yardstick stays)."""
        with self:
            self._session().execute(text("SELECT 1"))

    def schema_revisions(self) -> tuple[frozenset[str], frozenset[str]]:
        with self:
            return current_revisions(self._session().connection()), newest_revisions()

    def _session(self) -> Session:
        """A session of its own for ``ping`` and ``schema_revisions`` (games go through
        ``self.games``), made on first use inside the ``with`` block."""
        self._inside()
        if self.session is None:
            self.session = self.database.session()
        return self.session

    def _inside(self) -> None:
        if not self.inside:
            raise RuntimeError("the unit of work is used outside its `with` block")
