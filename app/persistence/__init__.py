"""Maps games, seats and the event log to tables, and nothing else."""

from app.persistence.database import Database
from app.persistence.models import Base, EventRow, GameRow, IdempotentResponseRow, SeatRow
from app.persistence.repository import ConcurrentUpdate, GameRepository

__all__ = [
    "Base",
    "ConcurrentUpdate",
    "Database",
    "EventRow",
    "GameRepository",
    "GameRow",
    "IdempotentResponseRow",
    "SeatRow",
]
