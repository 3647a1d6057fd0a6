"""Maps games, seats and the event log to tables, and nothing else: the SQLAlchemy side of
the services' repository and unit of work (``app.services.ports``)."""

from app.persistence.database import Database
from app.persistence.models import Base, EventRow, GameRow, IdempotentResponseRow, SeatRow
from app.persistence.repository import SqlGameRepository
from app.persistence.unit_of_work import SqlUnitOfWork, is_lock_error

__all__ = [
    "Base",
    "Database",
    "EventRow",
    "GameRow",
    "IdempotentResponseRow",
    "SeatRow",
    "SqlGameRepository",
    "SqlUnitOfWork",
    "is_lock_error",
]
