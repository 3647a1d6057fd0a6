"""Running a use case in one transaction, again from scratch if another request won a race."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from app.persistence import ConcurrentUpdate, Database, GameRepository
from app.services.errors import Busy, Unavailable

T = TypeVar("T")
ATTEMPTS = 5


def run(db: Database, use_case: Callable[[GameRepository], T], attempts: int = ATTEMPTS) -> T:
    """Call ``use_case`` with a fresh repository until it commits without a lost race.

    A lost race (the version check, a duplicate (game, seq), SQLite's write lock) rolls
    the whole transaction back, so nothing is ever half-written; the retry reloads the
    game and decides again, which may now refuse the move (e.g. not your turn).
    """
    for _ in range(attempts):
        with db.session() as session:
            repo = GameRepository(session)
            try:
                return use_case(repo)
            except ConcurrentUpdate:
                session.rollback()
            except IntegrityError:
                session.rollback()
            except OperationalError as error:
                session.rollback()
                if not _is_lock(error):
                    raise Unavailable("the database is not answering; try again") from error
            except DBAPIError as error:
                session.rollback()
                if error.connection_invalidated:
                    raise Unavailable("the database connection was lost; try again") from error
                raise
    raise Busy("the game is changing too fast; try again")


def _is_lock(error: OperationalError) -> bool:
    text = str(error.orig).lower()
    return "locked" in text or "busy" in text or "could not serialize" in text or "deadlock" in text
