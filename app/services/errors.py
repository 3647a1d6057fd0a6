"""Refusals of the use cases that are not rule violations (those are engine errors).
Each has a stable ``code``; the HTTP layer maps codes to statuses in one place."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    code = "service_error"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class NotFound(ServiceError):
    code = "not_found"


class Unauthorized(ServiceError):
    code = "unauthorized"


class Forbidden(ServiceError):
    code = "forbidden"


class InvalidRequest(ServiceError):
    code = "invalid_request"


class GameFull(ServiceError):
    code = "game_full"


class AlreadySeated(ServiceError):
    """A player holds at most one seat of a game."""

    code = "already_seated"


class PlayerRequired(ServiceError):
    """A seat of a rated game is taken by a player's bearer only."""

    code = "player_required"


class GameNotFinished(ServiceError):
    code = "game_not_finished"


class VersionMismatch(ServiceError):
    code = "version_mismatch"


class IdempotencyConflict(ServiceError):
    code = "idempotency_conflict"


class Busy(ServiceError):
    """The game kept changing under us; the client should simply retry."""

    code = "conflict"


class Unavailable(ServiceError):
    """The store does not answer (down, restarting, connection lost)."""

    code = "unavailable"


class Backlogged(ServiceError):
    """More games of bots alone are being played than the server takes on; retry later."""

    code = "unavailable"
    retry_after_seconds = 30


class ConcurrentUpdate(Exception):
    """Another transaction changed the game first: not a refusal, a reason to retry
    (``ports.retrying``). The persistence layer raises it for every lost race."""
