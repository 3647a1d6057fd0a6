"""Who the caller is: a seat's bearer token, or nobody (a spectator)."""

from __future__ import annotations

from app.services.errors import Forbidden, NotFound, Unauthorized
from app.services.model import GameRecord
from app.services.tokens import hash_token, same_hash
from app.services.unit_of_work import AbstractUnitOfWork


def load(
    uow: AbstractUnitOfWork,
    game_id: str,
    for_update: bool = False,
    idempotency_key: str | None = None,
) -> GameRecord:
    game = uow.games.get(game_id, for_update=for_update, idempotency_key=idempotency_key)
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    return game


def seat_of(uow: AbstractUnitOfWork, game: GameRecord, token: str | None) -> int | None:
    """The seat a bearer token acts as; None for a spectator (no token at all)."""
    if token is None:
        return None
    digest = hash_token(token)
    for seat in game.seats:
        if same_hash(seat.token_hash, digest):
            return seat.seat
    if uow.games.game_of_token(digest) is not None:
        raise Forbidden("that token belongs to another game")
    raise Unauthorized("unknown token")


def seated(uow: AbstractUnitOfWork, game: GameRecord, token: str | None) -> int:
    """The seat a bearer token acts as, where only a seat may act."""
    seat = seat_of(uow, game, token)
    if seat is None:
        raise Unauthorized("this needs a seat's token: Authorization: Bearer <token>")
    return seat
